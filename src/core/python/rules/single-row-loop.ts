// A `for` loop over the rows of a query that returns at most one row (`... LIMIT 1`) runs at
// most once: a commit in it ends one transaction, not one per iteration (buku's compactdb and
// delete_tag_at_index: `cur.execute('SELECT ... WHERE id = ? LIMIT 1', ...)`,
// `rows = cur.fetchall()`, `for row in rows:`). Only these shapes are read: the query itself as
// the iterated value, its fetchall()/fetchmany(), or a local name bound to that fetch.
import type { Effect, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { localAssignmentBefore } from '../local-assignments.ts';

/** `LIMIT 1` (with an optional OFFSET) closing the statement, so not a subquery's. */
const ONE_ROW = /\blimit\s+1(\s+offset\s+[\w?:]+)?\s*;?\s*$/i;
const FETCHES = new Set(['fetchall', 'fetchmany']);

export function loopsOverOneRow(loop: SyntaxNode, effects: readonly Effect[]): boolean {
  if (loop.type !== 'for_statement') return false;
  let iterated = loop.childForFieldName('right');
  if (iterated?.type === 'identifier') iterated = localAssignmentBefore(iterated) ?? null;
  if (iterated?.type !== 'call') return false;
  const read = oneRowRead(iterated, effects);
  if (read) return true;
  // `rows = cur.fetchall()` after `cur.execute(one-row query)`: the last query on that cursor before the fetch,
  // with no helper called in between (it might run another query on the same cursor).
  const parts = callParts(iterated);
  if (!FETCHES.has(parts.method) || !parts.receiver) return false;
  const cursor = parts.receiver.text;
  const fetchAt = iterated.startIndex;
  const last = effects
    .filter((effect) => effect.node.startIndex < fetchAt && (effect.via !== undefined || callParts(effect.node).receiver?.text === cursor))
    .at(-1);
  return last !== undefined && !last.via && isOneRowRead(last);
}

/** The iterated call is the query (or its fetch, `conn.execute(...).fetchall()`). */
function oneRowRead(call: SyntaxNode, effects: readonly Effect[]): Effect | undefined {
  const parts = callParts(call);
  const query = FETCHES.has(parts.method) && parts.receiver?.type === 'call' ? parts.receiver : call;
  return effects.find((effect) => effect.node.id === query.id && !effect.via && isOneRowRead(effect));
}

function isOneRowRead(effect: Effect): boolean {
  return effect.kind === 'db-read' && ONE_ROW.test(effect.sql?.text ?? '');
}
