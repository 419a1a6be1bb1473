// The review pipeline, one stage per file, each taking and returning values:
// touched writers → crash verdicts → function verdicts → judgement (base vs head)
// → matching → audit → repairs → rendering. Each stage returns its own notes; the
// pipeline puts them together in stage order.
import type { CrashprobeConfig } from '../config/schema.ts';
import type { Review } from '../model/review.ts';
import type { HarnessRunner, LlmClient, Logger, PullRequestSource, Store } from '../ports.ts';
import { auditFindings } from './audit-findings.ts';
import { crashVerdicts } from './crash-verdicts.ts';
import { functionVerdicts } from './function-verdicts.ts';
import { judgeAgainstBase } from './judge-base.ts';
import { matchFindings } from './match.ts';
import { rendering } from './rendering.ts';
import { repairStage } from './repairs.ts';
import { hunkLinesOf, touchedWriters } from './touched-writers.ts';

export interface ReviewDeps {
  /** Absent: the crash harness does not run (no harness here, or a fork's untrusted code). */
  harness?: HarnessRunner;
  store: Store;
  logger: Logger;
  /** Why the harness is absent, said in the summary. */
  harnessOffReason?: string;
  /** Present: the multi-pass LLM audit runs on the changed files. Absent: the audit is the static checks. */
  llm?: LlmClient;
  /**
   * Trusted markdown said when `llm` is absent, naming how this adapter configures a model (the Action: its
   * `model` and `*-api-key` inputs). Absent: the default note (config file and environment variables).
   */
  noLlmNote?: string;
  /** False: no repairs are made (each one is crash-tested, which costs a harness run per candidate). */
  repairs?: boolean;
  /** Scenario files crash-tested per commit in one review, beyond the cached ones (default 40). */
  maxScenarioFiles?: number;
}

const MAX_SCENARIO_FILES = 40;

export async function reviewPullRequest(source: PullRequestSource, config: CrashprobeConfig, deps: ReviewDeps): Promise<Review> {
  const { harness, store, logger, llm } = deps;
  const maxRuns = deps.maxScenarioFiles ?? MAX_SCENARIO_FILES;
  const touched = await touchedWriters(source, config);
  const hunkLines = hunkLinesOf(touched.changes);
  const crash = await crashVerdicts(source, config, touched, { harness, harnessOffReason: deps.harnessOffReason, store, logger, maxRuns });
  const shown = await functionVerdicts(touched, crash, source.fromFork);
  const judged = await judgeAgainstBase({ source, plans: crash.plans, functions: shown.functions, changed: touched.changed, harness, store, logger, maxRuns });
  const matched = matchFindings(shown.findings);
  const audited = await auditFindings({ source, audit: config.audit, touched, functions: judged.functions, findings: matched }, { llm, store, logger });
  const repaired = await repairStage(
    { source, functions: shown.toRepair, findings: audited.findings, hunkLines },
    { harness, enabled: deps.repairs !== false, store, llm, logger },
  );
  const skipped = (await source.skipped?.()) ?? []; // what the checkouts left out (links leading out of the tree, …)
  return rendering({
    source,
    config,
    functions: judged.functions,
    findings: repaired.findings,
    notes: [...touched.notes, ...crash.notes, ...judged.notes, ...audited.notes, ...repaired.notes, ...skipped],
    hunkLines,
    modules: touched.modules,
    auditConfigured: Boolean(llm),
    ...(deps.noLlmNote !== undefined ? { noLlmNote: deps.noLlmNote } : {}),
    ...(repaired.repairs ? { repairs: repaired.repairs } : {}),
  });
}
