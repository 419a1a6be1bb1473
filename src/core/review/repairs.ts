// Stage 7: crash-tested repairs for the touched functions a crash showed
// half-updated. A verified repair becomes the suggestion of the function's leading
// finding (findings come back as new values) and a whole file for `--fix`.
import type { ReviewFinding } from '../model/review.ts';
import type { HarnessRunner, LlmClient, Logger, PullRequestSource, Store } from '../ports.ts';
import { needsRepair } from '../repair/repair.ts';
import { repairReviewedFunctions, type AppliedRepair, type ReviewRepairInput } from '../repair/review-repairs.ts';
import { scenarioFileIn } from './judge-scenarios.ts';

export interface RepairStageInput {
  source: Pick<PullRequestSource, 'checkout'>;
  functions: ReviewRepairInput['functions'];
  findings: readonly ReviewFinding[];
  hunkLines: ReadonlyMap<string, ReadonlySet<number>>;
}

export interface RepairStageDeps {
  /** Absent: no repair (each candidate is crash-tested). */
  harness?: HarnessRunner;
  /** False: no repair was asked for. */
  enabled: boolean;
  store: Store;
  llm?: LlmClient;
  logger: Logger;
}

export interface RepairStage {
  findings: ReviewFinding[];
  /** Undefined when no repair was attempted. */
  repairs?: AppliedRepair[];
  notes: string[];
}

export async function repairStage(input: RepairStageInput, deps: RepairStageDeps): Promise<RepairStage> {
  const { harness } = deps;
  if (!harness || !deps.enabled || !input.functions.some((f) => needsRepair(f.verdicts))) return { findings: [...input.findings], notes: [] };
  const checkout = await input.source.checkout();
  const done = await repairReviewedFunctions({
    functions: input.functions,
    checkout,
    scenarioFile: (p) => scenarioFileIn(checkout, checkout, p),
    harness,
    cache: deps.store,
    llm: deps.llm,
    logger: deps.logger,
    findings: input.findings,
    hunkLines: input.hunkLines,
  });
  return { findings: done.findings, repairs: done.applicable, notes: done.notes };
}
