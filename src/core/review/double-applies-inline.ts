// Whether a crash-tested double-apply is posted as an inline comment on the
// function, or stays a fact of the summary (its table's "double-applies" column).
// Applying work again on a repeated call is often the function's job (a counter's
// incr, a queue's put); it is a defect worth a line comment only when the function
// takes a request id or idempotency key that failed to stop the repeat, or when a
// scenario says the call must be idempotent (`@scenario(..., idempotent=True)`).
import type { ScenarioVerdict } from '../crash/protocol.ts';
import type { PyFunction } from '../python/model.ts';
import { requestKeyParam } from '../python/request-key.ts';

export function postsDoubleAppliesInline(fn: PyFunction, verdicts: readonly ScenarioVerdict[]): boolean {
  if (requestKeyParam(fn) !== undefined) return true;
  return verdicts.some((v) => v.idempotent === true && v.double_applies);
}
