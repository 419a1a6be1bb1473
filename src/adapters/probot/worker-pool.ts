// Runs queued jobs with at most `concurrency` at once. A job is claimed with a
// lease that a heartbeat extends while it runs; if the process dies, the lease
// runs out (or the next start sees the owner is gone) and the job runs again.
import os from 'node:os';
import type { Logger } from '../../core/ports.ts';
import type { CrashprobeState, Job } from '../../store/state.ts';

export interface WorkerPoolOptions {
  concurrency: number;
  /** How long a claim holds without a heartbeat. */
  leaseMs?: number;
  /** How often to look for jobs whose retry time came. */
  pollMs?: number;
  retryInMs?: (attempts: number) => number;
  logger: Logger;
  /** Deliveries and finished jobs older than this are forgotten at start (default 30 days). */
  forgetAfterMs?: number;
  /** Who claims: host and pid, so a restarted process can tell its predecessor is gone. */
  owner?: string;
}

export type JobRunner = (job: Job) => Promise<void>;

export class RetryableError extends Error {}

export function isRetryable(error: unknown): boolean {
  return error instanceof RetryableError || (typeof error === 'object' && error !== null && 'retryable' in error && error.retryable === true);
}

export class WorkerPool {
  readonly owner: string;
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private readonly leaseMs: number;

  constructor(
    private readonly state: CrashprobeState,
    private readonly runJob: JobRunner,
    private readonly options: WorkerPoolOptions,
  ) {
    this.owner = options.owner ?? `${os.hostname()}:${process.pid}`;
    this.leaseMs = options.leaseMs ?? 10 * 60_000;
  }

  /** Starts polling; jobs left running by a dead process on this host are taken up at once. */
  start(): void {
    this.stopped = false;
    this.state.prune(this.options.forgetAfterMs ?? 30 * 24 * 3_600_000);
    const released = this.state.releaseAbandoned((owner) => owner !== this.owner && isAliveOnThisHost(owner));
    if (released) this.options.logger.info(`resuming ${released} job(s) left unfinished by a stopped process`);
    this.timer = setInterval(() => this.kick(), this.options.pollMs ?? 1000);
    this.timer.unref();
    this.kick();
  }

  /** Fills free worker slots with ready jobs. */
  kick(): void {
    while (!this.stopped && this.running.size < this.options.concurrency) {
      const job = this.state.claim(this.owner, this.leaseMs);
      if (!job) return;
      const done = this.execute(job).finally(() => {
        this.running.delete(done);
        this.kick();
      });
      this.running.add(done);
    }
  }

  /**
   * Stops claiming and waits for the jobs in hand, at most `graceMs` (a deployment's SIGTERM
   * gives about 10 s). A job still running then stays claimed by this process; the next start
   * sees its owner gone and runs it again, so nothing is lost.
   */
  async stop(graceMs = 8_000): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.allSettled([...this.running]), grace]);
    clearTimeout(timer);
    if (this.running.size) this.options.logger.warn(`stopping with ${this.running.size} job(s) unfinished: the next start runs them again`);
  }

  /** Resolves when no job is running (tests). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  private async execute(job: Job): Promise<void> {
    const { logger } = this.options;
    const heartbeat = setInterval(() => this.state.heartbeat(job.id, this.owner, this.leaseMs), Math.max(50, this.leaseMs / 3));
    heartbeat.unref();
    try {
      await this.runJob(job);
      this.state.complete(job.id, this.owner);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const retryInMs = this.options.retryInMs?.(job.attempts) ?? Math.min(60_000, 2000 * 2 ** job.attempts);
      const status = this.state.fail(job.id, this.owner, message, { retryable: isRetryable(error), retryInMs });
      logger.error(`job ${job.key} (attempt ${job.attempts}) failed: ${message}${status === 'pending' ? ' (retried later)' : ''}`);
    } finally {
      clearInterval(heartbeat);
    }
  }
}

/** `host:pid` → whether that process still runs here; another host's owner counts as alive (its lease decides). */
function isAliveOnThisHost(owner: string): boolean {
  const [host, pidText] = owner.split(':');
  const pid = Number(pidText);
  if (host !== os.hostname() || !Number.isInteger(pid)) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
