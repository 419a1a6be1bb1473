// One Action run: event → config → review → posted review (or annotations on a
// read-only token) → job summary, outputs, SARIF → exit code.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CrashprobeConfig } from '../../core/config/schema.ts';
import { createLlmClient } from '../../core/audit/llm/settings.ts';
import type { LlmClient, Logger, PullRequestSource, Store } from '../../core/ports.ts';
import type { FunctionClass, Review } from '../../core/review/model.ts';
import type { ReviewDeps } from '../../core/review/review.ts';
import { memoryStore } from '../../core/review/verdict-cache.ts';
// The CLI's reader of the config file: one YAML reading and one error wording for both adapters.
import { loadConfigFile } from '../cli/config-file.ts';
import { readPullRequestEvent, type PullRequestEvent } from './event.ts';
import type { HarnessChoice, HarnessOptions } from '../harness.ts';
import { ioLogger, type ActionIO } from './io.ts';
import type { ActionSettings } from './settings.ts';

export interface GitHubConnection {
  source: PullRequestSource;
  /** Posts the review (inline comments, sticky summary, check run); rejects with `status: 403` on a read-only token. */
  publish(review: Review): Promise<void>;
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

export const READ_ONLY_NOTICE =
  'The token could not write the review to this pull request (403: a fork\'s read-only token, or a workflow without ' +
  '`pull-requests: write` and `checks: write`): the findings are in the job summary and annotations instead. ' +
  'To have them posted on a fork\'s pull requests, install crashprobe as a GitHub App.';

/** Returns the process exit code. Throws only on what the user must fix before anything can be reviewed. */
export async function runAction(settings: ActionSettings, deps: ActionDeps): Promise<number> {
  const { io } = deps;
  const logger = ioLogger(io);
  const event = await readPullRequestEvent(settings.github.eventPath, settings.github.repository);
  if (!event) {
    io.notice(`crashprobe reviews pull requests; this ${settings.github.eventName} event has none, so there is nothing to review. Run it on: pull_request.`);
    return 0;
  }

  let config: CrashprobeConfig;
  try {
    if (!existsSync(settings.configPath)) io.info(`No ${settings.configInput} in the workspace: the defaults apply.`);
    config = withInputs(loadConfigFile(settings.github.workspace, path.relative(settings.github.workspace, settings.configPath)), settings);
  } catch (error) {
    // Unreadable, not YAML, or not the schema: the maintainer fixes the file; reviewing by other rules would mislead.
    io.error(`${(error as Error).message}. Fix the file; nothing was reviewed.`, { title: 'crashprobe config', file: settings.configInput });
    io.setOutput('conclusion', 'action_required');
    return 1;
  }
  if (event.draft && !config.drafts) {
    io.notice('This pull request is a draft; crashprobe reviews drafts only with `drafts: true` in the config.');
    return 0;
  }

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
  const github = deps.connect(settings, event);
  const review = await deps.review(github.source, config, {
    harness: harness.harness,
    harnessOffReason: harness.offReason,
    llm: auditClient(settings, config, store, io),
    store,
    logger,
  });

  const posted = await publishOrDegrade(review, github, io);
  if (settings.sarifPath) {
    await mkdir(path.dirname(settings.sarifPath), { recursive: true });
    await writeFile(settings.sarifPath, JSON.stringify(deps.sarif(review), null, 2) + '\n');
    io.info(`SARIF written to ${settings.sarifPath}`);
  }
  if (settings.stepSummaryPath) {
    await io.appendSummary(posted ? review.summary : `> [!NOTE]\n> ${READ_ONLY_NOTICE}\n\n${review.summary}`);
  }
  for (const [klass, name] of Object.entries(CLASS_OUTPUTS) as [FunctionClass, string][]) {
    io.setOutput(name, review.counts[klass] ?? 0);
  }
  io.setOutput('conclusion', review.conclusion);
  return exitCodeFor(review, config, io);
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

/** True when posted; false when the token is read-only and the review went to annotations. */
async function publishOrDegrade(review: Review, github: GitHubConnection, io: ActionIO): Promise<boolean> {
  try {
    await github.publish(review);
    return true;
  } catch (error) {
    if (!isForbidden(error)) throw error;
  }
  io.notice(READ_ONLY_NOTICE);
  for (const annotation of review.annotations) {
    const where = { title: annotation.title, file: annotation.path, startLine: annotation.startLine, endLine: annotation.endLine };
    if (annotation.level === 'failure') io.error(annotation.message, where);
    else if (annotation.level === 'warning') io.warning(annotation.message, where);
    else io.notice(annotation.message, where);
  }
  return false;
}

function isForbidden(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'status' in error && error.status === 403;
}

function exitCodeFor(review: Review, config: CrashprobeConfig, io: ActionIO): number {
  if (review.conclusion !== 'failure') return 0;
  io.error(
    `The review concluded failure under fail-on: ${config.fail_on} (${review.counts.unsafe} unsafe, ` +
      `${review.counts.safe_by_accident} safe by accident); the review shows the crash behind each.`,
  );
  return 1;
}
