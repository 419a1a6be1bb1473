// The App's durable state in one SQLite file (WAL): webhook deliveries seen,
// the job queue, fingerprints posted, and the verdict cache behind the core's
// Store port. Survives a restart; a killed worker's job is taken up again.
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Store } from '../core/ports.ts';
import type { FingerprintLedger } from './fingerprint-ledger.ts';

export type JobStatus = 'pending' | 'running' | 'done' | 'failed';

export interface Job {
  id: number;
  /** Idempotency key: one job per key (e.g. owner/repo@headSha) ever runs to completion. */
  key: string;
  lane: string | null;
  payload: string;
  status: JobStatus;
  attempts: number;
  owner: string | null;
  leaseUntil: number | null;
  runAfter: number;
  checkRunId: number | null;
  lastError: string | null;
}

export interface EnqueueResult {
  job: Job;
  /** False when a job with this key was already queued, running or done. */
  created: boolean;
}

export interface StateOptions {
  /** Attempts before a job is marked failed (a crash of the worker counts as one). */
  maxAttempts?: number;
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
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  owner TEXT,
  lease_until INTEGER,
  run_after INTEGER NOT NULL DEFAULT 0,
  check_run_id INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_ready ON jobs (status, run_after, id);
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

interface JobRow {
  id: number;
  key: string;
  lane: string | null;
  payload: string;
  status: JobStatus;
  attempts: number;
  owner: string | null;
  lease_until: number | null;
  run_after: number;
  check_run_id: number | null;
  last_error: string | null;
}

function toJob(row: JobRow): Job {
  return {
    id: row.id,
    key: row.key,
    lane: row.lane,
    payload: row.payload,
    status: row.status,
    attempts: row.attempts,
    owner: row.owner,
    leaseUntil: row.lease_until,
    runAfter: row.run_after,
    checkRunId: row.check_run_id,
    lastError: row.last_error,
  };
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

const HOUR_MS = 3_600_000;

/** Reviews one installation may queue per hour (issue 9, requirement 10): a flood of pushes cannot take the App. */
export interface RateLimit {
  installationId: number;
  perHour: number;
}

export class CrashprobeState {
  readonly db: Database.Database;
  readonly maxAttempts: number;
  private readonly now: () => number;

  constructor(file: string, options: StateOptions = {}) {
    if (file !== ':memory:') createPrivately(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // Another process (a second app instance, or the one being restarted) may hold the write lock briefly.
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    this.maxAttempts = options.maxAttempts ?? 3;
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
  enqueue(key: string, payload: unknown, lane?: string): EnqueueResult {
    const now = this.now();
    const inserted = this.db
      .prepare('INSERT OR IGNORE INTO jobs (key, lane, payload, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
      .run(key, lane ?? null, JSON.stringify(payload), now, now);
    const job = this.jobByKey(key)!;
    return { job, created: inserted.changes === 1 };
  }

  /**
   * A webhook delivery and the job it asks for, in one transaction, so a crash cannot record the
   * delivery without its job: 'duplicate' for a delivery id seen before (nothing is queued),
   * 'exists' when a job with this key was already queued or done, 'queued' otherwise.
   */
  admit(
    deliveryId: string,
    event: string,
    job?: { key: string; payload: unknown; lane?: string },
    limit?: RateLimit,
  ): 'duplicate' | 'exists' | 'queued' | 'ignored' | 'rate-limited' {
    return this.db.transaction(() => {
      if (!this.recordDelivery(deliveryId, event)) return 'duplicate';
      if (!job) return 'ignored';
      if (limit && !this.jobByKey(job.key) && this.jobsOfInstallationSince(limit.installationId, this.now() - HOUR_MS) >= limit.perHour) return 'rate-limited';
      return this.enqueue(job.key, job.payload, job.lane).created ? 'queued' : 'exists';
    }).immediate();
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
    return row && toJob(row);
  }

  job(id: number): Job | undefined {
    const row = this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
    return row && toJob(row);
  }

  jobs(status?: JobStatus): Job[] {
    const rows = (status
      ? this.db.prepare('SELECT * FROM jobs WHERE status = ? ORDER BY id').all(status)
      : this.db.prepare('SELECT * FROM jobs ORDER BY id').all()) as JobRow[];
    return rows.map(toJob);
  }

  /**
   * Takes the oldest ready job for `owner` for `leaseMs`: a pending one, or a running one whose lease
   * ran out (its worker died). Jobs that used up their attempts are marked failed instead.
   */
  claim(owner: string, leaseMs: number): Job | undefined {
    return this.db.transaction((): Job | undefined => {
      const now = this.now();
      this.db
        .prepare(
          `UPDATE jobs SET status = 'failed', owner = NULL, lease_until = NULL, updated_at = ?,
             last_error = COALESCE(last_error, 'its worker stopped ' || attempts || ' time(s) before finishing')
           WHERE status = 'running' AND lease_until < ? AND attempts >= ?`,
        )
        .run(now, now, this.maxAttempts);
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
      return this.job(row.id);
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
      .prepare(`UPDATE jobs SET status = 'done', owner = NULL, lease_until = NULL, last_error = NULL, updated_at = ? WHERE id = ? AND owner = ?`)
      .run(this.now(), id, owner);
  }

  /** A failed attempt: retried after `retryInMs` while attempts remain and the error is retryable, else failed for good. */
  fail(id: number, owner: string, error: string, options: { retryable: boolean; retryInMs?: number }): JobStatus {
    const job = this.job(id);
    if (!job || job.owner !== owner) return job?.status ?? 'failed';
    const status: JobStatus = options.retryable && job.attempts < this.maxAttempts ? 'pending' : 'failed';
    this.db
      .prepare(`UPDATE jobs SET status = ?, owner = NULL, lease_until = NULL, run_after = ?, last_error = ?, updated_at = ? WHERE id = ?`)
      .run(status, this.now() + (options.retryInMs ?? 0), error, this.now(), id);
    return status;
  }

  /** Remembers the check run a job created, so a restarted job completes it instead of creating another. */
  setCheckRun(id: number, checkRunId: number): void {
    this.db.prepare('UPDATE jobs SET check_run_id = ?, updated_at = ? WHERE id = ?').run(checkRunId, this.now(), id);
  }

  /** Running jobs whose owner is known to be dead are made claimable now rather than when their lease runs out. */
  releaseAbandoned(isAlive: (owner: string) => boolean): number {
    const running = this.jobs('running').filter((job) => job.owner && !isAlive(job.owner));
    const expire = this.db.prepare(`UPDATE jobs SET lease_until = 0 WHERE id = ? AND status = 'running'`);
    for (const job of running) expire.run(job.id);
    return running.length;
  }

  /** Forgets deliveries and finished jobs older than `ageMs`: a redelivery that late is a new request. */
  prune(ageMs: number): void {
    const before = this.now() - ageMs;
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM deliveries WHERE received_at < ?').run(before);
      this.db.prepare(`DELETE FROM jobs WHERE status IN ('done', 'failed') AND updated_at < ?`).run(before);
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
