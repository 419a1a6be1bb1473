// Record, then write the file: a crash between the commit and the write leaves a
// row naming a file that is missing or cut short, and a re-run that sees the row
// skips the work. The repair moves the `with open(...)` block above the write
// that records the file, so a crash leaves at most a file no row names (an
// orphan the re-run writes again); the atomic-replace strategy then writes it
// through a temporary file, fsync and os.replace(). Only when the block uses no
// name assigned between its new place and its old one, and its path is built
// from a value the record stores.
import { callParts } from '../../python/body-walk.ts';
import { findEffects } from '../../python/effects.ts';
import type { Effect, SyntaxNode } from '../../python/model.ts';
import { applyEdits, lineEnd, lineStart } from '../source-edit.ts';
import { commitReceiver, statementsOf, type RepairStrategy } from './strategy.ts';

export const writeBeforeRecord: RepairStrategy = {
  id: 'write-before-record',
  answers: [],
  apply({ module, fn }) {
    const effects = findEffects(fn, module).filter((e) => !e.via);
    const body = fn.node.childForFieldName('body');
    if (!body) return undefined;
    const { source } = module;
    const statements = statementsOf(body);
    for (const [index, statement] of statements.entries()) {
      if (statement.type !== 'with_statement') continue;
      const open = effects.find((e) => e.kind === 'file-write' && /^w/.test(e.mode ?? '') && statement.startIndex <= e.node.startIndex && e.node.endIndex <= (statement.childForFieldName('body')?.startIndex ?? 0));
      if (!open) continue;
      const commitAt = statements.slice(0, index).map((s) => commitReceiver(s) !== undefined).lastIndexOf(true);
      if (commitAt < 0) continue;
      const previousCommit = statements.slice(0, commitAt).map((s) => commitReceiver(s) !== undefined).lastIndexOf(true);
      const unit = statements.slice(previousCommit + 1, commitAt);
      const recordAt = unit.findIndex((s) => effects.some((e) => e.kind === 'db-write' && e.sql?.kind === 'write' && contains(s, e.node)));
      if (recordAt < 0) continue;
      const record = effects.find((e) => e.kind === 'db-write' && contains(unit[recordAt]!, e.node))!;
      const target = statements[previousCommit + 1 + recordAt]!;
      if (!pathNamedByRecord(open, record)) continue;
      const between = statements.slice(previousCommit + 1 + recordAt, index);
      if (between.some((s) => effects.some((e) => contains(s, e.node) && !['db-write', 'db-commit', 'db-read'].includes(e.kind)))) continue;
      const assigned = new Set(between.flatMap(assignedNames));
      const used = new Set(statement.descendantsOfType('identifier').map((n) => n.text));
      if ([...assigned].some((name) => used.has(name))) continue;
      const start = lineStart(source, statement.startIndex);
      const end = lineEnd(source, statement.endIndex - 1);
      const block = source.slice(start, end);
      // The blank line that set the block apart goes with it.
      const blankAbove = start >= 2 && source[start - 1] === '\n' && /\n[ \t]*$/.test(source.slice(0, start - 1)) ? lineStart(source, start - 1) : start;
      const at = lineStart(source, target.startIndex);
      return {
        source: applyEdits(source, [
          { start: at, end: at, text: block.endsWith('\n') ? block : `${block}\n` },
          { start: blankAbove, end, text: '' },
        ]),
        summary: `the file is written before the row that names it is recorded (line ${open.range.startLine} moves above line ${target.startPosition.row + 1}): a crash leaves at most a file no row names, which the re-run writes again`,
      };
    }
    return undefined;
  },
};

function contains(outer: SyntaxNode, inner: SyntaxNode): boolean {
  return outer.startIndex <= inner.startIndex && outer.endIndex >= inner.endIndex;
}

/** Some name in the file's path is also a value the record stores (`stored_as`, `filename`). */
function pathNamedByRecord(open: Effect, record: Effect): boolean {
  const path = callParts(open.node).positional[0];
  const params = callParts(record.node).positional[1];
  if (!path || !params) return false;
  const stored = new Set(params.descendantsOfType('identifier').map((n) => n.text));
  if (params.type === 'identifier') stored.add(params.text);
  return path.descendantsOfType('identifier').some((n) => stored.has(n.text)) || (path.type === 'identifier' && stored.has(path.text));
}

function assignedNames(statement: SyntaxNode): string[] {
  return statement.descendantsOfType(['assignment', 'augmented_assignment', 'for_statement']).flatMap((node) => {
    const left = node.childForFieldName('left');
    return left ? [left.text, ...left.descendantsOfType('identifier').map((n) => n.text)] : [];
  });
}
