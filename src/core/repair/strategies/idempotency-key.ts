// Send before record: the send gets a stable idempotency key derived from the row
// that records it (`f"orders-{order_id}"`), so a re-run after a crash between the
// send and the record repeats a send the provider drops. The paper's Figure 3 fix.
// Whether the client accepts `idempotency_key` is left to the crash test.
import { callParts } from '../../python/body-walk.ts';
import { findEffects } from '../../python/effects.ts';
import type { Effect, SyntaxNode } from '../../python/model.ts';
import { applyEdits, indentOf, type TextEdit } from '../source-edit.ts';
import type { RepairStrategy } from './strategy.ts';

export const idempotencyKey: RepairStrategy = {
  id: 'idempotency-key',
  answers: ['send-before-record'],
  apply({ module, fn }) {
    const effects = findEffects(fn, module);
    const edits: TextEdit[] = [];
    const keys: string[] = [];
    effects.forEach((send, index) => {
      if (send.kind !== 'send' || send.idempotencyKey || send.via) return;
      const record = effects.slice(index + 1).find((e) => e.kind === 'db-write');
      const key = record && keyFor(record);
      const args = callParts(send.node).argumentList;
      if (!key || !args) return;
      edits.push(keywordInsertion(module.source, args, `idempotency_key=${key}`));
      keys.push(key);
    });
    if (edits.length === 0) return undefined;
    return {
      source: applyEdits(module.source, edits),
      summary: `the send passes a stable idempotency key derived from the row that records it (${keys.join(', ')}), so a re-run's repeat is dropped`,
    };
  },
};

/** `f"<table>-{<the WHERE key>}"` from the record's SQL and parameters. */
function keyFor(record: Effect): string | undefined {
  const table = record.sql?.tables[0];
  const sql = record.sql?.text;
  const params = callParts(record.node).positional[1];
  if (!table || !sql || !params) return undefined;
  const items = params.type === 'tuple' || params.type === 'list' ? params.namedChildren.filter((n) => n.type !== 'comment') : [params];
  const where = sql.search(/\bwhere\b/i);
  const placeholders = [...sql.matchAll(/\?/g)].map((m) => m.index);
  const keyIndex = where >= 0 ? placeholders.findIndex((i) => i > where) : placeholders.length - 1;
  const key = items[keyIndex >= 0 ? keyIndex : 0];
  if (!key || !/^[\w.]+$/.test(key.text)) return undefined;
  return `f"${table}-{${key.text}}"`;
}

/** A keyword argument added last, on its own line when the call is written one argument per line. */
function keywordInsertion(source: string, args: SyntaxNode, keyword: string): TextEdit {
  const items = args.namedChildren.filter((n) => n.type !== 'comment');
  const last = items.at(-1);
  const close = args.endIndex - 1;
  if (!last) return { start: close, end: close, text: keyword };
  const between = source.slice(last.endIndex, close);
  const multiLine = between.includes('\n');
  if (multiLine) {
    const indent = indentOf(source, last);
    const comma = between.includes(',');
    const at = comma ? last.endIndex + between.indexOf(',') + 1 : last.endIndex;
    return { start: at, end: at, text: `${comma ? '' : ','}\n${indent}${keyword}${comma ? ',' : ''}` };
  }
  return { start: last.endIndex, end: last.endIndex, text: `, ${keyword}` };
}
