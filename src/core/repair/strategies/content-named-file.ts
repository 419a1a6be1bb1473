// A file a database row names, rewritten after the commit (a cache of the data,
// `cache_file = conn.execute("SELECT value FROM meta WHERE key = ...").fetchone()[0]`):
// a crash between the commit and the swap leaves new data with a stale file.
// After the atomic-replace strategy wrote the file through a temporary one, this
// names the new file by a hash of its content and switches the row to that name
// in the same transaction as the data (the commit moves below the swap): a crash
// before the commit leaves the old data and the old file the row still names (the
// new file is named by no row); after it, both are new. The same content gets the
// same name, so a repeated run changes nothing. The old file is left in place
// (the previous version; nothing names it once the row has switched).
// Only that shape: the name read by `SELECT col FROM t WHERE ...` in the function's
// top block after a commit(), and `os.replace(tmp, target)` with `target = <path
// built from the name>` after it, in the same block.
import { callParts } from '../../python/body-walk.ts';
import type { PyModule, SyntaxNode } from '../../python/model.ts';
import { resolveString } from '../../python/string-value.ts';
import { applyEdits, ensureImport, freshName, indentOf, indentUnit, lineEnd, lineStart, namesUsed } from '../source-edit.ts';
import { commitReceiver, statementsOf, type RepairStrategy } from './strategy.ts';

const POINTER = /^\s*select\s+(\w+)\s+from\s+(\w+)\s+(where\s+[^;]+?)\s*;?\s*$/i;

export const contentNamedFile: RepairStrategy = {
  id: 'content-named-file',
  answers: [],
  apply({ module, fn, applied }) {
    if (!applied?.includes('atomic-replace')) return undefined;
    const body = fn.node.childForFieldName('body');
    if (!body) return undefined;
    const { source } = module;
    const statements = statementsOf(body);
    for (const [index, statement] of statements.entries()) {
      const pointer = pointerRead(statement, module);
      if (!pointer) continue;
      const commitAt = statements.slice(0, index).map((s) => commitReceiver(s) !== undefined).lastIndexOf(true);
      if (commitAt < 0) continue;
      const commit = statements[commitAt]!;
      const conn = commitReceiver(commit)!;
      const later = statements.slice(index + 1);
      if (later.some((s) => commitReceiver(s) !== undefined)) continue;
      const swap = later.find((s) => swapOf(s) !== undefined);
      const parts = swap && swapOf(swap);
      if (!swap || !parts) continue;
      const targetAssignment = later.find((s) => s.startIndex < swap.startIndex && assigned(s)?.name === parts.target);
      const targetValue = targetAssignment && assigned(targetAssignment)!.value;
      if (!targetValue || !targetValue.descendantsOfType('identifier').some((id) => id.text === pointer.name)) continue;
      const taken = namesUsed(fn.node);
      const [handle, digest, root, ext] = ['written', 'digest', 'root', 'ext'].map((n) => freshName(taken, n)) as [string, string, string, string];
      const indent = indentOf(source, swap);
      const unit = indentUnit(module.tree.rootNode, source);
      const quote = /^[a-zA-Z]*'/.test(pointer.literal) ? "'" : '"';
      const other = quote === '"' ? "'" : '"';
      const n = pointer.name;
      const before = [
        `with open(${parts.tmp}, ${quote}rb${quote}) as ${handle}:`,
        `${unit}${digest} = hashlib.sha256(${handle}.read()).hexdigest()[:12]`,
        `${root}, ${ext} = os.path.splitext(${n})`,
        `${n} = f${quote}{${root}.rsplit(${other}-${other}, 1)[0]}-{${digest}}{${ext}}${quote}  # named by its content; the row switches to it on commit`,
        `${parts.target} = ${targetValue.text}`,
      ].map((line) => `${indent}${line}\n`).join('');
      const update = `UPDATE ${pointer.table} SET ${pointer.column} = ? ${pointer.where}`.replaceAll(quote, `\\${quote}`);
      const afterSwap = lineEnd(source, swap.endIndex - 1);
      const at = lineStart(source, swap.startIndex);
      const edits = [
        { start: lineStart(source, commit.startIndex), end: lineEnd(source, commit.endIndex - 1), text: '' },
        { start: at, end: at, text: before },
        {
          start: afterSwap,
          end: afterSwap,
          text: `${source[afterSwap - 1] === '\n' ? '' : '\n'}${indent}${conn}.execute(${quote}${update}${quote}, (${[n, ...pointer.params].join(', ')}${pointer.params.length ? '' : ','}))\n${indent}${conn}.commit()\n`,
        },
      ];
      // Reverse order: two imports inserted at one place end up in alphabetical order.
      const imports = ['os', 'hashlib'].map((m) => ensureImport(source, module.tree.rootNode, m)).filter((e) => e !== undefined);
      return {
        source: applyEdits(source, [...imports, ...edits]),
        summary: `the file the row \`${pointer.table}.${pointer.column}\` names is written under a name made from its content, and the row switches to it in the same transaction as the data (the commit moves below the swap): a crash leaves the old data with the old file, or both new`,
      };
    }
    return undefined;
  },
};

interface Pointer {
  name: string;
  table: string;
  column: string;
  where: string;
  params: string[];
  literal: string;
}

/** `name = conn.execute("SELECT col FROM t WHERE ...", params).fetchone()[0]`. */
function pointerRead(statement: SyntaxNode, module: PyModule): Pointer | undefined {
  const found = assigned(statement);
  if (!found || found.value.type !== 'subscript' || found.value.childForFieldName('subscript')?.text !== '0') return undefined;
  const fetch = found.value.childForFieldName('value');
  if (fetch?.type !== 'call' || callParts(fetch).method !== 'fetchone') return undefined;
  const execute = callParts(fetch).receiver;
  if (execute?.type !== 'call' || callParts(execute).method !== 'execute') return undefined;
  const [sqlNode, paramsNode] = callParts(execute).positional;
  const sql = sqlNode && resolveString(sqlNode, module)?.text;
  const match = sql ? POINTER.exec(sql) : null;
  if (!match || !sqlNode) return undefined;
  let params: string[] = [];
  if (paramsNode) {
    if (paramsNode.type !== 'tuple' && paramsNode.type !== 'list') return undefined;
    params = paramsNode.namedChildren.filter((c) => c.type !== 'comment').map((c) => c.text);
  }
  return { name: found.name, column: match[1]!, table: match[2]!, where: match[3]!, params, literal: sqlNode.text };
}

/** `name = value` as a statement. */
function assigned(statement: SyntaxNode): { name: string; value: SyntaxNode } | undefined {
  const assignment = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
  if (assignment?.type !== 'assignment') return undefined;
  const left = assignment.childForFieldName('left');
  const value = assignment.childForFieldName('right');
  return left?.type === 'identifier' && value ? { name: left.text, value } : undefined;
}

/** `os.replace(tmp, target)` with two plain names. */
function swapOf(statement: SyntaxNode): { tmp: string; target: string } | undefined {
  const call = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
  if (call?.type !== 'call') return undefined;
  const parts = callParts(call);
  const [tmp, target] = parts.positional;
  if (parts.callee !== 'os.replace' || !tmp || !target || tmp.type !== 'identifier' || target.type !== 'identifier') return undefined;
  return { tmp: tmp.text, target: target.text };
}
