// The App's durable state in one SQLite file (WAL): webhook deliveries seen,
// the job queue, fingerprints posted, and the verdict cache behind the core's
// Store port. Synchronous (better-sqlite3); sqlite/sqlite-backend.ts puts it
// behind the async AppBackend that PostgreSQL also implements.
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Store } from '../core/ports.ts';
import type { FingerprintLedger } from './fingerprint-ledger.ts';
import {
  afterConclusionStopped,
  DEFAULT_JOB_TIMEOUT_MS,
  DEFAULT_MAX_ATTEMPTS,
  HOUR_MS,
  JOB_STATUSES,
  defaultRetryDelayMs,
  isRetry,
  jobFromRow,
  timeLimitMessage,
  workerStoppedMessage,
  type JobRow,
  type AdmitResult,
  type FailOptions,
  type Job,
  type JobCounts,
  type JobInput,
  type JobStatus,
  type RateLimit,
} from './backend.ts';

export type { Job, JobStatus, RateLimit } from './backend.ts';

export interface EnqueueResult {
  job: Job;
  /** False when a job with this key was already queued, running or done. */
  created: boolean;
}

export interface StateOptions {
  /** Attempts before a job is marked failed (a crash of the worker counts as one). */
  maxAttempts?: number;
  jobTimeoutMs?: number;
  retryDelayMs?: (attempt: number) => number;
  now?: () => number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS deliveries (
  id TEXT PRIMARY KEY,
  event TEXT NOT NULL,
  received_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL UNIQUE,
  -- Jobs of one lane (a pull request) run one at a time, so two reviews of it never post side by side.
  lane TEXT,
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed', 'cancelled')),
  attempts INTEGER NOT NULL DEFAULT 0,
  owner TEXT,
  lease_until INTEGER,
  run_after INTEGER NOT NULL DEFAULT 0,
  deadline INTEGER NOT NULL DEFAULT 0,
  check_run_id INTEGER,
  last_error TEXT,
  delivery_id TEXT,
  supersedable INTEGER NOT NULL DEFAULT 0,
  final_reason TEXT,
  conclusion_stops INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_ready ON jobs (status, run_after, id);
CREATE INDEX IF NOT EXISTS jobs_lane ON jobs (lane, status);
CREATE TABLE IF NOT EXISTS fingerprints (
  repository TEXT NOT NULL,
  number INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  head_sha TEXT NOT NULL,
  posted_at INTEGER NOT NULL,
  PRIMARY KEY (repository, number, fingerprint)
);
CREATE TABLE IF NOT EXISTS kv (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
`;

const jobsTableSql = (db: Database.Database) =>
  (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'jobs'").get() as { sql: string } | undefined)?.sql;

/**
 * A state file from before issue 14: its jobs table lacks the deadline, the delivery and 'cancelled'; rebuilt in place.
 * One from issue 14 lacks only the count of conclusion runs whose worker stopped: added.
 */
function migrate(db: Database.Database): void {
  const table = jobsTableSql(db);
  if (table?.includes('final_reason') && !table.includes('conclusion_stops')) {
    // Two processes opening one old file: the write lock orders them, the second finds the column there.
    db.transaction(() => {
      if (!jobsTableSql(db)!.includes('conclusion_stops')) db.exec('ALTER TABLE jobs ADD COLUMN conclusion_stops INTEGER NOT NULL DEFAULT 0');
    }).immediate();
    return;
  }
  if (!table || table.includes('final_reason')) return;
  db.transaction(() => {
    db.exec('ALTER TABLE jobs RENAME TO jobs_before_14; DROP INDEX IF EXISTS jobs_ready; DROP INDEX IF EXISTS jobs_lane;');
    db.exec(SCHEMA);
    db.exec(`INSERT INTO jobs (id, key, lane, payload, status, attempts, owner, lease_until, run_after, check_run_id, last_error, created_at, updated_at)
             SELECT id, key, lane, payload, status, attempts, owner, lease_until, run_after, check_run_id, last_error, created_at, updated_at FROM jobs_before_14;
             UPDATE jobs SET deadline = updated_at + ${DEFAULT_JOB_TIMEOUT_MS} WHERE status IN ('pending', 'running');
             DROP TABLE jobs_before_14;`);
  })();
}

/**
 * The state holds every installation's cached verdicts and posted fingerprints: readable by the
 * App's user only (folder 0700 when made here, file 0600; SQLite gives its -wal and -shm files
 * the database file's mode), never by a crash run or another local user.
 */
function createPrivately(file: string): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}

export class CrashprobeState {
  readonly db: Database.Database;
  readonly maxAttempts: number;
  readonly jobTimeoutMs: number;
  private readonly retryDelayMs: (attempt: number) => number;
  private readonly now: () => number;

  constructor(file: string, options: StateOptions = {}) {
    if (file !== ':memory:') createPrivately(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // Another process (a second app instance, or the one being restarted) may hold the write lock briefly.
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('synchronous = NORMAL');
    migrate(this.db);
    this.db.exec(SCHEMA);
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.jobTimeoutMs = options.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS;
    this.retryDelayMs = options.retryDelayMs ?? defaultRetryDelayMs;
    this.now = options.now ?? Date.now;
  }

  close(): void {
    this.db.close();
  }

  /** Records a webhook delivery; false when this X-GitHub-Delivery id was seen before (a redelivery). */
  recordDelivery(id: string, event: string): boolean {
    return this.db.prepare('INSERT OR IGNORE INTO deliveries (id, event, received_at) VALUES (?, ?, ?)').run(id, event, this.now()).changes === 1;
  }

  /** Queues a job unless one with the same key exists (whatever its status): the key makes jobs idempotent. */
  enqueue(key: string, payload: unknown, lane?: string, extra: { deliveryId?: string; supersedable?: boolean } = {}): EnqueueResult {
    const now = this.now();
    const inserted = this.db
      .prepare(
        `INSERT OR IGNORE INTO jobs (key, lane, payload, deadline, delivery_id, supersedable, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(key, lane ?? null, JSON.stringify(payload), now + this.jobTimeoutMs, extra.deliveryId ?? null, extra.supersedable ? 1 : 0, now, now);
    const job = this.jobByKey(key)!;
    return { job, created: inserted.changes === 1 };
  }

  /**
   * A webhook delivery and the job it asks for, in one transaction, so a crash cannot record the
   * delivery without its job: 'duplicate' for a delivery id seen before (nothing is queued),
   * 'exists' when a job with this key is queued, running or done, 'requeued' when it had failed
   * or was cancelled (a failed head must not block a new request), 'queued' otherwise.
   */
  admit(deliveryId: string, event: string, job?: JobInput, limit?: RateLimit): AdmitResult {
    return this.db.transaction((): AdmitResult => {
      if (!this.recordDelivery(deliveryId, event)) return { outcome: 'duplicate', superseded: [] };
      if (!job) return { outcome: 'ignored', superseded: [] };
      const existing = this.jobByKey(job.key);
      if (existing && existing.status !== 'failed' && existing.status !== 'cancelled') return { outcome: 'exists', job: existing, superseded: [] };
      if (!existing && limit && this.jobsOfInstallationSince(limit.installationId, this.now() - HOUR_MS) >= limit.perHour)
        return { outcome: 'rate-limited', superseded: [] };
      const superseded = job.supersedes?.length && job.lane ? this.supersede(job.lane, job.key, job.supersedes) : [];
      if (existing) return { outcome: 'requeued', job: this.requeue(existing.id, deliveryId), superseded };
      const { job: queued } = this.enqueue(job.key, job.payload, job.lane, { deliveryId, supersedable: job.supersedable });
      return { outcome: 'queued', job: queued, superseded };
    }).immediate();
  }

  private supersede(lane: string, byKey: string, keys: readonly string[]): string[] {
    const cancel = this.db.prepare(
      `UPDATE jobs SET status = 'cancelled', last_error = ?, updated_at = ?
       WHERE lane = ? AND key = ? AND key != ? AND status = 'pending' AND supersedable = 1 RETURNING key`,
    );
    return keys.flatMap((key) => (cancel.all(`superseded by ${byKey}`, this.now(), lane, key, byKey) as { key: string }[]).map((row) => row.key));
  }

  private requeue(id: number, deliveryId: string): Job {
    const now = this.now();
    this.db
      .prepare(
        `UPDATE jobs SET status = 'pending', attempts = 0, owner = NULL, lease_until = NULL, run_after = 0, deadline = ?,
           last_error = NULL, final_reason = NULL, conclusion_stops = 0, delivery_id = ?, updated_at = ? WHERE id = ?`,
      )
      .run(now + this.jobTimeoutMs, deliveryId, now, id);
    return this.job(id)!;
  }

  /** Jobs queued for one installation since `since` (ms): what its rate limit counts. */
  jobsOfInstallationSince(installationId: number, since: number): number {
    const row = this.db
      .prepare("SELECT count(*) AS n FROM jobs WHERE created_at >= ? AND json_extract(payload, '$.installationId') = ?")
      .get(since, installationId) as { n: number };
    return row.n;
  }

  jobByKey(key: string): Job | undefined {
    const row = this.db.prepare('SELECT * FROM jobs WHERE key = ?').get(key) as JobRow | undefined;
    return row && jobFromRow(row, this.jobTimeoutMs);
  }

  job(id: number): Job | undefined {
    const row = this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
    return row && jobFromRow(row, this.jobTimeoutMs);
  }

  jobs(status?: JobStatus): Job[] {
    const rows = (status
      ? this.db.prepare('SELECT * FROM jobs WHERE status = ? ORDER BY id').all(status)
      : this.db.prepare('SELECT * FROM jobs ORDER BY id').all()) as JobRow[];
    return rows.map((row) => jobFromRow(row, this.jobTimeoutMs));
  }

  counts(): JobCounts {
    const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as JobCounts;
    for (const row of this.db.prepare('SELECT status, count(*) AS n FROM jobs GROUP BY status').all() as { status: JobStatus; n: number }[])
      counts[row.status] = row.n;
    return counts;
  }

  /**
   * Takes the oldest ready job for `owner` for `leaseMs`: a pending one, or a running one whose lease
   * ran out (its worker died). Jobs that used up their attempts or passed their deadline come back
   * as a conclusion run (finalReason); one whose worker died too is offered again, until
   * MAX_CONCLUSION_RUNS have died (afterConclusionStopped). A job waiting out a back-off does not hold its lane.
   */
  claim(owner: string, leaseMs: number): Job | undefined {
    return this.db.transaction((): Job | undefined => {
      const now = this.now();
      // A conclusion run whose worker died too: offered again at once, or failed once too many have died.
      const stoppedConclusions = this.db
        .prepare(`SELECT final_reason, conclusion_stops, id FROM jobs WHERE final_reason IS NOT NULL AND status = 'running' AND lease_until < ?`)
        .all(now) as (Pick<JobRow, 'final_reason' | 'conclusion_stops'> & { id: number })[];
      const afterStop = this.db.prepare(
        `UPDATE jobs SET status = ?, owner = NULL, lease_until = NULL, run_after = 0, conclusion_stops = ?, last_error = COALESCE(?, last_error), updated_at = ? WHERE id = ?`,
      );
      for (const job of stoppedConclusions) {
        const next = afterConclusionStopped(job);
        afterStop.run(next.status, next.stops, next.error, now, job.id);
      }
      // Out of time, or out of attempts with no worker left to say so: one conclusion run to complete the check run.
      this.db
        .prepare(
          `UPDATE jobs SET status = 'pending', owner = NULL, lease_until = NULL, run_after = 0, final_reason = ?, updated_at = ?
           WHERE final_reason IS NULL AND deadline < ? AND (status = 'pending' OR (status = 'running' AND lease_until < ?))`,
        )
        .run(timeLimitMessage(this.jobTimeoutMs), now, now, now);
      const conclude = this.db.prepare(
        `UPDATE jobs SET status = 'pending', owner = NULL, lease_until = NULL, run_after = 0, final_reason = ?, updated_at = ? WHERE id = ?`,
      );
      const outOfAttempts = this.db
        .prepare(`SELECT id, last_error, attempts FROM jobs WHERE final_reason IS NULL AND status = 'running' AND lease_until < ? AND attempts >= ?`)
        .all(now, this.maxAttempts) as { id: number; last_error: string | null; attempts: number }[];
      for (const job of outOfAttempts) conclude.run(workerStoppedMessage(job.last_error, job.attempts), now, job.id);
      const row = this.db
        .prepare(
          `SELECT * FROM jobs AS candidate
           WHERE ((status = 'pending' AND run_after <= ?) OR (status = 'running' AND lease_until < ?))
             AND (lane IS NULL OR NOT EXISTS (
               SELECT 1 FROM jobs AS busy
               WHERE busy.lane = candidate.lane AND busy.id != candidate.id AND busy.status = 'running' AND busy.lease_until >= ?))
           ORDER BY id LIMIT 1`,
        )
        .get(now, now, now) as JobRow | undefined;
      if (!row) return undefined;
      this.db
        .prepare(`UPDATE jobs SET status = 'running', owner = ?, lease_until = ?, attempts = attempts + 1, updated_at = ? WHERE id = ?`)
        .run(owner, now + leaseMs, now, row.id);
      return this.job(Number(row.id));
    }).immediate();
  }

  /** Extends the lease of a job this owner holds; false when it lost the job (lease ran out and another took it). */
  heartbeat(id: number, owner: string, leaseMs: number): boolean {
    const now = this.now();
    return (
      this.db.prepare(`UPDATE jobs SET lease_until = ?, updated_at = ? WHERE id = ? AND owner = ? AND status = 'running'`).run(now + leaseMs, now, id, owner)
        .changes === 1
    );
  }

  complete(id: number, owner: string): void {
    this.db
      .prepare(
        `UPDATE jobs SET status = 'done', owner = NULL, lease_until = NULL, last_error = NULL, updated_at = ? WHERE id = ? AND owner = ? AND status = 'running'`,
      )
      .run(this.now(), id, owner);
  }

  /**
   * A failed attempt: retried after the back-off while attempts remain, the error is retryable and the
   * retry would start before the deadline; kept as a conclusion run with `concludeLater`; else failed for good.
   */
  fail(id: number, owner: string, error: string, options: FailOptions): JobStatus {
    return this.db.transaction((): JobStatus => {
      const job = this.job(id);
      if (!job || job.owner !== owner || job.status !== 'running') return job?.status ?? 'failed';
      const now = this.now();
      const runAfter = now + (options.retryInMs ?? this.retryDelayMs(job.attempts));
      const again = options.concludeLater !== undefined || isRetry(job, options, runAfter, this.maxAttempts);
      const status: JobStatus = again ? 'pending' : 'failed';
      this.db
        .prepare(
          `UPDATE jobs SET status = ?, owner = NULL, lease_until = NULL, run_after = ?, final_reason = COALESCE(?, final_reason), last_error = ?, updated_at = ? WHERE id = ?`,
        )
        .run(status, runAfter, options.concludeLater ?? null, error, now, id);
      return status;
    }).immediate();
  }

  /** Hands a running job back (graceful stop): pending at once, this attempt not counted. */
  release(id: number, owner: string): void {
    this.db
      .prepare(
        `UPDATE jobs SET status = 'pending', owner = NULL, lease_until = NULL, run_after = 0, attempts = MAX(0, attempts - 1), updated_at = ?
         WHERE id = ? AND owner = ? AND status = 'running'`,
      )
      .run(this.now(), id, owner);
  }

  /** Remembers the check run a job created, so a restarted job completes it instead of creating another. */
  setCheckRun(id: number, checkRunId: number): void {
    this.db.prepare('UPDATE jobs SET check_run_id = ?, updated_at = ? WHERE id = ?').run(checkRunId, this.now(), id);
  }

  /** Forgets deliveries and finished jobs older than `ageMs`: a redelivery that late is a new request. */
  prune(ageMs: number): void {
    const before = this.now() - ageMs;
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM deliveries WHERE received_at < ?').run(before);
      this.db.prepare(`DELETE FROM jobs WHERE status IN ('done', 'failed', 'cancelled') AND updated_at < ?`).run(before);
    })();
  }

  /** The fingerprints crashprobe posted on pull requests, as the GitHub publisher's ledger. */
  readonly fingerprints: FingerprintLedger = {
    posted: (repository, number) =>
      new Set(
        (this.db.prepare('SELECT fingerprint FROM fingerprints WHERE repository = ? AND number = ?').all(repository, number) as { fingerprint: string }[]).map(
          (row) => row.fingerprint,
        ),
      ),
    record: (repository, number, headSha, fingerprints) => {
      const insert = this.db.prepare(
        'INSERT OR IGNORE INTO fingerprints (repository, number, fingerprint, head_sha, posted_at) VALUES (?, ?, ?, ?, ?)',
      );
      this.db.transaction(() => {
        for (const fingerprint of fingerprints) insert.run(repository, number, fingerprint, headSha, this.now());
      })();
    },
  };

  /** The core's verdict cache. */
  readonly verdicts: Store = {
    get: (key) => (this.db.prepare('SELECT value FROM kv WHERE key = ?').get(key) as { value: string } | undefined)?.value,
    set: (key, value) => {
      this.db
        .prepare('INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at')
        .run(key, value, this.now());
    },
  };
}

export function openState(file: string, options?: StateOptions): CrashprobeState {
  return new CrashprobeState(file, options);
}
