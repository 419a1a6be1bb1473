// The Probot app: webhook handlers that only record the delivery and queue a
// job (answering GitHub at once), and a worker pool that runs the jobs. A process
// may be web-only, worker-only or both (role); the backend is shared by all of them.
import type { ApplicationFunctionOptions, Context, Probot } from 'probot';
import type { LlmClient, Logger, Store } from '../../core/ports.ts';
import { reviewPullRequest } from '../../core/review/review.ts';
import type { AppBackend, JobInput } from '../../store/backend.ts';
import { openSqliteBackend } from '../../store/sqlite/sqlite-backend.ts';
import { CHECK_NAME } from '../github/check-run.ts';
import { githubCall } from '../github/errors.ts';
import { concludeFailedJob, runReviewJob, type AppOctokit, type ReviewFunction, type ReviewJob, type ReviewJobDeps, reviewJobSchema } from './review-job.ts';
import type { HarnessChoice } from '../harness/choose.ts';
import type { DependencyProvisioner } from '../env/app-provisioner.ts';
import { WorkerPool, type WorkerHooks, type WorkerPoolOptions } from './worker-pool.ts';
import type { CrashprobeConfig } from '../../core/config/schema.ts';

export const PULL_REQUEST_EVENTS = ['pull_request.opened', 'pull_request.synchronize', 'pull_request.reopened', 'pull_request.ready_for_review'] as const;
export const DEFAULT_REVIEWS_PER_HOUR = 120;
export const REVIEW_COMMAND = /^\/crashprobe\s+review\b/;
/** Who may ask for a re-run by comment: people with write access, since a re-run runs the harness again. */
const TRUSTED_ASSOCIATIONS = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

export const ROLES = ['web', 'worker', 'both'] as const;
export type AppRole = (typeof ROLES)[number];

export interface AppDeps {
  backend: AppBackend;
  /** 'web': answers webhooks and queues, runs no job; 'worker': runs jobs, registers no webhook handler; 'both' (default). */
  role?: AppRole;
  review: ReviewFunction;
  harness(config: CrashprobeConfig, logger: Logger, python?: string): Promise<HarnessChoice>;
  /** Builds a repository's environment before crash tests (harness.dependencies); absent: the App's interpreter. */
  dependencies?: DependencyProvisioner;
  /** The audit's LLM for a repository's config; absent: the audit is the static checks. */
  llm?(config: CrashprobeConfig, logger: Logger, store: Store): LlmClient | undefined;
  /** Reviews run at once by this process (CRASHPROBE_WORKERS). */
  workers: number;
  /** Reviews one installation may queue per hour; more are dropped with a warning (default 120). */
  reviewsPerHour?: number;
  /** How long a stop waits for running reviews before handing them back (CRASHPROBE_GRACE_SECONDS, default 30 s). */
  graceMs?: number;
  leaseMs?: number;
  pollMs?: number;
  retryInMs?: WorkerPoolOptions['retryInMs'];
  hooks?: WorkerHooks;
  workRoot?: string;
}

export interface CrashprobeApp {
  /** Absent in a web-only process. */
  pool?: WorkerPool;
  /** Stops claiming, lets running jobs finish within the grace, hands back the rest. The backend stays open (its opener closes it). */
  stop(): Promise<void>;
}

/** Defaults for `probot run`-style loading: the SQLite state under the working folder, the real review, no harness. */
export function defaultDeps(statePath = './.crashprobe/state.db'): AppDeps {
  return {
    backend: openSqliteBackend(statePath),
    review: reviewPullRequest,
    harness: async () => ({ offReason: 'The crash harness is not set up in this deployment of the app.' }),
    workers: 2,
  };
}

export default function crashprobeApp(app: Probot, _options?: ApplicationFunctionOptions, deps: AppDeps = defaultDeps()): CrashprobeApp {
  const logger = pinoLogger(app);
  const role = deps.role ?? 'both';
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

  const pool =
    role === 'web'
      ? undefined
      : new WorkerPool(
          deps.backend,
          async (job, context) => {
            const payload: ReviewJob = reviewJobSchema.parse(JSON.parse(job.payload));
            const octokit = (await app.auth(payload.installationId)) as unknown as AppOctokit;
            const jobDeps: ReviewJobDeps = {
                backend: deps.backend,
                review: deps.review,
                harness: deps.harness,
                dependencies: deps.dependencies,
                llm: deps.llm,
                logger: context.logger,
                ...(await appIdentity()),
                workRoot: deps.workRoot,
            };
            if (job.finalReason !== null) await concludeFailedJob(job, octokit, jobDeps, context);
            else await runReviewJob(job, octokit, jobDeps, context);
          },
          {
            concurrency: deps.workers,
            leaseMs: deps.leaseMs,
            pollMs: deps.pollMs,
            graceMs: deps.graceMs,
            retryInMs: deps.retryInMs,
            hooks: deps.hooks,
            logger,
          },
        );

  const admit = async (context: Context, job: JobInput & { payload: ReviewJob }) => {
    const limit = { installationId: job.payload.installationId, perHour: deps.reviewsPerHour ?? DEFAULT_REVIEWS_PER_HOUR };
    const log = logger.child?.({ deliveryId: context.id }) ?? logger;
    const { outcome, job: queued, superseded } = await deps.backend.admit(context.id, context.name, job, limit);
    if (superseded.length) log.info(`${job.key} supersedes ${superseded.join(', ')}: cancelled before they ran`);
    if (outcome === 'duplicate') log.info(`delivery ${context.id} was seen before; ignored`);
    else if (outcome === 'rate-limited') log.warn(`${job.key}: installation ${limit.installationId} queued ${limit.perHour} reviews in the last hour (CRASHPROBE_REVIEWS_PER_HOUR); not queued`);
    else if (outcome === 'exists') log.info(`${job.key} is already ${queued?.status === 'done' ? 'reviewed' : 'queued'}; nothing more to do`);
    else if (outcome === 'queued' || outcome === 'requeued') {
      log.info(`${job.key} ${outcome === 'requeued' ? 'failed before and is queued again' : 'queued'} as job ${queued?.id}`);
      pool?.kick();
    }
  };

  if (role === 'worker') {
    pool!.start();
    return { pool, stop: () => pool!.stop() };
  }

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
    // A push (`synchronize`) supersedes the pending review of the head it moved on from (`before`), and only that:
    // an older head's delivery that arrives late must not cancel the newer one. Its own may be superseded in turn.
    const lane = `${repository.full_name}#${pr.number}`;
    const before = 'before' in context.payload && typeof context.payload.before === 'string' ? context.payload.before : undefined;
    await admit(context, {
      key: `${lane}@${pr.head.sha}`,
      payload,
      lane,
      supersedes: before && before !== pr.head.sha ? [`${lane}@${before}`] : [],
      supersedable: true,
    });
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
    await admit(context, { key: `${repository.full_name}@${run.head_sha}!${context.id}`, payload, lane });
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
    await admit(context, { key: `${repository.full_name}#${issue.number}!${context.id}`, payload, lane: `${repository.full_name}#${issue.number}` });
  });

  pool?.start();
  return {
    pool,
    async stop() {
      await pool?.stop();
    },
  };
}

type PinoLike = Pick<Probot['log'], 'info' | 'warn' | 'error'> & { child?(bindings: Record<string, unknown>): PinoLike };

/** Probot's log exists only once Probot has initialized, so it is looked up at each call; a child carries fields (delivery, job) on every line. */
function pinoLogger(app: Probot, bindings?: Record<string, string | number>): Logger {
  const write = (level: 'info' | 'warn' | 'error', message: string) => {
    const root: PinoLike = (app.log as PinoLike | undefined) ?? { info: console.log, warn: console.warn, error: console.error };
    if (!bindings) root[level](message);
    else if (root.child) root.child(bindings)[level](message);
    else root[level](`[${Object.entries(bindings).map(([k, v]) => `${k}=${v}`).join(' ')}] ${message}`);
  };
  return {
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
    child: (more) => pinoLogger(app, { ...bindings, ...more }),
  };
}
