// Writes with no transaction of their own (commit() with no BEGIN, a `with conn:`
// that opens none, a commit per loop iteration, DDL before the transaction): the
// function opens its own with `with _own_transaction(conn):` around each unit of
// work, ending where it used to commit. A loop that committed per item becomes one
// transaction around the loop, or, for a job built to resume, one per item.
import { parseModule } from '../../python/parse.ts';
import { listFunctions } from '../../python/functions.ts';
import { findEffects } from '../../python/effects.ts';
import type { PyFunction, PyModule, SyntaxNode } from '../../python/model.ts';
import { callParts } from '../../python/body-walk.ts';
import { applyEdits, descendantsOfType, indentOf, indentUnit, lineEnd, lineStart, reindentLines, type TextEdit } from '../source-edit.ts';
import { helperInsertion, TRANSACTION_HELPER } from '../transaction-helper.ts';
import { commitReceiver, statementsOf, type RepairStrategy, type StrategyInput } from './strategy.ts';

const LOOPS = ['for_statement', 'while_statement'];

export const ownTransaction: RepairStrategy = {
  id: 'own-transaction',
  answers: ['writes-rely-on-implicit-transaction', 'with-conn-opens-no-transaction', 'commit-without-begin', 'commit-in-loop', 'ddl-outside-transaction'],
  alsoWhen: ['keyed-send-before-commit', 'claim-then-work'],
  apply(input) {
    const effects = findEffects(input.fn, input.module);
    // A function that already begins or rolls back manages its own transaction; rewriting it blind would fight it.
    if (effects.some((e) => e.kind === 'db-begin' || e.kind === 'db-rollback' || e.kind === 'db-script')) return undefined;
    const first = firstPass(input);
    if (!first) return undefined;
    const module = parseModule(input.module.path, first.source);
    const fn = findFunction(module, input.fn.qualname);
    if (!fn) return undefined;
    const second = wrapUnits(module, fn, first);
    if (!second) return undefined;
    const wrapped = parseModule(module.path, second.source);
    const wrappedFn = findFunction(wrapped, input.fn.qualname);
    const helper = wrappedFn && helperInsertion(wrapped, wrappedFn.node);
    const source = helper ? applyEdits(wrapped.source, [helper]) : wrapped.source;
    return { source, summary: [...first.said, ...second.said].join('; ') };
  },
};

export function findFunction(module: PyModule, qualname: string): PyFunction | undefined {
  return listFunctions(module).find((f) => f.qualname === qualname);
}

interface FirstPass {
  source: string;
  said: string[];
  /** Indexes (among the body's statements) of top-level statements holding a loop whose per-item commits were removed. */
  loopTops: number[];
  /** The connection the function writes through. */
  conn: string | undefined;
}

/** `with conn:` → `with _own_transaction(conn):`; commits inside it, and per-item commits of a non-resumable loop, removed. */
function firstPass({ module, fn, resumable }: StrategyInput): FirstPass | undefined {
  const { source } = module;
  const body = fn.node.childForFieldName('body');
  if (!body) return undefined;
  const edits: TextEdit[] = [];
  const said: string[] = [];
  const removed = new Set<number>();
  let conn: string | undefined;
  const commits = descendantsOfType(body, ['expression_statement']).filter((s) => commitReceiver(s) !== undefined);
  const receivers = new Set(descendantsOfType(body, ['call']).map((c) => callParts(c)).filter((p) => ['execute', 'executemany', 'commit', 'cursor'].includes(p.method)).map((p) => p.receiver?.text));

  for (const statement of descendantsOfType(body, ['with_statement'])) {
    const items = statement.namedChildren.find((n) => n.type === 'with_clause')?.namedChildren ?? [];
    const value = items.length === 1 ? items[0]!.childForFieldName('value') : undefined;
    if (!value || !['identifier', 'attribute'].includes(value.type) || !receivers.has(value.text)) continue;
    conn = value.text;
    edits.push({ start: value.startIndex, end: value.endIndex, text: `${TRANSACTION_HELPER}(${value.text})` });
    said.push(`\`with ${value.text}:\` (which opens no transaction) becomes \`with ${TRANSACTION_HELPER}(${value.text}):\``);
    for (const commit of commits) if (commit.startIndex > statement.startIndex && commit.endIndex <= statement.endIndex) removed.add(commit.id);
  }

  const loopTops = new Set<number>();
  const topStatements = statementsOf(body);
  for (const commit of commits) {
    if (removed.has(commit.id)) continue;
    conn ??= commitReceiver(commit);
    const loop = outermostLoop(commit, fn.node);
    // A job built to resume keeps one transaction per item, when the commit ends the item (the loop's own body).
    if (!loop || (resumable && commit.parent?.parent && LOOPS.includes(commit.parent.parent.type))) continue;
    removed.add(commit.id);
    const top = topStatements.findIndex((s) => s.startIndex <= loop.startIndex && s.endIndex >= loop.endIndex);
    if (top >= 0) loopTops.add(top);
  }
  if (loopTops.size) said.push('the per-item commits in the loop become one transaction around the loop');
  for (const commit of commits.filter((c) => removed.has(c.id))) edits.push(removalOf(source, commit));
  if (edits.length === 0 && commits.length === 0) {
    // No commit at all (autocommit switched on by the function itself, or DDL): the writes get a transaction.
    conn = firstWriteReceiver(fn, module);
    if (!conn) return undefined;
  }
  return { source: applyEdits(source, edits), said, loopTops: [...loopTops], conn };
}

function outermostLoop(node: SyntaxNode, fnNode: SyntaxNode): SyntaxNode | undefined {
  let found: SyntaxNode | undefined;
  for (let current = node.parent; current && current.id !== fnNode.id; current = current.parent) if (LOOPS.includes(current.type)) found = current;
  return found;
}

/** Removes a commit statement; an `if` that held nothing else goes with it. */
function removalOf(source: string, commit: SyntaxNode): TextEdit {
  let target = commit;
  const block = commit.parent;
  const holder = block?.parent;
  if (block?.type === 'block' && statementsOf(block).length === 1 && holder?.type === 'if_statement' && !holder.childForFieldName('alternative')) target = holder;
  return { start: lineStart(source, target.startIndex), end: lineEnd(source, target.endIndex - 1), text: '' };
}

function firstWriteReceiver(fn: PyFunction, module: PyModule): string | undefined {
  const write = findEffects(fn, module).find((e) => e.kind === 'db-write' || e.kind === 'db-ddl');
  if (!write || write.via) return undefined;
  const receiver = callParts(write.node).receiver;
  if (!receiver || receiver.type !== 'identifier') return undefined;
  // A cursor cannot begin or commit; the connection's name is needed.
  const cursorAssigned = descendantsOfType(fn.node, ['assignment']).some(
    (a) => a.childForFieldName('left')?.text === receiver.text && /\.cursor\(\)$/.test(a.childForFieldName('right')?.text ?? ''),
  );
  return cursorAssigned ? undefined : receiver.text;
}

interface Unit {
  first: SyntaxNode;
  last: SyntaxNode;
  /** The commit statement the unit ended with (removed: the helper commits). */
  commit?: SyntaxNode;
}

/** Statements that set up the connection rather than do the work: the docstring, `conn.isolation_level = ...`. */
function isPreamble(statement: SyntaxNode): boolean {
  if (statement.type !== 'expression_statement') return false;
  const inner = statement.namedChildren[0];
  if (inner?.type === 'string') return true;
  return inner?.type === 'assignment' && /\.(isolation_level|autocommit)$/.test(inner.childForFieldName('left')?.text ?? '');
}

/** Every remaining commit ends a unit of work that starts after the previous commit of its block. */
function wrapUnits(module: PyModule, fn: PyFunction, first: FirstPass): { source: string; said: string[] } | undefined {
  const body = fn.node.childForFieldName('body');
  if (!body) return undefined;
  const said: string[] = [];
  const units: Unit[] = [];
  const commits = descendantsOfType(body, ['expression_statement']).filter((s) => commitReceiver(s) !== undefined);
  const withConn = descendantsOfType(body, ['with_statement']).filter((w) => w.text.startsWith(`with ${TRANSACTION_HELPER}(`));
  const blocks = new Map<number, SyntaxNode>();
  for (const commit of commits) if (commit.parent) blocks.set(commit.parent.id, commit.parent);
  for (const block of blocks.values()) {
    const statements = statementsOf(block);
    let start = 0;
    statements.forEach((statement, index) => {
      if (commitReceiver(statement) === undefined) return;
      let from = start;
      while (block.id === body.id && from < index && isPreamble(statements[from]!)) from++;
      if (from < index) units.push({ first: statements[from]!, last: statements[index - 1]!, commit: statement });
      start = index + 1;
    });
  }
  // Loops whose per-item commits were removed, with no commit after them in the body: the unit ends with the loop.
  const top = statementsOf(body);
  for (const index of first.loopTops) {
    const loopTop = top[index];
    if (!loopTop || units.some((u) => u.first.startIndex <= loopTop.startIndex && u.last.endIndex >= loopTop.endIndex)) continue;
    const previousCommit = top.slice(0, index).map((s) => commitReceiver(s) !== undefined).lastIndexOf(true);
    let from = previousCommit + 1;
    while (from < index && isPreamble(top[from]!)) from++;
    units.push({ first: top[from]!, last: loopTop });
  }
  if (units.length === 0 && withConn.length === 0) {
    // No commit anywhere: from the first statement doing work to the last one that writes.
    const writes = findEffects(fn, module).filter((e) => ['db-write', 'db-ddl'].includes(e.kind));
    const lastWrite = writes.at(-1);
    if (!lastWrite) return undefined;
    let from = 0;
    while (from < top.length && isPreamble(top[from]!)) from++;
    const last = top.find((s) => s.startIndex <= lastWrite.node.startIndex && s.endIndex >= lastWrite.node.endIndex);
    if (!last || !top[from]) return undefined;
    units.push({ first: top[from]!, last });
  }
  const conn = first.conn;
  if (units.length && !conn) return undefined;
  // A unit inside another (a commit in a loop inside a unit's range) would be edited twice: keep the outer one.
  const outer = units.filter((u) => !units.some((o) => o !== u && o.first.startIndex <= u.first.startIndex && o.last.endIndex >= u.last.endIndex && (o.first.startIndex < u.first.startIndex || o.last.endIndex > u.last.endIndex)));
  const unit = indentUnit(module.tree.rootNode, module.source);
  const edits: TextEdit[] = outer.map((u) => {
    const indent = indentOf(module.source, u.first);
    const end = u.commit ?? u.last;
    return {
      start: lineStart(module.source, u.first.startIndex),
      end: lineEnd(module.source, end.endIndex - 1),
      text: `${indent}with ${TRANSACTION_HELPER}(${conn}):\n${reindentLines(module.source, u.first, u.last, unit, fn.node)}${u.last.endIndex === module.source.length ? '\n' : ''}`,
    };
  });
  if (outer.some((u) => u.commit)) said.push(`the writes get their own transaction (\`with ${TRANSACTION_HELPER}(${conn}):\`, BEGIN or a SAVEPOINT inside a caller's) that commits or rolls back on every path, in place of the bare commit()`);
  else if (outer.length) said.push(`the writes get their own transaction (\`with ${TRANSACTION_HELPER}(${conn}):\`)`);
  if (edits.length === 0 && withConn.length === 0) return undefined;
  return { source: applyEdits(module.source, edits), said };
}
