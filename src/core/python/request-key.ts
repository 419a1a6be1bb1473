// Whether a function takes what would stop a repeated request: a request id or an
// idempotency key among its parameters. A re-run that applies the work twice is a
// finding worth a line comment only then (the key failed to stop the repeat), or
// when the scenario says the call must be idempotent; otherwise adding twice may
// be the function's job (a counter's incr) and it is a fact for the summary.
import type { PyFunction } from './model.ts';

const REQUEST_KEY = /^(idempotency_?key|idem_?key|dedup(e|lication)?_?(key|id)|request_?(id|key|uuid)|req_?id|operation_?id|op_?id|transaction_?id|txn_?id|nonce|client_?(request_?)?(id|token))$/i;

/** The first parameter that names a request id or idempotency key, if any. */
export function requestKeyParam(fn: PyFunction): string | undefined {
  return fn.params.map((p) => p.replace(/^\*+/, '').split(/[:=]/)[0]!.trim()).find((p) => REQUEST_KEY.test(p));
}
