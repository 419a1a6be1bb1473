// Commit, then send: a crash between the two leaves the record saved and the
// message never sent, and a re-run that sees the record does not send it. The
// repair moves the commit() below the send and gives the send a stable
// idempotency key derived from the row (`f"subscriptions-{subscription_id}"`):
// a crash before the commit rolls the record back, so the re-run does the work
// again and its repeated send is dropped by the provider. The transaction
// strategy then begins before the record, so the same holds in autocommit mode.
// Refused when the message carries a value made during the run (a token, the
// time): the re-run's copy would differ and be dropped, leaving the first.
import { callParts } from '../../python/body-walk.ts';
import { findEffects } from '../../python/effects.ts';
import type { Effect } from '../../python/model.ts';
import { applyEdits, lineEnd, lineStart } from '../source-edit.ts';
import { keywordInsertion, sendsPerRunValue, stableKeyFor } from '../stable-key.ts';
import { commitReceiver, statementsOf, type RepairStrategy } from './strategy.ts';

export const keyedSendBeforeCommit: RepairStrategy = {
  id: 'keyed-send-before-commit',
  answers: [],
  apply({ module, fn }) {
    const effects = findEffects(fn, module).filter((e) => !e.via);
    const { source } = module;
    for (const commit of effects.filter((e) => e.kind === 'db-commit')) {
      let statement = commit.node;
      while (statement.parent && statement.parent.type !== 'block') statement = statement.parent;
      const block = statement.parent;
      if (!block || commitReceiver(statement) === undefined) continue;
      const statements = statementsOf(block);
      const at = statements.findIndex((s) => s.id === statement.id);
      // The first effect after the commit is a send with no key, written as a statement of the same block.
      const later = effects.filter((e) => e.node.startIndex > statement.endIndex);
      const send = later[0];
      if (!send || send.kind !== 'send' || send.idempotencyKey || send.inLoop) continue;
      const sendStatement = statements.slice(at + 1).find((s) => s.startIndex <= send.node.startIndex && s.endIndex >= send.node.endIndex);
      if (!sendStatement || sendStatement.type !== 'expression_statement' || sendStatement.namedChildren[0]?.id !== send.node.id) continue;
      const record = lastWriteBefore(effects, commit);
      const key = record && stableKeyFor(record, fn);
      const args = callParts(send.node).argumentList;
      if (!key || !args || sendsPerRunValue(send.node)) continue;
      const commitLine = source.slice(lineStart(source, statement.startIndex), lineEnd(source, statement.endIndex - 1));
      const after = lineEnd(source, sendStatement.endIndex - 1);
      return {
        source: applyEdits(source, [
          { start: lineStart(source, statement.startIndex), end: lineEnd(source, statement.endIndex - 1), text: '' },
          keywordInsertion(source, args, `idempotency_key=${key}`),
          { start: after, end: after, text: (source[after - 1] === '\n' ? '' : '\n') + commitLine },
        ]),
        summary: `the send passes a stable idempotency key (${key}) and the commit moves below it: a crash before the commit rolls the record back, so the re-run sends again and the provider drops the repeat`,
      };
    }
    return undefined;
  },
};

function lastWriteBefore(effects: readonly Effect[], commit: Effect): Effect | undefined {
  const before = effects.filter((e) => e.node.startIndex < commit.node.startIndex);
  const lastCommit = before.map((e) => e.kind).lastIndexOf('db-commit');
  return before.slice(lastCommit + 1).reverse().find((e) => e.kind === 'db-write' && e.sql?.kind === 'write');
}
