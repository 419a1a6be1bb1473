// The App's durable state behind one async interface, with two implementations: SQLite (one
// file, zero setup, one machine: sqlite/) and PostgreSQL (many web replicas and workers on many
// hosts: postgres/, pg-boss dispatching the jobs). test/store/backend.contract.ts holds both to
// the same promises.
import type { Store } from '../core/ports.ts';

/** `cancelled`: superseded by a newer push to the same pull request before it ran. */
export type JobStatus = 'pending' | 'running' | 'done' | 'failed' | 'cancelled';
export const JOB_STATUSES: readonly JobStatus[] = ['pending', 'running', 'done', 'failed', 'cancelled'];

export interface Job {
  id: number;
  /** Idempotency key: one job per key (e.g. owner/repo#7@headSha) runs to completion, unless it failed and is asked again. */
  key: string;
  /** Jobs of one lane (a pull request) never run side by side. */
  lane: string | null;
  payload: string;
  status: JobStatus;
  attempts: number;
  /** Who holds the lease (host:pid:random); the lease, not the pid, decides whether it still holds it. */
  owner: string | null;
  leaseUntil: number | null;
  /** Not claimed before this time (ms): a retry's back-off. */
  runAfter: number;
  /** The job concludes failed once this time (ms) passes, however many attempts remain. */
  deadline: number;
  checkRunId: number | null;
  lastError: string | null;
  /** The X-GitHub-Delivery that queued it (or queued it again), for the logs. */
  deliveryId: string | null;
  /** When it was queued (or queued again): the start of delivery-to-review latency. */
  queuedAt: number;
  /**
   * Set when the job ended without its worker saying so (the worker died on its last attempt, or the
   * time limit passed while it waited or its worker was gone): the claim is then a conclusion run,
   * in which a worker only completes the check run as failed with this reason, then fails the job.
   */
  finalReason: string | null;
  /** Conclusion runs of this job whose worker stopped too; at MAX_CONCLUSION_RUNS the job fails without its check run. */
  conclusionStops: number;
}

/** A jobs row as either database returns it: SQLite gives integers as numbers, PostgreSQL's bigints as strings. */
export interface JobRow {
  id: number | string;
  key: string;
  lane: string | null;
  payload: string;
  status: JobStatus;
  attempts: number;
  owner: string | null;
  lease_until: number | string | null;
  run_after: number | string;
  deadline: number | string;
  check_run_id: number | string | null;
  last_error: string | null;
  delivery_id: string | null;
  final_reason: string | null;
  conclusion_stops: number;
}

const numberOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

/** Whether a failed attempt runs again: retryable, not a conclusion run, attempts left, and the retry starts before the deadline. */
export function isRetry(job: Pick<Job, 'finalReason' | 'attempts' | 'deadline'>, options: FailOptions, runAfter: number, maxAttempts: number): boolean {
  return options.retryable && job.finalReason === null && job.attempts < maxAttempts && runAfter < job.deadline;
}

/** Why a job that ran out of time fails (its check run says it). */
export function timeLimitMessage(timeoutMs: number): string {
  return `the review did not finish within its time limit of ${Math.round(timeoutMs / 60_000)} minute(s) (CRASHPROBE_JOB_TIMEOUT_MINUTES)`;
}

/** Why a job whose worker kept dying fails: the last error it recorded, then how often its worker stopped. */
export function workerStoppedMessage(lastError: string | null, attempts: number): string {
  return `${lastError ? `${lastError}; then ` : ''}its worker stopped ${attempts} time(s) before finishing`;
}

/**
 * Conclusion runs one job gets while their workers keep dying (killed, out of memory, a lost host).
 * Bounded: a conclusion run only completes a check run, and one that kills its worker every time must still end.
 */
export const MAX_CONCLUSION_RUNS = 3;

/** Why a job ends failed with no check run saying so: its reason, then why nothing could write it. */
export function conclusionStoppedMessage(finalReason: string, stops: number): string {
  return `${finalReason}; no check run says so, because the worker of each of its ${stops} conclusion run(s) stopped before writing it: re-run the check or push again to review it`;
}

/** After a conclusion run's worker stopped: offered again (pending, now) until MAX_CONCLUSION_RUNS have stopped, then failed. */
export function afterConclusionStopped(job: Pick<JobRow, 'final_reason' | 'conclusion_stops'>): { status: 'pending' | 'failed'; stops: number; error: string | null } {
  const stops = Number(job.conclusion_stops) + 1;
  return stops < MAX_CONCLUSION_RUNS
    ? { status: 'pending', stops, error: null }
    : { status: 'failed', stops, error: conclusionStoppedMessage(job.final_reason ?? 'the review failed', stops) };
}

/** The job a row holds; it was queued one job time limit before its deadline. */
export function jobFromRow(row: JobRow, jobTimeoutMs: number): Job {
  return {
    id: Number(row.id),
    key: row.key,
    lane: row.lane,
    payload: row.payload,
    status: row.status,
    attempts: row.attempts,
    owner: row.owner,
    leaseUntil: numberOrNull(row.lease_until),
    runAfter: Number(row.run_after),
    deadline: Number(row.deadline),
    checkRunId: numberOrNull(row.check_run_id),
    lastError: row.last_error,
    deliveryId: row.delivery_id,
    queuedAt: Number(row.deadline) - jobTimeoutMs,
    finalReason: row.final_reason,
    conclusionStops: Number(row.conclusion_stops),
  };
}

export interface JobInput {
  key: string;
  payload: unknown;
  lane?: string;
  /**
   * A push: the keys of the jobs of the heads it replaced (a `synchronize` names the head it moved on from,
   * `before`). Those still pending in the same lane, if `supersedable`, are cancelled. Named, not "every other
   * job of the lane": deliveries can arrive out of order, and an older head's must never cancel a newer one's.
   */
  supersedes?: readonly string[];
  /** May be cancelled by a later push's `supersedes` (a push's review; not a re-run someone asked for). */
  supersedable?: boolean;
}

/** Reviews one installation may queue per hour (issue 9, requirement 10). Counted on `payload.installationId`. */
export interface RateLimit {
  installationId: number;
  perHour: number;
}

/**
 * 'duplicate': the delivery id was seen before, nothing queued. 'exists': a job with this key is
 * pending, running or done. 'requeued': its job had failed (or was cancelled) and runs again.
 */
export type Admission = 'duplicate' | 'exists' | 'queued' | 'requeued' | 'ignored' | 'rate-limited';

export interface AdmitResult {
  outcome: Admission;
  job?: Job;
  /** Keys of the pending jobs this admission cancelled (supersede). */
  superseded: string[];
}

export interface FailOptions {
  retryable: boolean;
  /** When to try again (ms from now); the backend's back-off when absent. */
  retryInMs?: number;
  /**
   * The job failed for good but its check run could not be completed (GitHub did not answer): it is
   * kept as a conclusion run with this reason (Job.finalReason), claimed again after `retryInMs`.
   */
  concludeLater?: string;
}

/** The fingerprints crashprobe posted on pull requests, durable across replicas. */
export interface AsyncFingerprintLedger {
  posted(repository: string, number: number): Promise<Set<string>>;
  record(repository: string, number: number, headSha: string, fingerprints: readonly string[]): Promise<void>;
}

/**
 * One job's view of the verdict/LLM cache: the core's Store port is synchronous, so PostgreSQL
 * loads the tenant's most recently used entries (up to BackendOptions.cacheLoadBytes) when the job
 * starts and `flush` writes the changed ones back, and marks the ones read as used, when it ends
 * (write-behind per job; it is a cache, a lost write only costs a re-run). SQLite writes through.
 */
export interface JobCache {
  store: Store;
  flush(): Promise<void>;
}

export type JobCounts = Record<JobStatus, number>;

export interface AppBackend {
  readonly kind: 'sqlite' | 'postgres';
  /** Attempts before a retryable failure becomes final (a worker that died counts as one). */
  readonly maxAttempts: number;
  /** A delivery recorded and its job queued in one transaction. */
  admit(deliveryId: string, event: string, job?: JobInput, limit?: RateLimit): Promise<AdmitResult>;
  /**
   * The oldest ready job whose lane is free, leased to `owner` for `leaseMs`; a job waiting out a
   * back-off does not hold its lane. Jobs whose lease ran out are taken over; out of attempts or past
   * their deadline, they come back with `finalReason` (a conclusion run), offered again when that run's
   * worker dies too, until MAX_CONCLUSION_RUNS have died: then failed (conclusionStoppedMessage).
   */
  claim(owner: string, leaseMs: number): Promise<Job | undefined>;
  /** Extends the lease; false when the job is no longer this owner's (lease lost, cancelled, timed out). */
  heartbeat(id: number, owner: string, leaseMs: number): Promise<boolean>;
  complete(id: number, owner: string): Promise<void>;
  /** Pending again after the back-off while attempts remain and it is retryable and before its deadline, or as a conclusion run with `concludeLater`; else failed. */
  fail(id: number, owner: string, error: string, options: FailOptions): Promise<JobStatus>;
  /** Hands a job back at once (graceful stop): pending, the attempt not counted, claimable by any worker now. */
  release(id: number, owner: string): Promise<void>;
  /** Remembers the check run a job created, so a restarted job completes it instead of creating another. */
  setCheckRun(id: number, checkRunId: number): Promise<void>;
  job(id: number): Promise<Job | undefined>;
  jobByKey(key: string): Promise<Job | undefined>;
  jobs(status?: JobStatus): Promise<Job[]>;
  /** Jobs by status (metrics: queue depth = pending). */
  counts(): Promise<JobCounts>;
  readonly fingerprints: AsyncFingerprintLedger;
  /** The cache of one tenant (`scopedStore`'s scope), for one job. */
  cacheFor(scope: string): Promise<JobCache>;
  /** Throws when the database cannot be reached (/readyz). */
  ping(): Promise<void>;
  /** Forgets deliveries and finished jobs older than `ageMs`. */
  prune(ageMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface BackendOptions {
  /** postgres://… selects PostgreSQL; absent: SQLite at `statePath`. */
  databaseUrl?: string;
  /** The SQLite file (default ./.crashprobe/state.db). */
  statePath?: string;
  maxAttempts?: number;
  /** A job's overall time limit, from when it was queued (default 30 minutes). */
  jobTimeoutMs?: number;
  /** Back-off before retry number `attempt` (1-based) when the error names none. */
  retryDelayMs?: (attempt: number) => number;
  /**
   * PostgreSQL: the most of its tenant's cache a job loads (bytes of values), most recently used first;
   * entries past it read as misses (recomputed), so a very large cache costs a bounded load per job.
   */
  cacheLoadBytes?: number;
  /** Tests: a fake clock for leases, back-offs, deadlines and records (both backends; pg-boss only ever starts jobs at once). */
  now?: () => number;
}

export const DEFAULT_JOB_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_MAX_ATTEMPTS = 6;
export const DEFAULT_CACHE_LOAD_BYTES = 32 * 1024 * 1024;
const HOUR_MS = 3_600_000;
export { HOUR_MS };

/** 30 s, 1, 2, 4, 8 min… each with up to +50 % jitter, so retries span a realistic GitHub outage. */
export function defaultRetryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = 30_000 * 2 ** Math.max(0, Math.min(attempt - 1, 6));
  return Math.round(base * (1 + random() / 2));
}
