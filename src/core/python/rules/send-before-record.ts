import type { Effect, SyntaxNode } from '../model.ts';
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
      unstableIdempotencyKey:
        '{{call}} sends before the database records it (line {{recordLine}}) with an idempotency key built from {{source}}, which changes on the re-run: a crash between them sends again',
      sendBeforeCommit:
        '{{call}} sends before commit() (line {{recordLine}}) saves the record of it, and passes no idempotency key: a crash between them sends again on the re-run',
    },
    hint: 'Pass a stable idempotency key (the request or row id), or record the send as claimed and commit before sending.',
  },
  create(context) {
    return {
      'function:exit'() {
        const unprotected = (effect: Effect): boolean => effect.kind === 'send' && (!effect.idempotencyKey || unstableKeySource(effect.node) !== undefined);
        for (const { effect, index, record, data } of recordedLater(context, unprotected)) {
          if (claimedBeforeSend(context, index, record.effect)) continue;
          const source = unstableKeySource(effect.node);
          if (source) context.report({ node: effect.node, messageId: 'unstableIdempotencyKey', data: { ...data, source } });
          else context.report({ node: effect.node, messageId: record.kind === 'write' ? 'sendBeforeRecord' : 'sendBeforeCommit', data });
        }
      },
    };
  },
});

/**
 * The claim pattern: the row was marked (an UPDATE setting a column the
 * record sets too, or any write to the record's table when the record is not
 * an UPDATE) and the mark committed before the send, so a re-run sees the
 * claim and does not send again. At most once, by design.
 */
function claimedBeforeSend(context: FactsInput, sendIndex: number, record: Effect): boolean {
  const { effects } = context;
  const recordTables = new Set(record.sql?.tables ?? []);
  const recordColumns = setColumns(record.sql?.text);
  const beforeSend = effects.slice(0, sendIndex);
  const lastCommit = beforeSend.map((effect) => effect.kind).lastIndexOf('db-commit');
  const marked = beforeSend.slice(0, Math.max(lastCommit, 0)).some((effect) => {
    if (effect.kind !== 'db-write' || !(effect.sql?.tables ?? []).some((table) => recordTables.has(table))) return false;
    return recordColumns.length === 0 || setColumns(effect.sql?.text).some((column) => recordColumns.includes(column));
  });
  return marked && pendingWritesBefore(context, sendIndex).length === 0;
}

/** The columns an UPDATE sets (`status`, `sent_at`), lower-cased; none for other statements. */
function setColumns(sql: string | undefined): string[] {
  const assignments = /^\s*update\b[\s\S]*?\bset\b([\s\S]*?)(?:\bwhere\b|$)/i.exec(sql ?? '')?.[1] ?? '';
  return [...assignments.matchAll(/(?:^|,)\s*"?(\w+)"?\s*=/g)].map((match) => match[1]!.toLowerCase());
}

/** Values that differ from one run to the next: a key made of them protects nothing across a re-run. */
export const PER_RUN_VALUE = /\b(time\.(time|monotonic|perf_counter)\w*|datetime\.\w*now|date\.today|uuid\.?\w*|uuid[14]|random\.\w+|secrets\.\w+|os\.urandom|now)\s*\(/;

/** `time.time()`, `uuid4()`: what the idempotency key passed in the call is built from, when it changes per run. */
function unstableKeySource(call: SyntaxNode): string | undefined {
  const args = call.childForFieldName('arguments');
  const keyed = [...(args?.descendantsOfType('keyword_argument') ?? []), ...(args?.descendantsOfType('pair') ?? [])].filter((node) =>
    /idempotency[_-]?key/i.test((node.type === 'pair' ? node.childForFieldName('key') : node.childForFieldName('name'))?.text ?? ''),
  );
  for (const node of keyed) {
    const match = PER_RUN_VALUE.exec(node.childForFieldName('value')?.text ?? '');
    if (match) return `${match[1]}()`;
  }
  return undefined;
}
