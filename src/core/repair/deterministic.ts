// The deterministic repairs, applied one after another to one function: each
// strategy whose findings the function has (or whose shape it finds, for the
// strategies that need no finding) rewrites the module, which is parsed again
// before the next. The result is a short list of candidates, each to be
// crash-tested in turn: the smallest edit first (BEGIN before the first write),
// then, when that one needed the transaction, the helper-class wrap as fallback.
import { parseModule } from '../python/parse.ts';
import type { PyModule } from '../python/model.ts';
import type { RepairCandidate } from './model.ts';
import { atomicReplace } from './strategies/atomic-replace.ts';
import { beginCommit } from './strategies/begin-commit.ts';
import { claimThenWork } from './strategies/claim-then-work.ts';
import { contentNamedFile } from './strategies/content-named-file.ts';
import { idempotencyKey } from './strategies/idempotency-key.ts';
import { keyedSendBeforeCommit } from './strategies/keyed-send-before-commit.ts';
import { findFunction, ownTransaction } from './strategies/own-transaction.ts';
import { outboxRow } from './strategies/outbox-row.ts';
import { recordBeforeDelete } from './strategies/record-before-delete.ts';
import { replaceNotRemove } from './strategies/replace-not-remove.ts';
import type { RepairStrategy } from './strategies/strategy.ts';
import { beginCommitAtHelper, ownTransactionAtHelper } from './strategies/transaction-at-helper.ts';
import { writeBeforeRecord } from './strategies/write-before-record.ts';

/** In order: moves and keys first, then file swaps, then the transaction (the smallest form; the helper wrap is the fallback). */
export const STRATEGIES: readonly RepairStrategy[] = [
  recordBeforeDelete,
  claimThenWork,
  outboxRow,
  keyedSendBeforeCommit,
  idempotencyKey,
  writeBeforeRecord,
  replaceNotRemove,
  atomicReplace,
  beginCommit,
  beginCommitAtHelper,
  contentNamedFile,
];

/** The same chain with the helper-class transaction in place of the BEGIN lines (in the function, or in the helper that commits). */
const FALLBACK: readonly RepairStrategy[] = STRATEGIES.map((s) => (s === beginCommit ? ownTransaction : s === beginCommitAtHelper ? ownTransactionAtHelper : s));

export interface DeterministicInput {
  module: PyModule;
  qualname: string;
  /** Rule ids of the static findings in the function. */
  ruleIds: ReadonlySet<string>;
  resumable: boolean;
}

/** The first candidate (the smallest edit), or undefined when no strategy fits. */
export function deterministicRepair(input: DeterministicInput): RepairCandidate | undefined {
  return deterministicRepairs(input)[0];
}

/** Every distinct candidate, smallest first: to be crash-tested in this order until one holds. */
export function deterministicRepairs(input: DeterministicInput): RepairCandidate[] {
  const first = chain(input, STRATEGIES);
  const out = first ? [first] : [];
  if (!first || first.strategies.includes(beginCommit.id) || first.strategies.includes(beginCommitAtHelper.id)) {
    const fallback = chain(input, FALLBACK);
    if (fallback && fallback.source !== first?.source) out.push(fallback);
  }
  return out;
}

function chain({ module, qualname, ruleIds, resumable }: DeterministicInput, strategies: readonly RepairStrategy[]): RepairCandidate | undefined {
  let current = module;
  const applied: string[] = [];
  const said: string[] = [];
  for (const strategy of strategies) {
    // A strategy that needs no finding looks for its own shape (and leaves the function alone when it is not there).
    if (strategy.answers.length && !strategy.answers.some((id) => ruleIds.has(id)) && !(strategy.alsoWhen?.some((id) => applied.includes(id)) ?? false)) continue;
    const fn = findFunction(current, qualname);
    if (!fn) break;
    const out = strategy.apply({ module: current, fn, resumable, applied });
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
