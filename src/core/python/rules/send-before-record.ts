import type { Effect } from '../model.ts';
import { pendingWritesBefore, recordedLater, type FactsInput } from './facts.ts';
import { defineRule } from './rule.ts';

export const sendBeforeRecord = defineRule({
  meta: {
    id: 'send-before-record',
    description: 'An outside send (email, HTTP POST) happens before the database records it, and carries no idempotency key.',
    category: 'outside-effect',
    severity: 'warning',
    messages: {
      sendBeforeRecord:
        '{{call}} sends before the database records it (line {{recordLine}}) and passes no idempotency key: a crash between them sends again on the re-run',
      sendBeforeCommit:
        '{{call}} sends before commit() (line {{recordLine}}) saves the record of it, and passes no idempotency key: a crash between them sends again on the re-run',
    },
    hint: 'Pass a stable idempotency key (the request or row id), or record the send as claimed and commit before sending.',
  },
  create(context) {
    return {
      'function:exit'() {
        for (const { effect, index, record, data } of recordedLater(context, (effect) => effect.kind === 'send' && !effect.idempotencyKey)) {
          if (claimedBeforeSend(context, index, record.effect)) continue;
          context.report({ node: effect.node, messageId: record.kind === 'write' ? 'sendBeforeRecord' : 'sendBeforeCommit', data });
        }
      },
    };
  },
});

/**
 * The claim pattern: the row was marked (same table as the record) and the
 * mark committed before the send, so a re-run sees the claim and does not
 * send again. At most once, by design.
 */
function claimedBeforeSend(context: FactsInput, sendIndex: number, record: Effect): boolean {
  const { effects } = context;
  const recordTables = new Set(record.sql?.tables ?? []);
  const beforeSend = effects.slice(0, sendIndex);
  const lastCommit = beforeSend.map((effect) => effect.kind).lastIndexOf('db-commit');
  const marked = beforeSend
    .slice(0, Math.max(lastCommit, 0))
    .some((effect) => effect.kind === 'db-write' && (effect.sql?.tables ?? []).some((table) => recordTables.has(table)));
  return marked && pendingWritesBefore(context, sendIndex).length === 0;
}
