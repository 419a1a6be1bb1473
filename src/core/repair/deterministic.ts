// The deterministic repairs, applied one after another to one function: each
// strategy whose findings the function has rewrites the module, which is parsed
// again before the next. The result is one candidate, to be crash-tested.
import { parseModule } from '../python/parse.ts';
import type { PyModule } from '../python/model.ts';
import type { RepairCandidate } from './model.ts';
import { atomicReplace } from './strategies/atomic-replace.ts';
import { idempotencyKey } from './strategies/idempotency-key.ts';
import { findFunction, ownTransaction } from './strategies/own-transaction.ts';
import { recordBeforeDelete } from './strategies/record-before-delete.ts';
import type { RepairStrategy } from './strategies/strategy.ts';

/** In order: moves and keys first, then file swaps, then the transaction wrap (which re-indents). */
export const STRATEGIES: readonly RepairStrategy[] = [recordBeforeDelete, idempotencyKey, atomicReplace, ownTransaction];

export interface DeterministicInput {
  module: PyModule;
  qualname: string;
  /** Rule ids of the static findings in the function. */
  ruleIds: ReadonlySet<string>;
  resumable: boolean;
}

export function deterministicRepair({ module, qualname, ruleIds, resumable }: DeterministicInput): RepairCandidate | undefined {
  let current = module;
  const applied: string[] = [];
  const said: string[] = [];
  for (const strategy of STRATEGIES) {
    if (!strategy.answers.some((id) => ruleIds.has(id))) continue;
    const fn = findFunction(current, qualname);
    if (!fn) break;
    const out = strategy.apply({ module: current, fn, resumable });
    if (!out || out.source === current.source) continue;
    const next = parseModule(module.path, out.source);
    // A rewrite that breaks the syntax is a bug in the strategy, never a candidate.
    if (next.errors.length > current.errors.length) continue;
    current = next;
    applied.push(strategy.id);
    said.push(out.summary);
  }
  if (applied.length === 0) return undefined;
  return { origin: 'deterministic', strategies: applied, path: module.path, qualname, source: current.source, summary: said.join('; ') };
}
