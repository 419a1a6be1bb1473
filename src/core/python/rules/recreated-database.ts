// A file deleted and then opened again as a database: `os.remove(p)`, then
// `db = sqlite3.connect(p)` (or an object constructed from p, `Store(p)`, `Store(path=p)`),
// and every later write or commit of the function goes through that database. Those
// records are stored in the new file at p itself, so they cannot outlive it naming a
// missing file: the deletion is the start of a rebuild, not a record's subject going
// first. buku's exportdb removes an old .db export and writes the bookmarks into a
// new BukuDb(dbfile=filepath).
// Partial: a constructor is taken to open its database on the path it is given (it is
// not read); writes through helpers (`via`) or through any other connection keep the
// finding.
import type { Effect, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { compactText } from './syntax.ts';

const RECORD_KINDS = new Set(['db-write', 'db-commit', 'db-script']);

export function recordsOnlyInRecreatedFile(deletion: Effect, effects: readonly Effect[]): boolean {
  const deleted = callParts(deletion.node).positional[0] ?? callParts(deletion.node).receiver;
  if (!deleted) return false;
  const later = effects.filter((effect) => RECORD_KINDS.has(effect.kind) && effect.node.startIndex >= deletion.node.endIndex);
  return later.length > 0 && later.every((effect) => !effect.via && openedOn(rootName(effect.node), deleted, deletion.node));
}

/** `outdb` for `outdb.cur.execute(...)` and `outdb.conn.commit()`. */
function rootName(call: SyntaxNode): SyntaxNode | undefined {
  let node: SyntaxNode | null | undefined = callParts(call).receiver;
  while (node?.type === 'attribute') node = node.childForFieldName('object');
  return node?.type === 'identifier' ? node : undefined;
}

/** The name was last assigned, after the deletion, a connect() or constructor call given the deleted path. */
function openedOn(name: SyntaxNode | undefined, deleted: SyntaxNode, deletion: SyntaxNode): boolean {
  const opened = name && localAssignmentBefore(name);
  if (opened?.type !== 'call' || opened.startIndex < deletion.endIndex) return false;
  const call = callParts(opened);
  const lastName = call.callee.split('.').at(-1) ?? '';
  if (call.method !== 'connect' && !/^[A-Z]/.test(lastName)) return false;
  return [...call.positional, ...call.keywords.values()].some((argument) => samePathAs(argument, deleted));
}

/** The same text and, for a name, the same binding (not rebound between the deletion and the open). */
function samePathAs(argument: SyntaxNode, deleted: SyntaxNode): boolean {
  if (compactText(argument) !== compactText(deleted)) return false;
  if (deleted.type !== 'identifier') return true;
  return localAssignmentBefore(argument)?.id === localAssignmentBefore(deleted)?.id;
}
