// One queued review, run by a worker: the pull request as it is now, the
// config from the default branch, the check run, the review, the posting.
// Every step is safe to repeat, so a job killed half-way runs again from the top.
import { z } from 'zod';
import { ConfigError, parseConfig, type CrashprobeConfig } from '../../core/config/schema.ts';
import { forkAuditOff } from '../../core/review/fork-audit.ts';
import { scopedStore, type HarnessRunner, type LlmClient, type Logger, type PullRequestSource, type Store } from '../../core/ports.ts';
import type { Review } from '../../core/model/review.ts';
import type { GitHubClient } from '../github/client.ts';
import { githubCall, GitHubApiError } from '../github/errors.ts';
import { failedOutcome, refusedReview } from '../github/fail-closed.ts';
import { githubPullRequestSource } from '../github/pull-request-source.ts';
import { reviewPublisher, type PublishTarget } from '../github/publisher.ts';
import type { AppBackend, Job } from '../../store/backend.ts';
import type { FingerprintLedger } from '../../store/fingerprint-ledger.ts';
import { ConclusionPendingError, isRetryable, JobTimeoutError, type JobContext } from './worker-pool.ts';
import { harnessOffReason, type HarnessChoice } from '../harness/choose.ts';
import type { DependencyProvisioner } from '../env/app-provisioner.ts';
import { dependencyHarness } from '../env/dependency-runner.ts';
import { withDependencyNotes } from '../env/review-notes.ts';

export const CONFIG_PATH = '.github/crashprobe.yml';

export const reviewJobSchema = z.object({
  installationId: z.number().int(),
  owner: z.string(),
  repo: z.string(),
  /** Absent for a re-run of a check run whose pull request GitHub did not name. */
  number: z.number().int().optional(),
  /** The head the event was about; absent when the job reviews whatever the head is now. */
  headSha: z.string().optional(),
  /** A re-run asked for (check run re-requested, `/crashprobe review`): reviewed even if the head moved on; its check run is reused. */
  rerun: z.boolean().default(false),
  event: z.string(),
});
export type ReviewJob = z.infer<typeof reviewJobSchema>;

export type ReviewFunction = (
  source: PullRequestSource,
  config: CrashprobeConfig,
  deps: { harness?: HarnessRunner; harnessOffReason?: string; store: Store; logger: Logger; llm?: LlmClient; noLlmNote?: string },
) => Promise<Review>;

/** What Probot's octokit adds: `config.get` reads a file from the default branch (what `context.config` uses). */
export interface AppOctokit extends GitHubClient {
  config: {
    get(options: { owner: string; repo: string; path: string }): Promise<{ config: unknown; files: { config: unknown }[] }>;
  };
}

export interface ReviewJobDeps {
  backend: AppBackend;
  review: ReviewFunction;
  /** The crash harness for a pull request whose code may run; `python`: an environment's interpreter instead of the App's. */
  harness(config: CrashprobeConfig, logger: Logger, python?: string): Promise<HarnessChoice>;
  /** Builds the repository's environment when `harness.dependencies` asks (issue 11); absent: the App's interpreter. */
  dependencies?: DependencyProvisioner;
  logger: Logger;
  appId: number;
  /** The app's bot login (`slug[bot]`): only its comments are reconciled. */
  botLogin: string;
  workRoot?: string;
  /** The LLM for the audit, from the app's environment and the repository's `audit.model`; absent: static checks only. */
  llm?(config: CrashprobeConfig, logger: Logger, store: Store): LlmClient | undefined;
}

export type ReviewJobOutcome = 'reviewed' | 'config-error' | 'skipped';

/**
 * The publisher's ledger is synchronous; for one job it is the pull request's fingerprints read
 * when the job starts, and each record written through (awaited by `flush` at the job's end). The
 * comments on GitHub are the other half of the dedupe, so a lost record cannot post twice.
 */
async function jobLedger(backend: AppBackend, repository: string, number: number): Promise<FingerprintLedger & { flush(): Promise<void> }> {
  const posted = await backend.fingerprints.posted(repository, number);
  const writes: Promise<void>[] = [];
  return {
    posted: (r, n) => (r === repository && n === number ? new Set(posted) : new Set()),
    record: (r, n, headSha, fingerprints) => {
      if (r === repository && n === number) for (const f of fingerprints) posted.add(f);
      writes.push(backend.fingerprints.record(r, n, headSha, fingerprints));
    },
    flush: async () => {
      await Promise.all(writes.splice(0));
    },
  };
}

/** Before a write to GitHub: a job whose time ran out or whose lease was lost posts nothing more. */
function stillMine(context?: JobContext): void {
  context?.signal.throwIfAborted();
}

/** The one publisher for a job's head: its check run taken up again if the job made one, and remembered if it makes one. */
function jobPublisher(job: Job, octokit: AppOctokit, deps: ReviewJobDeps, log: Logger, target: PublishTarget, ledger?: FingerprintLedger) {
  return reviewPublisher(octokit, target, {
    author: { login: deps.botLogin },
    appId: deps.appId,
    checkRunId: job.checkRunId ?? undefined,
    onCheckRun: (id) => {
      job.checkRunId = id;
      deps.backend.setCheckRun(job.id, id).catch((error: Error) => log.warn(`remembering check run ${id} failed: ${error.message}`));
    },
    ledger,
    logger: log,
  });
}

export async function runReviewJob(job: Job, octokit: AppOctokit, deps: ReviewJobDeps, context?: JobContext): Promise<ReviewJobOutcome> {
  const payload = reviewJobSchema.parse(JSON.parse(job.payload));
  const { owner, repo } = payload;
  const log = context?.logger ?? deps.logger;
  const isFinal = (error: unknown) => context?.isFinalAttempt(error) ?? true;
  const publisherFor = (number: number, headSha: string, ledger?: FingerprintLedger) => jobPublisher(job, octokit, deps, log, { owner, repo, number, headSha }, ledger);
  // Out of retries (or time), the check run must not spin forever, nor pass: it fails with the reason (fail closed).
  // Before the pull request is read (GitHub down from the start), the event's head names the check run.
  let publisher = payload.number !== undefined && payload.headSha ? publisherFor(payload.number, payload.headSha) : undefined;
  // A review that was made but could not be posted goes into the failed check run (with what it found), not only the error.
  let unposted: Review | undefined;
  /** Completes the check run as failed; what stopped that (GitHub still down), if anything. */
  const concludeFailed = async (error: unknown): Promise<unknown> => {
    try {
      await publisher?.conclude(failedOutcome((error as Error).message, unposted));
      return undefined;
    } catch (missed) {
      return missed;
    }
  };
  const onAbort = () => {
    if (context?.signal.reason instanceof JobTimeoutError) void concludeFailed(context.signal.reason);
  };
  context?.signal.addEventListener('abort', onAbort, { once: true });
  let ledger: Awaited<ReturnType<typeof jobLedger>> | undefined;
  let source: ReturnType<typeof githubPullRequestSource> | undefined;
  let cache: Awaited<ReturnType<AppBackend['cacheFor']>> | undefined;
  try {
    const number = payload.number ?? (await pullRequestOf(octokit, payload));
    if (number === undefined) {
      log.info(`${owner}/${repo}: no open pull request has head ${payload.headSha}; nothing to review`);
      return 'skipped';
    }
    const { data: pr } = await githubCall(`GET /repos/${owner}/${repo}/pulls/${number}`, () => octokit.rest.pulls.get({ owner, repo, pull_number: number }));
    const label = `${owner}/${repo}#${number}`;
    if (pr.state !== 'open') return skip(log, `${label} is ${pr.state}`);
    if (!payload.rerun && payload.headSha && payload.headSha !== pr.head.sha) return skip(log, `${label} moved on to ${pr.head.sha.slice(0, 7)}; that push has its own job`);
    const headSha = pr.head.sha;
    const fromFork = pr.head.repo?.full_name !== pr.base.repo.full_name;

    // The one publisher (shared with the Action): crashprobe's check run on this head, created or taken up again
    // (a re-run, or a job restarted after a kill, reuses it), the review reconciled, the check run completed.
    ledger = await jobLedger(deps.backend, `${owner}/${repo}`, number);
    publisher = publisherFor(number, headSha, ledger);

    let config: CrashprobeConfig;
    try {
      config = await loadConfig(octokit, owner, repo);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      // The maintainer must fix the file; a review by other rules would mislead, so only the check run says so.
      stillMine(context);
      await publisher.conclude(configErrorOutcome(error));
      log.warn(`${label}: ${error.message}`);
      return 'config-error';
    }
    if (pr.draft && !config.drafts) return skip(log, `${label} is a draft (set \`drafts: true\` to review drafts)`);

    stillMine(context);
    await publisher.start();
    source = githubPullRequestSource(octokit, { owner, repo, number, baseSha: pr.base.sha, headSha, fromFork }, { workRoot: deps.workRoot });
    // One tenant: its dependency environments and its caches are never another repository's.
    const tenant = `${payload.installationId}/${owner}/${repo}`;
    const { choice: harness, notes: dependencyNotes } = dependencyHarness(await chooseHarness(config, fromFork, deps, log), {
      config,
      repo: tenant,
      logger: log,
      provision: deps.dependencies,
      harnessFor: (python) => deps.harness(config, log, python),
    });
    cache = await deps.backend.cacheFor(tenant);
    const store = cache.store;
    const auditOff = forkAuditOff(config, fromFork);
    const llm = auditOff ? undefined : deps.llm?.(config, log, store);
    let review = await deps.review(source, config, {
      harness: harness.harness,
      harnessOffReason: harness.refusal ?? harness.offReason,
      store,
      logger: log,
      llm,
      ...(auditOff ? { noLlmNote: auditOff } : {}),
    });
    if (harness.refusal) review = refusedReview(review, harness.refusal);
    review = withDependencyNotes(review, dependencyNotes);
    stillMine(context);
    unposted = review;
    const report = await publisher.publish(review, await source.changedFiles(), config.max_inline_comments);
    const result = report.result;
    log.info(
      `${label}@${headSha.slice(0, 7)}: ${review.conclusion}; ` +
        (result
          ? `${result.posted.length} new comment(s), ${result.unchanged.length} unchanged, ${result.resolved.length} resolved, ${result.reopened.length} reopened, summary ${result.summary}`
          : `not posted on the pull request (${report.refusals.join(' ')})`) +
        `; conclusion on the ${report.check}`,
    );
    return 'reviewed';
  } catch (error) {
    if (!context?.signal.aborted && isFinal(error)) {
      const missed = await concludeFailed(error);
      // The check run must not stay in progress: it is completed as soon as GitHub answers again.
      if (missed !== undefined && isRetryable(missed)) throw new ConclusionPendingError((error as Error).message, missed);
    }
    throw error;
  } finally {
    context?.signal.removeEventListener('abort', onAbort);
    await Promise.all([
      source?.dispose(),
      cache?.flush().catch((error: Error) => log.warn(`saving the cache failed (${error.message}); the next review recomputes it`)),
      ledger?.flush().catch((error: Error) => log.warn(`recording posted fingerprints failed (${error.message}); the comments on GitHub still dedupe`)),
    ]);
  }
}

/**
 * A conclusion run (Job.finalReason): the job ended without its worker saying so (the worker died
 * on its last attempt, or the time limit passed), so only its check run is completed, as failed
 * with the reason. Nothing is reviewed or posted on the pull request.
 */
export async function concludeFailedJob(job: Job, octokit: AppOctokit, deps: ReviewJobDeps, context?: JobContext): Promise<void> {
  const payload = reviewJobSchema.parse(JSON.parse(job.payload));
  const { owner, repo } = payload;
  const log = context?.logger ?? deps.logger;
  const number = payload.number ?? (await pullRequestOf(octokit, payload));
  if (number === undefined) return;
  const headSha =
    payload.headSha ??
    (await githubCall(`GET /repos/${owner}/${repo}/pulls/${number}`, () => octokit.rest.pulls.get({ owner, repo, pull_number: number }))).data.head.sha;
  await jobPublisher(job, octokit, deps, log, { owner, repo, number, headSha }).conclude(failedOutcome(job.finalReason ?? 'the review failed'));
  log.warn(`${owner}/${repo}#${number}@${headSha.slice(0, 7)}: check run completed as failed: ${job.finalReason}`);
}

function skip(log: Logger, why: string): 'skipped' {
  log.info(`skipped: ${why}`);
  return 'skipped';
}

async function chooseHarness(config: CrashprobeConfig, fromFork: boolean, deps: ReviewJobDeps, log: Logger): Promise<HarnessChoice> {
  const offReason = harnessOffReason(config, { enabled: true, fromFork });
  return offReason ? { offReason } : deps.harness(config, log);
}

/** `.github/crashprobe.yml` from the default branch, as `context.config` reads it; a missing file means the defaults. */
export async function loadConfig(octokit: AppOctokit, owner: string, repo: string): Promise<CrashprobeConfig> {
  let raw: unknown;
  try {
    ({ config: raw } = await octokit.config.get({ owner, repo, path: CONFIG_PATH }));
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status) throw new GitHubApiError(`GET /repos/${owner}/${repo}/contents/${CONFIG_PATH}`, status, (error as Error).message);
    // The plugin throws a plain Error when the YAML does not parse.
    const cause = (error as Error).cause instanceof Error ? ` (${((error as Error).cause as Error).message.split('\n')[0]})` : '';
    throw new ConfigError(CONFIG_PATH, [`(top level): ${(error as Error).message.replace(/^\[@probot\/octokit-plugin-config\] /, '')}${cause}`]);
  }
  return parseConfig(raw ?? {}, CONFIG_PATH);
}

function configErrorOutcome(error: ConfigError) {
  return {
    conclusion: 'action_required' as const,
    title: `crashprobe: ${error.source} is not valid`,
    summary: [
      `crashprobe did not review this pull request: \`${error.source}\` on the default branch is not valid.`,
      '',
      ...error.problems.map((problem) => `- \`${problem.split(': ')[0]}\`: ${problem.split(': ').slice(1).join(': ')}`),
      '',
      'Fix the file on the default branch (the schema is `schema/crashprobe.schema.json`), then re-run this check.',
    ].join('\n'),
  };
}

async function pullRequestOf(octokit: GitHubClient, payload: ReviewJob): Promise<number | undefined> {
  if (!payload.headSha) return undefined;
  const { data } = await githubCall(`GET /repos/${payload.owner}/${payload.repo}/commits/${payload.headSha}/pulls`, () =>
    octokit.rest.repos.listPullRequestsAssociatedWithCommit({ owner: payload.owner, repo: payload.repo, commit_sha: payload.headSha! }),
  );
  return data.find((pr) => pr.state === 'open' && pr.head.sha === payload.headSha)?.number;
}
