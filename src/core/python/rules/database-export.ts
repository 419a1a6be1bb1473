// An export: a file truncated and written with data that comes only from
// database reads of the function (data-origin.ts), by a function that changes
// no database on the way to the write or after it. A crash mid-write tears a
// copy derived from rows that are still in the database, so running the export
// again rebuilds it and nothing is lost. buku's BukuDb.exportdb writes
// convert_bookmark_set(resultset) where resultset = self.get_rec_all() (a
// SELECT); its INSERTs and commit into a .db export sit in a branch that
// returns before the text export is opened.
//
// What a same-module helper returns is judged in its body (helper-returns.ts):
// its reads, its arguments, and nothing else it may mix in (the object's state,
// a file). Partial: a function that only writes a value it was given (buku's
// write_string_to_file(content, filepath)) stays reported: only its callers
// show where the value comes from, and this looks at one function.
import type { Effect, SyntaxNode } from '../model.ts';
import type { RuleContext } from './rule.ts';
import { mutuallyExclusive } from './syntax.ts';
import { originJudge, combine } from './data-origin.ts';
import { writtenData } from './written-data.ts';

const DATABASE_CHANGES = new Set<Effect['kind']>(['db-write', 'db-ddl', 'db-script', 'db-commit']);
/** Moving or removing files after the write may be retiring the source the export was read from. */
const FILE_MOVES = new Set<Effect['kind']>(['file-delete', 'file-rename', 'file-replace']);

export function exportOfDatabaseReads(write: Effect, context: Pick<RuleContext, 'fn' | 'module' | 'effects'>): boolean {
  const fnNode = context.fn.node;
  const truncates = write.mode?.includes('w') || /\.write_(text|bytes)$/.test(write.call);
  if (!truncates) return false;
  const changes = context.effects.filter(
    (effect) => DATABASE_CHANGES.has(effect.kind) || (FILE_MOVES.has(effect.kind) && effect.node.startIndex > write.node.startIndex),
  );
  if (changes.some((change) => !mutuallyExclusive(change.node, write.node, fnNode))) return false;
  const data = writtenData(write, fnNode, context.module);
  if (!data || data.length === 0) return false;
  const judge = originJudge({ fnNode, module: context.module, effects: context.effects, fn: context.fn, ...selfOf(context.fn) });
  return combine(data.map(judge)) === 'database';
}

function selfOf(fn: RuleContext['fn']): { selfName?: string } {
  const first = fn.params[0];
  return fn.className && first ? { selfName: first } : {};
}
