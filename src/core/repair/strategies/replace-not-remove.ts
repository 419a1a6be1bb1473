// Remove, then rename: `os.remove(path)` before `os.rename(tmp, path)` leaves no
// file at all when a crash falls between them. os.replace() swaps the new file
// in over the old one in one step (on Windows too), so the remove goes (with the
// `if os.path.exists(...)` that guarded it, and the comment right above it that
// explained it), the rename becomes os.replace(), and the temporary file's
// `with open(...)` block is flushed and fsynced before the swap.
import { callParts } from '../../python/body-walk.ts';
import type { SyntaxNode } from '../../python/model.ts';
import { applyEdits, descendantsOfType, indentOf, lineEnd, lineStart, type TextEdit } from '../source-edit.ts';
import { statementsOf, type RepairStrategy } from './strategy.ts';

const REMOVES = new Set(['os.remove', 'os.unlink']);

export const replaceNotRemove: RepairStrategy = {
  id: 'replace-not-remove',
  answers: [],
  apply({ module, fn }) {
    const { source } = module;
    for (const rename of descendantsOfType(fn.node, ['call'])) {
      const parts = callParts(rename);
      if (parts.callee !== 'os.rename' || parts.positional.length !== 2) continue;
      const [tmp, target] = parts.positional as [SyntaxNode, SyntaxNode];
      const statement = rename.parent;
      const block = statement?.parent;
      if (statement?.type !== 'expression_statement' || !block) continue;
      const siblings = statementsOf(block);
      const at = siblings.findIndex((s) => s.id === statement.id);
      const removal = siblings.slice(0, at).reverse().find((s) => removes(s, target.text));
      if (!removal) continue;
      const edits: TextEdit[] = [];
      // The comment lines right above the removal explain it: they go with it.
      let start = lineStart(source, removal.startIndex);
      for (let previous = removal.previousSibling; previous?.type === 'comment' && previous.endPosition.row === rowOf(source, start) - 1; previous = previous.previousSibling) {
        start = lineStart(source, previous.startIndex);
      }
      edits.push({ start, end: lineEnd(source, removal.endIndex - 1), text: '' });
      const callee = rename.childForFieldName('function')!;
      edits.push({ start: callee.startIndex, end: callee.endIndex, text: 'os.replace' });
      const writer = siblings.slice(0, at).reverse().find((s) => s.type === 'with_statement' && opensForWriting(s, tmp.text));
      const handle = writer && handleOf(writer);
      const withBody = writer?.childForFieldName('body');
      if (handle && withBody && !/\bfsync\b/.test(writer!.text)) {
        const inner = indentOf(source, statementsOf(withBody)[0] ?? withBody);
        const end = lineEnd(source, withBody.endIndex - 1);
        edits.push({ start: end, end, text: `${source[end - 1] === '\n' ? '' : '\n'}${inner}${handle}.flush()\n${inner}os.fsync(${handle}.fileno())\n` });
      }
      return {
        source: applyEdits(source, edits),
        summary: `os.replace() swaps the new file in over the old one in one step, so the old file is no longer removed first (a crash in between left the target missing, its new contents only under the name they were renamed from)${handle ? '; the temporary file is fsynced before the swap' : ''}`,
      };
    }
    return undefined;
  },
};

function rowOf(source: string, index: number): number {
  return source.slice(0, index).split('\n').length - 1;
}

/** `os.remove(path)`, or `if os.path.exists(path): os.remove(path)` with nothing else in it. */
function removes(statement: SyntaxNode, target: string): boolean {
  if (statement.type === 'if_statement') {
    const body = statement.childForFieldName('consequence');
    const inner = body ? statementsOf(body) : [];
    return !statement.childForFieldName('alternative') && inner.length === 1 && removes(inner[0]!, target);
  }
  const call = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
  if (call?.type !== 'call') return false;
  const parts = callParts(call);
  return REMOVES.has(parts.callee) && parts.positional[0]?.text === target;
}

function opensForWriting(statement: SyntaxNode, path: string): boolean {
  const call = statement.descendantsOfType('call').find((c) => c.startIndex < (statement.childForFieldName('body')?.startIndex ?? 0));
  if (!call) return false;
  const parts = callParts(call);
  return parts.callee === 'open' && parts.positional[0]?.text === path && /^["']w/.test(parts.positional[1]?.text ?? parts.keywords.get('mode')?.text ?? '');
}

function handleOf(statement: SyntaxNode): string | undefined {
  const alias = statement.descendantsOfType('as_pattern')[0];
  const name = alias?.childForFieldName('alias')?.text ?? alias?.namedChildren[1]?.text;
  return name && /^\w+$/.test(name) ? name : undefined;
}
