// One Action run: event → config at the base → check run in_progress → review →
// the one publisher (degrading by what the token may write) → job summary,
// outputs, SARIF → exit code by fail-on. Whatever GitHub refuses or fails at, the
// outputs, the job summary and the SARIF file are still written.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CrashprobeConfig } from '../../core/config/schema.ts';
import { createLlmClient } from '../llm/settings.ts';
import type { LlmClient, Logger, PullRequestSource, Store } from '../../core/ports.ts';
import type { FunctionClass, Review } from '../../core/model/review.ts';
import type { ReviewDeps } from '../../core/review/review.ts';
import { memoryStore } from '../../core/review/verdict-cache.ts';
import type { CheckOutcome } from '../github/check-run.ts';
import { failedOutcome, refusedReview } from '../github/fail-closed.ts';
import { stripMarkers } from '../github/markers.ts';
import type { PublishReport } from '../github/publisher.ts';
import { harnessOffReason, type HarnessChoice, type HarnessOptions } from '../harness/choose.ts';
import { parseBaseConfig } from './base-config.ts';
import { deliveryNotices, printAnnotations, publishFailedNotice } from './deliver.ts';
import { readPullRequestEvent, type PullRequestEvent } from './event.ts';
import { ioLogger, type ActionIO } from './io.ts';
import type { ActionSettings } from './settings.ts';
import { forkAuditOff } from '../../core/review/fork-audit.ts';

export interface ActionPublisher {
  /** The head's `crashprobe` check run in_progress (created, or crashprobe's own taken up again on a re-run). */
  start(): Promise<void>;
  /** The review on the pull request and the check run completed; a read-only token degrades, other failures reject. */
  publish(review: Review, maxInline?: number): Promise<PublishReport>;
  /** The check run completed without a review (a broken config, a refusal, a failure). */
  conclude(outcome: CheckOutcome): Promise<PublishReport>;
}

export interface GitHubConnection {
  source: PullRequestSource;
  publisher: ActionPublisher;
  /** A file at the pull request's base commit (the config that judges it), undefined when the base has none. */
  readBaseFile(file: string): Promise<string | undefined>;
  dispose(): Promise<void>;
}

export interface ActionDeps {
  io: ActionIO;
  connect(settings: ActionSettings, event: PullRequestEvent): GitHubConnection;
  review(source: PullRequestSource, config: CrashprobeConfig, deps: ReviewDeps): Promise<Review>;
  chooseHarness(config: CrashprobeConfig, options: HarnessOptions, logger: Logger): Promise<HarnessChoice>;
  sarif(review: Review): unknown;
  /** The bundle's copy of the Python harness; undefined when running from the repository. */
  harnessDir?: string;
}

/** The step outputs, one per function class (as action.yml names them). */
export const CLASS_OUTPUTS: Record<FunctionClass, string> = {
  unsafe: 'unsafe',
  safe_by_accident: 'safe-by-accident',
  safe_by_design: 'safe-by-design',
  not_working: 'not-working',
  untested: 'untested',
};

export const PULL_REQUEST_TARGET_REFUSAL =
  'crashprobe did not run: under `pull_request_target` the job has a token that may write to the repository and the ' +
  "repository's secrets, and the crash harness would run the pull request's code beside them. Set the input `harness: false` " +
  '(a static review is safe there), run crashprobe on `pull_request` instead, or, if you accept the risk, set ' +
  '`allow-pull-request-target-harness: true` (see action/README.md).';

/** The summary's note when no model is set, naming the Action's own inputs (not the CLI's and App's variables). */
export const NO_LLM_NOTE =
  "No LLM is configured, so the audit ran as crashprobe's static checks only. To run the full multi-pass audit, set the Action's " +
  '`model` input (or `audit.model` in the config file) and an endpoint: its `openai-api-key` input (and `openai-base-url` for any ' +
  'OpenAI-compatible server: vLLM, Ollama, llama.cpp), or its `anthropic-api-key` input.';

/** Returns the process exit code. Throws only on what the user must fix before anything can be reviewed. */
export async function runAction(settings: ActionSettings, deps: ActionDeps): Promise<number> {
  const event = await readPullRequestEvent(settings.github.eventPath, settings.github.repository);
  if (!event) {
    deps.io.notice(`crashprobe reviews pull requests; this ${settings.github.eventName} event has none, so there is nothing to review. Run it on: pull_request.`);
    return 0;
  }
  const github = deps.connect(settings, event);
  try {
    return await runOnPullRequest(settings, deps, event, github);
  } finally {
    await github.dispose().catch(() => undefined);
  }
}

async function runOnPullRequest(settings: ActionSettings, deps: ActionDeps, event: PullRequestEvent, github: GitHubConnection): Promise<number> {
  const { io } = deps;
  const logger = ioLogger(io);
  const base = event.baseSha.slice(0, 7);

  let config: CrashprobeConfig;
  try {
    const read = parseBaseConfig(await github.readBaseFile(settings.configInput), settings.configInput);
    io.info(
      read.found
        ? `Config: ${settings.configInput} at the base commit ${base}; the pull request's own copy does not apply (it cannot change the rules it is judged by).`
        : `No ${settings.configInput} at the base commit ${base}: the defaults apply.`,
    );
    config = withInputs(read.config, settings);
  } catch (error) {
    // Unreadable, not YAML, or not the schema: the maintainer fixes the file; reviewing by other rules would mislead.
    const message = `${(error as Error).message}. Fix the file on the base branch; nothing was reviewed.`;
    io.error(message, { title: 'crashprobe config', file: settings.configInput });
    return stop(settings, deps, github, { conclusion: 'action_required', title: `crashprobe: ${settings.configInput} is not valid`, summary: message });
  }
  if (event.draft && !config.drafts) {
    io.notice('This pull request is a draft; crashprobe reviews drafts only with `drafts: true` in the config.');
    return 0;
  }

  const harnessOn = harnessOffReason(config, { enabled: settings.harness, fromFork: event.fromFork }) === undefined;
  if (settings.github.eventName === 'pull_request_target' && harnessOn && !settings.allowPullRequestTargetHarness) {
    io.error(PULL_REQUEST_TARGET_REFUSAL, { title: 'crashprobe refused pull_request_target' });
    return stop(settings, deps, github, { conclusion: 'action_required', title: 'crashprobe: refused to run pull request code under pull_request_target', summary: PULL_REQUEST_TARGET_REFUSAL });
  }

  // The check run shows the review is under way from the start; a GitHub failure here is retried when publishing.
  await github.publisher.start().catch((error: Error) => io.warning(`The crashprobe check run could not be started: ${error.message}`));

  const harness = await deps.chooseHarness(
    config,
    {
      enabled: settings.harness,
      offBecause: "the Action's `harness` input is false",
      fromFork: event.fromFork,
      python: settings.python,
      searchPath: settings.searchPath,
      harnessDir: deps.harnessDir,
    },
    logger,
  );
  const store = memoryStore();
  const auditOff = forkAuditOff(config, event.fromFork);
  let review: Review;
  try {
    review = await deps.review(github.source, config, {
      harness: harness.harness,
      harnessOffReason: harness.refusal ?? harness.offReason,
      llm: auditOff ? undefined : auditClient(settings, config, store, io),
      noLlmNote: auditOff ?? NO_LLM_NOTE,
      store,
      logger,
    });
  } catch (error) {
    const message = `crashprobe could not finish the review: ${(error as Error).message}`;
    io.error(message);
    return stop(settings, deps, github, failedOutcome(message));
  }
  if (harness.refusal) review = refusedReview(review, harness.refusal);

  let report: PublishReport;
  try {
    report = await github.publisher.publish(review, config.max_inline_comments);
  } catch (error) {
    // Fail closed: the check run must not stay in progress, nor pass, when the review did not get out.
    const reason = (error as Error).message;
    io.warning(publishFailedNotice(reason));
    report = await github.publisher
      .conclude(failedOutcome(reason, review))
      .catch((again: Error) => {
        io.warning(`The crashprobe check run could not be completed either: ${again.message}`);
        return { pullRequest: 'not-attempted', check: 'none', refusals: [] } satisfies PublishReport;
      });
  }
  for (const refusal of report.refusals) io.info(refusal);
  const notices = deliveryNotices(report);
  for (const notice of notices) io.notice(notice);
  if (report.check !== 'check-run') printAnnotations(review, io);

  await writeResults(settings, deps, review, notices);
  return exitCodeFor(review, config, io);
}

/** Ends a run that produced no review: the check run says why, and the outputs and job summary are still written. */
async function stop(settings: ActionSettings, deps: ActionDeps, github: GitHubConnection, outcome: CheckOutcome): Promise<number> {
  const { io } = deps;
  const report = await github.publisher.conclude(outcome).catch((error: Error) => {
    io.warning(`The crashprobe check run could not be completed: ${error.message}`);
    return undefined;
  });
  for (const notice of report ? deliveryNotices(report) : []) io.notice(notice);
  if (settings.stepSummaryPath) await io.appendSummary(`## ${outcome.title}\n\n${outcome.summary}\n`).catch(() => undefined);
  for (const name of Object.values(CLASS_OUTPUTS)) io.setOutput(name, 0);
  io.setOutput('conclusion', outcome.conclusion);
  return 1;
}

/** SARIF, job summary and outputs: each written even when another could not be. */
async function writeResults(settings: ActionSettings, deps: ActionDeps, review: Review, notices: readonly string[]): Promise<void> {
  const { io } = deps;
  if (settings.sarifPath) {
    try {
      await mkdir(path.dirname(settings.sarifPath), { recursive: true });
      await writeFile(settings.sarifPath, JSON.stringify(deps.sarif(review), null, 2) + '\n');
      io.info(`SARIF written to ${settings.sarifPath}`);
    } catch (error) {
      io.warning(`The SARIF file could not be written to ${settings.sarifPath}: ${(error as Error).message}`);
    }
  }
  if (settings.stepSummaryPath) {
    const preface = notices.map((n) => `> [!NOTE]\n> ${n}\n\n`).join('');
    await io.appendSummary(preface + stripMarkers(review.summary)).catch((error: Error) => io.warning(`The job summary could not be written: ${error.message}`));
  }
  for (const [klass, name] of Object.entries(CLASS_OUTPUTS) as [FunctionClass, string][]) {
    io.setOutput(name, review.counts[klass] ?? 0);
  }
  io.setOutput('conclusion', review.conclusion);
}

/** The inputs that override the config file: `fail-on` and the audit model. */
function withInputs(config: CrashprobeConfig, settings: ActionSettings): CrashprobeConfig {
  return {
    ...config,
    fail_on: settings.failOn ?? config.fail_on,
    audit: { ...config.audit, model: settings.llm.model ?? config.audit.model },
  };
}

/** The audit's LLM client, or none (the static checks are the audit); a half-done setting is warned about. */
function auditClient(settings: ActionSettings, config: CrashprobeConfig, store: Store, io: ActionIO): LlmClient | undefined {
  const llm = { ...settings.llm, model: config.audit.model };
  const created = createLlmClient(llm, { store, logger: ioLogger(io) });
  if ('client' in created) return created.client;
  const anythingGiven = llm.model || llm.openai.apiKey || llm.openai.baseUrl || llm.anthropic.apiKey || llm.anthropic.baseUrl;
  if (anythingGiven) io.warning(`The LLM audit is off: ${created.reason} (Action inputs: model, openai-api-key, anthropic-api-key).`);
  return undefined;
}

function exitCodeFor(review: Review, config: CrashprobeConfig, io: ActionIO): number {
  if (review.conclusion === 'action_required') {
    io.error(`The review concluded action_required: ${review.checkTitle}.`);
    return 1;
  }
  if (review.conclusion !== 'failure') return 0;
  io.error(
    `The review concluded failure under fail-on: ${config.fail_on} (${review.counts.unsafe} unsafe, ` +
      `${review.counts.safe_by_accident} safe by accident); the review shows the crash behind each.`,
  );
  return 1;
}
