// Send before record: the send gets a stable idempotency key derived from the row
// that records it (`f"orders-{order_id}"`), so a re-run after a crash between the
// send and the record repeats a send the provider drops. The paper's Figure 3 fix.
// A key already passed but built from the clock or a random value (it changes on
// the re-run) loses that part, or is replaced by the row's key.
// Whether the client accepts `idempotency_key` is left to the crash test.
import { callParts } from '../../python/body-walk.ts';
import { findEffects } from '../../python/effects.ts';
import type { SyntaxNode } from '../../python/model.ts';
import { PER_RUN_VALUE } from '../../python/rules/send-before-record.ts';
import { applyEdits, type TextEdit } from '../source-edit.ts';
import { keywordInsertion, sendsPerRunValue, stableKeyFor } from '../stable-key.ts';
import type { RepairStrategy } from './strategy.ts';

export const idempotencyKey: RepairStrategy = {
  id: 'idempotency-key',
  answers: ['send-before-record'],
  apply({ module, fn }) {
    const effects = findEffects(fn, module);
    const edits: TextEdit[] = [];
    const keys: string[] = [];
    const stabilised: string[] = [];
    effects.forEach((send, index) => {
      if (send.kind !== 'send' || send.via) return;
      const record = effects.slice(index + 1).find((e) => e.kind === 'db-write');
      if (send.idempotencyKey) {
        const value = keyValue(send.node);
        if (!value || !PER_RUN_VALUE.test(value.text)) return;
        const stable = withoutPerRunParts(value) ?? (record && stableKeyFor(record, fn));
        if (!stable) return;
        edits.push({ start: value.startIndex, end: value.endIndex, text: stable });
        stabilised.push(`${value.text} → ${stable}`);
        return;
      }
      const key = record && stableKeyFor(record, fn);
      const args = callParts(send.node).argumentList;
      if (!key || !args || sendsPerRunValue(send.node)) return;
      edits.push(keywordInsertion(module.source, args, `idempotency_key=${key}`));
      keys.push(key);
    });
    if (edits.length === 0) return undefined;
    const said = [
      ...(keys.length ? [`the send passes a stable idempotency key derived from the row that records it (${keys.join(', ')}), so a re-run's repeat is dropped`] : []),
      ...(stabilised.length ? [`the idempotency key no longer changes from one run to the next (${stabilised.join(', ')}), so a re-run's repeat is dropped`] : []),
    ];
    return { source: applyEdits(module.source, edits), summary: said.join('; ') };
  },
};

/** The value of `idempotency_key=...` in the call. */
function keyValue(call: SyntaxNode): SyntaxNode | undefined {
  const value = callParts(call).keywords.get('idempotency_key');
  return value ?? undefined;
}

/** `f"receipt-{order_id}-{int(time.time())}"` → `f"receipt-{order_id}"`: the per-run fields and their separators dropped, when a stable field is left. */
function withoutPerRunParts(value: SyntaxNode): string | undefined {
  if (value.type !== 'string' || !/^[rRbB]?[fF]/.test(value.text)) return undefined;
  let text = value.text;
  const perRun = value.namedChildren.filter((n) => n.type === 'interpolation' && PER_RUN_VALUE.test(n.text));
  for (const field of perRun.sort((a, b) => b.startIndex - a.startIndex)) {
    const start = field.startIndex - value.startIndex;
    const end = field.endIndex - value.startIndex;
    const separator = /[-_:./]$/.test(text.slice(0, start)) ? 1 : 0;
    text = text.slice(0, start - separator) + text.slice(end);
  }
  const left = value.namedChildren.filter((n) => n.type === 'interpolation' && !PER_RUN_VALUE.test(n.text));
  return left.length ? text : undefined;
}
