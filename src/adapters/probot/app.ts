// The Probot app: webhook handlers that only record the delivery and queue a
// job (answering GitHub at once), and a worker pool that runs the jobs.
import type { ApplicationFunctionOptions, Context, Probot } from 'probot';
import type { LlmClient, Logger, Store } from '../../core/ports.ts';
import { reviewPullRequest } from '../../core/review/review.ts';
import { openState, type CrashprobeState } from '../../store/state.ts';
import { CHECK_NAME } from '../github/check-run.ts';
import { githubCall } from '../github/errors.ts';
import { runReviewJob, type AppOctokit, type ReviewFunction, type ReviewJob, reviewJobSchema } from './review-job.ts';
import type { HarnessChoice } from '../harness/choose.ts';
import type { DependencyProvisioner } from '../env/app-provisioner.ts';
import { WorkerPool } from './worker-pool.ts';
import type { CrashprobeConfig } from '../../core/config/schema.ts';

export const PULL_REQUEST_EVENTS = ['pull_request.opened', 'pull_request.synchronize', 'pull_request.reopened', 'pull_request.ready_for_review'] as const;
export const DEFAULT_REVIEWS_PER_HOUR = 120;
export const REVIEW_COMMAND = /^\/crashprobe\s+review\b/;
/** Who may ask for a re-run by comment: people with write access, since a re-run runs the harness again. */
const TRUSTED_ASSOCIATIONS = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

export interface AppDeps {
  state: CrashprobeState;
  review: ReviewFunction;
  harness(config: CrashprobeConfig, logger: Logger, python?: string): Promise<HarnessChoice>;
  /** Builds a repository's environment before crash tests (harness.dependencies); absent: the App's interpreter. */
  dependencies?: DependencyProvisioner;
  /** The audit's LLM for a repository's config; absent: the audit is the static checks. */
  llm?(config: CrashprobeConfig, logger: Logger, store: Store): LlmClient | undefined;
  concurrency: number;
  /** Reviews one installation may queue per hour; more are dropped with a warning (default 120). */
  reviewsPerHour?: number;
  leaseMs?: number;
  pollMs?: number;
  workRoot?: string;
}

export interface CrashprobeApp {
  pool: WorkerPool;
  stop(): Promise<void>;
}

/** Defaults for `probot run`-style loading: state under the working folder, the real review, no harness. */
export function defaultDeps(statePath = './.crashprobe/state.db'): AppDeps {
  return {
    state: openState(statePath),
    review: reviewPullRequest,
    harness: async () => ({ offReason: 'The crash harness is not set up in this deployment of the app.' }),
    concurrency: 2,
  };
}

export default function crashprobeApp(app: Probot, _options?: ApplicationFunctionOptions, deps: AppDeps = defaultDeps()): CrashprobeApp {
  const logger = pinoLogger(app);
  // The app's own id and bot login, so only its check runs and comments count as crashprobe's (asked once).
  let identity: Promise<{ appId: number; botLogin: string }> | undefined;
  const appIdentity = () =>
    (identity ??= app
      .auth()
      .then((octokit) => githubCall('GET /app', () => octokit.rest.apps.getAuthenticated()))
      .then(({ data }) => ({ appId: data!.id, botLogin: `${data!.slug}[bot]` }))
      .catch((error: Error) => {
        identity = undefined;
        throw error;
      }));

  const pool = new WorkerPool(
    deps.state,
    async (job) => {
      const payload: ReviewJob = reviewJobSchema.parse(JSON.parse(job.payload));
      const octokit = (await app.auth(payload.installationId)) as unknown as AppOctokit;
      await runReviewJob(job, octokit, {
        state: deps.state,
        review: deps.review,
        harness: deps.harness,
        dependencies: deps.dependencies,
        llm: deps.llm,
        logger,
        ...(await appIdentity()),
        workRoot: deps.workRoot,
      });
    },
    { concurrency: deps.concurrency, leaseMs: deps.leaseMs, pollMs: deps.pollMs, logger },
  );

  const admit = (context: Context, job: { key: string; payload: ReviewJob; lane: string } | undefined) => {
    const limit = job ? { installationId: job.payload.installationId, perHour: deps.reviewsPerHour ?? DEFAULT_REVIEWS_PER_HOUR } : undefined;
    const outcome = deps.state.admit(context.id, context.name, job, limit);
    if (outcome === 'duplicate') logger.info(`delivery ${context.id} was seen before; ignored`);
    else if (outcome === 'rate-limited') logger.warn(`${job!.key}: installation ${limit!.installationId} queued ${limit!.perHour} reviews in the last hour (CRASHPROBE_REVIEWS_PER_HOUR); not queued`);
    else if (outcome === 'exists') logger.info(`${job!.key} is already queued or done; nothing more to do`);
    else if (outcome === 'queued') pool.kick();
  };

  app.on([...PULL_REQUEST_EVENTS], async (context) => {
    const { pull_request: pr, repository, installation } = context.payload;
    if (!installation) return;
    const payload: ReviewJob = {
      installationId: installation.id,
      owner: repository.owner.login,
      repo: repository.name,
      number: pr.number,
      headSha: pr.head.sha,
      rerun: false,
      event: `${context.name}.${context.payload.action}`,
    };
    admit(context, { key: `${repository.full_name}#${pr.number}@${pr.head.sha}`, payload, lane: `${repository.full_name}#${pr.number}` });
  });

  app.on('check_run.rerequested', async (context) => {
    const { check_run: run, repository, installation } = context.payload;
    if (!installation || run.name !== CHECK_NAME) return;
    const payload: ReviewJob = {
      installationId: installation.id,
      owner: repository.owner.login,
      repo: repository.name,
      number: run.pull_requests[0]?.number,
      headSha: run.head_sha,
      rerun: true,
      event: 'check_run.rerequested',
    };
    const lane = payload.number ? `${repository.full_name}#${payload.number}` : `${repository.full_name}@${run.head_sha}`;
    admit(context, { key: `${repository.full_name}@${run.head_sha}!${context.id}`, payload, lane });
  });

  app.on('issue_comment.created', async (context) => {
    const { comment, issue, repository, installation } = context.payload;
    const asked = Boolean(issue.pull_request) && REVIEW_COMMAND.test(comment.body.trim()) && comment.user?.type !== 'Bot';
    if (!installation || !asked) return;
    if (!TRUSTED_ASSOCIATIONS.has(comment.author_association)) {
      logger.info(`${repository.full_name}#${issue.number}: /crashprobe review from ${comment.user?.login} (${comment.author_association}) ignored: needs write access`);
      return;
    }
    const payload: ReviewJob = {
      installationId: installation.id,
      owner: repository.owner.login,
      repo: repository.name,
      number: issue.number,
      rerun: true,
      event: 'issue_comment.created',
    };
    admit(context, { key: `${repository.full_name}#${issue.number}!${context.id}`, payload, lane: `${repository.full_name}#${issue.number}` });
  });

  pool.start();
  return {
    pool,
    async stop() {
      await pool.stop();
    },
  };
}

/** Probot's log exists only once Probot has initialized, so it is looked up at each call. */
function pinoLogger(app: Probot): Logger {
  const log = () => app.log ?? { info: console.log, warn: console.warn, error: console.error };
  return { info: (m) => log().info(m), warn: (m) => log().warn(m), error: (m) => log().error(m) };
}
