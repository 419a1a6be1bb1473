// Runs queued jobs with at most `concurrency` at once, on any backend. A job is claimed with a
// short lease (30 s) that a heartbeat (every 10 s) extends while it runs; if the process or its
// host dies, the lease runs out and any worker anywhere takes the job over. Each job has an
// overall deadline; a graceful stop hands unfinished jobs back at once.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Logger } from '../../core/ports.ts';
import { defaultRetryDelayMs, isRetry, type AppBackend, type Job } from '../../store/backend.ts';
import { retryAfterOf } from '../github/errors.ts';

export const DEFAULT_LEASE_MS = 30_000;
export const DEFAULT_GRACE_MS = 30_000;
/** A conclusion run only completes a check run: it gets this long, whatever the job's deadline was. */
const CONCLUSION_RUN_MS = 2 * 60_000;

export type JobOutcome = 'done' | 'retry' | 'failed' | 'timeout' | 'released' | 'lost';

/** Where metrics hook in: a job started, a job ended (with how and how long it ran). */
export interface WorkerHooks {
  onJobStart?(job: Job): void;
  onJobEnd?(job: Job, outcome: JobOutcome, seconds: number): void;
}

export interface WorkerPoolOptions {
  concurrency: number;
  /** How long a claim holds without a heartbeat (default 30 s; the heartbeat beats every third of it). */
  leaseMs?: number;
  /** How often to look for ready jobs (default 1 s). */
  pollMs?: number;
  /** The back-off before retry number `attempt` when the error names no delay (default 30 s, 1, 2, 4, 8 min with jitter). */
  retryInMs?: (attempt: number) => number;
  /** How long a graceful stop waits for running jobs before handing them back (default 30 s). */
  graceMs?: number;
  logger: Logger;
  /** Deliveries and finished jobs older than this are forgotten at start (default 30 days). */
  forgetAfterMs?: number;
  /** Who claims: host, pid and a random part; only the lease decides whether it still holds a job. */
  owner?: string;
  hooks?: WorkerHooks;
}

export interface JobContext {
  /** Carries the delivery id and job id on every line. */
  logger: Logger;
  /** Aborted when the job's time limit passes, its lease is lost, or the pool stops past its grace. */
  signal: AbortSignal;
  /** Whether failing with this error ends the job for good (so the runner concludes its check run first). */
  isFinalAttempt(error: unknown): boolean;
}

/**
 * Runs a job. A job with `finalReason` is a conclusion run: the runner only completes the job's
 * check run as failed with that reason (the pool then fails the job).
 */
export type JobRunner = (job: Job, context: JobContext) => Promise<void>;

class ConclusionRunDone extends Error {}

/** How long after its time limit a failed job keeps trying to complete its check run while GitHub does not answer. */
const CONCLUDE_FOR_MS = 24 * 3_600_000;

/**
 * The review failed for good, and completing its check run as failed did not get through either
 * (GitHub down): the job is kept as a conclusion run, tried again as soon as GitHub answers.
 */
export class ConclusionPendingError extends Error {
  constructor(
    readonly reason: string,
    override readonly cause: unknown,
  ) {
    super(`${reason}; completing the check run failed too (${cause instanceof Error ? cause.message : String(cause)}); it is tried again later`);
    this.name = 'ConclusionPendingError';
  }
}

export class RetryableError extends Error {}

/** The job ran out of time; never retried. */
export class JobTimeoutError extends Error {}

export function isRetryable(error: unknown): boolean {
  if (error instanceof JobTimeoutError) return false;
  return error instanceof RetryableError || (typeof error === 'object' && error !== null && 'retryable' in error && error.retryable === true);
}

const SECONDARY_RATE_LIMIT_MS = 60_000;

/**
 * The delay an error names: `retryAfterMs`/`retryAfterSeconds`, its response's headers (Retry-After, or
 * the primary rate limit's reset: read as GitHubApiError reads them), or GitHub's secondary rate limit
 * (wait at least a minute when no Retry-After is given).
 */
export function retryDelayOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { retryAfterMs?: unknown; retryAfterSeconds?: unknown; response?: { headers?: Record<string, unknown> }; detail?: unknown; message?: unknown };
  if (typeof e.retryAfterMs === 'number') return e.retryAfterMs;
  if (typeof e.retryAfterSeconds === 'number') return e.retryAfterSeconds * 1000;
  const fromHeaders = retryAfterOf(e.response?.headers);
  if (fromHeaders !== undefined) return fromHeaders;
  const text = `${typeof e.detail === 'string' ? e.detail : ''} ${typeof e.message === 'string' ? e.message : ''}`;
  if (/secondary rate limit/i.test(text)) return SECONDARY_RATE_LIMIT_MS;
  return undefined;
}

/** A logger whose lines carry the job's delivery and id: the port's child when it has one, else a prefix. */
export function jobLogger(logger: Logger, job: Job): Logger {
  const bindings = { deliveryId: job.deliveryId ?? '-', jobId: job.id, jobKey: job.key };
  if (logger.child) return logger.child(bindings);
  const prefix = `[delivery ${bindings.deliveryId} job ${job.id}] `;
  return { info: (m) => logger.info(prefix + m), warn: (m) => logger.warn(prefix + m), error: (m) => logger.error(prefix + m) };
}

interface Running {
  job: Job;
  done: Promise<void>;
  abort: AbortController;
}

export class WorkerPool {
  readonly owner: string;
  private readonly running = new Map<number, Running>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private filling: Promise<void> | undefined;
  private readonly leaseMs: number;

  constructor(
    private readonly backend: AppBackend,
    private readonly runJob: JobRunner,
    private readonly options: WorkerPoolOptions,
  ) {
    this.owner = options.owner ?? `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  get size(): number {
    return this.running.size;
  }

  /** Starts polling for jobs. */
  start(): void {
    this.stopped = false;
    this.backend.prune(this.options.forgetAfterMs ?? 30 * 24 * 3_600_000).catch((error: Error) => this.options.logger.warn(`pruning old jobs failed: ${error.message}`));
    this.timer = setInterval(() => this.kick(), this.options.pollMs ?? 1000);
    this.timer.unref();
    this.kick();
  }

  /** Fills free worker slots with ready jobs (one filler at a time; a kick during a fill is folded into it). */
  kick(): void {
    if (this.stopped || this.filling) return;
    this.filling = this.fill()
      .catch((error: Error) => this.options.logger.error(`claiming a job failed: ${error.message}; trying again shortly`))
      .finally(() => {
        this.filling = undefined;
      });
  }

  private async fill(): Promise<void> {
    while (!this.stopped && this.running.size < this.options.concurrency) {
      const job = await this.backend.claim(this.owner, this.leaseMs);
      if (!job) return;
      if (this.stopped) {
        await this.backend.release(job.id, this.owner);
        return;
      }
      const abort = new AbortController();
      const done = this.execute(job, abort).finally(() => {
        this.running.delete(job.id);
        this.kick();
      });
      this.running.set(job.id, { job, done, abort });
    }
  }

  /**
   * Stops claiming and waits for the jobs in hand, at most `graceMs`; the ones still running then
   * are handed back (pending at once, for any worker), so nothing waits for a lease to run out.
   */
  async stop(graceMs = this.options.graceMs ?? DEFAULT_GRACE_MS): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.filling;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.allSettled([...this.running.values()].map((r) => r.done)), grace]);
    clearTimeout(timer);
    const left = [...this.running.values()];
    if (!left.length) return;
    this.options.logger.warn(`stopping with ${left.length} job(s) unfinished: handed back for another worker`);
    for (const { job, abort } of left) {
      abort.abort(new Error('the worker is stopping; the job was handed back'));
      await this.backend.release(job.id, this.owner).catch((error: Error) => this.options.logger.error(`handing back job ${job.id} failed: ${error.message}`));
    }
  }

  /** Resolves when no job is running and none is being claimed (tests). */
  async idle(): Promise<void> {
    while (this.running.size || this.filling) {
      await this.filling;
      await Promise.allSettled([...this.running.values()].map((r) => r.done));
    }
  }

  private retryDelay(job: Job, error: unknown): number {
    return retryDelayOf(error) ?? (this.options.retryInMs ?? defaultRetryDelayMs)(job.attempts);
  }

  private async execute(job: Job, abort: AbortController): Promise<void> {
    const logger = jobLogger(this.options.logger, job);
    const hooks = this.options.hooks;
    const started = Date.now();
    const end = (outcome: JobOutcome) => hooks?.onJobEnd?.(job, outcome, (Date.now() - started) / 1000);
    hooks?.onJobStart?.(job);
    // One delay per error, so the runner's "is this the last attempt?" and the backend's decision agree.
    const delays = new WeakMap<object, number>();
    const delayOf = (error: unknown) => {
      if (typeof error !== 'object' || error === null) return this.retryDelay(job, error);
      if (!delays.has(error)) delays.set(error, this.retryDelay(job, error));
      return delays.get(error)!;
    };
    // The backend's own rule, so the runner concludes the check run exactly when the backend will not retry.
    const isFinalAttempt = (error: unknown) => !isRetry(job, { retryable: isRetryable(error) }, Date.now() + delayOf(error), this.backend.maxAttempts);

    let lost = false;
    const heartbeat = setInterval(() => {
      this.backend.heartbeat(job.id, this.owner, this.leaseMs).then(
        (held) => {
          if (held || lost) return;
          lost = true;
          abort.abort(new Error('the lease was lost (taken over, cancelled or timed out)'));
        },
        (error: Error) => logger.warn(`heartbeat failed: ${error.message}`),
      );
    }, Math.max(50, this.leaseMs / 3));
    heartbeat.unref();
    const timeout = new JobTimeoutError(
      `the review did not finish by its time limit (${new Date(job.deadline).toISOString()}; CRASHPROBE_JOB_TIMEOUT_MINUTES): it is not retried; re-run the check to try again`,
    );
    const runsUntil = job.finalReason === null ? job.deadline : Date.now() + CONCLUSION_RUN_MS;
    const deadline = setTimeout(() => abort.abort(timeout), Math.max(0, runsUntil - Date.now()));
    deadline.unref();
    const aborted = new Promise<never>((_, reject) => {
      abort.signal.addEventListener('abort', () => reject(abort.signal.reason), { once: true });
    });
    aborted.catch(() => undefined);

    try {
      let ran = false;
      try {
        await Promise.race([this.runJob(job, { logger, signal: abort.signal, isFinalAttempt }), aborted]);
        if (job.finalReason !== null) throw new ConclusionRunDone(job.finalReason);
        ran = true;
      } catch (error) {
        await this.recordFailure(job, error, { lost, abort, timeout, logger, delayOf, end });
      }
      if (!ran) return;
      try {
        await this.backend.complete(job.id, this.owner);
        end('done');
      } catch (error) {
        // The review is posted; its job runs again once the lease runs out, and finds everything in place (idempotent).
        logger.error(`recording job ${job.key} as done failed: ${(error as Error).message}; another worker repeats it once the lease runs out`);
        end('lost');
      }
    } finally {
      clearInterval(heartbeat);
      clearTimeout(deadline);
    }
  }

  private async recordFailure(
    job: Job,
    error: unknown,
    { lost, abort, timeout, logger, delayOf, end }: {
      lost: boolean;
      abort: AbortController;
      timeout: JobTimeoutError;
      logger: Logger;
      delayOf(error: unknown): number;
      end(outcome: JobOutcome): void;
    },
  ): Promise<void> {
    const handedBack = lost || (abort.signal.aborted && abort.signal.reason !== timeout);
    if (job.finalReason !== null && !handedBack) {
      // A conclusion run that met GitHub still down: tried again later, for a day past the job's time limit.
      if (!(error instanceof ConclusionRunDone) && isRetryable(error) && Date.now() < job.deadline + CONCLUDE_FOR_MS) {
        const retryInMs = delayOf(error);
        await this.backend.fail(job.id, this.owner, (error as Error).message, { retryable: false, retryInMs, concludeLater: job.finalReason }).catch(() => undefined);
        logger.warn(`completing the check run of failed job ${job.key} failed: ${(error as Error).message}; tried again in ${Math.round(retryInMs / 1000)} s`);
        end('retry');
        return;
      }
      // A conclusion run (the runner completed the check run, or tried): the job ends failed with its reason.
      if (!(error instanceof ConclusionRunDone)) logger.warn(`completing the check run of failed job ${job.key} failed: ${(error as Error).message}`);
      await this.backend.fail(job.id, this.owner, job.finalReason, { retryable: false }).catch(() => undefined);
      logger.error(`job ${job.key} failed: ${job.finalReason}`);
      end(/time limit/.test(job.finalReason) ? 'timeout' : 'failed');
      return;
    }
    if (handedBack) {
      // Lost or handed back: someone else owns the job now; nothing to record.
      end(lost ? 'lost' : 'released');
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    const pending = error instanceof ConclusionPendingError ? { concludeLater: error.reason, retryInMs: delayOf(error.cause) } : {};
    const status = await this.backend
      .fail(job.id, this.owner, message, { retryable: isRetryable(error), retryInMs: delayOf(error), ...pending })
      .catch((failure: Error) => {
        logger.error(`recording the failure failed: ${failure.message}; the lease runs out and another worker takes the job`);
        return 'failed' as const;
      });
    logger.error(`job ${job.key} (attempt ${job.attempts}) failed: ${message}${status === 'pending' ? ` (retried in ${Math.round(delayOf(error) / 1000)} s)` : ''}`);
    end(error === timeout ? 'timeout' : status === 'pending' ? 'retry' : 'failed');
  }
}
