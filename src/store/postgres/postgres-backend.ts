// The backend for many web replicas and workers on many hosts: PostgreSQL through `pg`, the jobs
// dispatched by pg-boss (SKIP LOCKED fetch across hosts, cancel, retention). pg-boss 10 has no
// heartbeat and its singleton policy stalls the whole queue behind a busy key, so lanes, leases,
// back-offs and deadlines are kept in crashprobe.jobs: a job gets its pg-boss job only when it is
// ready and its lane is free (at most one dispatched job per lane; a job waiting out a back-off
// is not dispatched, so it never holds its lane, as on SQLite), and every change of a lane happens
// under that lane's advisory lock, in one transaction with the pg-boss call.
import pg from 'pg';
import PgBoss from 'pg-boss';
import { scopedStore, type Store } from '../../core/ports.ts';
import {
  afterConclusionStopped,
  DEFAULT_CACHE_LOAD_BYTES,
  DEFAULT_JOB_TIMEOUT_MS,
  DEFAULT_MAX_ATTEMPTS,
  HOUR_MS,
  JOB_STATUSES,
  defaultRetryDelayMs,
  isRetry,
  jobFromRow,
  timeLimitMessage,
  workerStoppedMessage,
  type JobRow as SharedJobRow,
  type AdmitResult,
  type AppBackend,
  type BackendOptions,
  type FailOptions,
  type Job,
  type JobCache,
  type JobCounts,
  type JobInput,
  type JobStatus,
  type RateLimit,
} from '../backend.ts';
import { BOSS_SCHEMA, CREATE_TABLES, QUEUE, SCHEMA } from './schema.ts';

type Client = pg.PoolClient;

interface JobRow extends SharedJobRow {
  boss_id: string | null;
}

const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');

/** The key prefix scopedStore gives a scope, learnt from scopedStore itself so the two never drift apart. */
function prefixOf(scope: string): string {
  let seen = '';
  scopedStore({ get: (key) => ((seen = key), undefined), set: () => {} }, scope).get('');
  return seen;
}

export class PostgresBackend implements AppBackend {
  readonly kind = 'postgres' as const;
  readonly maxAttempts: number;
  private readonly jobTimeoutMs: number;
  private readonly retryDelayMs: (attempt: number) => number;
  private readonly now: () => number;
  private readonly cacheLoadBytes: number;
  private orphansCheckedAt = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly boss: PgBoss,
    options: BackendOptions,
  ) {
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.jobTimeoutMs = options.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS;
    this.retryDelayMs = options.retryDelayMs ?? defaultRetryDelayMs;
    this.now = options.now ?? Date.now;
    this.cacheLoadBytes = options.cacheLoadBytes ?? DEFAULT_CACHE_LOAD_BYTES;
  }

  private async transaction<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** pg-boss runs its statement on our client, inside our transaction. */
  private static db(client: Client): PgBoss.Db {
    return { executeSql: (text, values) => client.query(text, values) };
  }

  private static async lockLane(client: Client, lane: string | null): Promise<void> {
    if (lane !== null) await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`crashprobe lane ${lane}`]);
  }

  /**
   * Gives the lane's oldest ready pending job its pg-boss job when nothing of the lane is dispatched
   * or running (a job without a lane: that job, when ready). A job still waiting out its back-off is
   * left for `dispatchReady` once its wait ends: dispatched early, it would hold its lane meanwhile.
   */
  private async dispatch(client: Client, lane: string | null, jobId?: number): Promise<void> {
    const now = this.now();
    let row: JobRow | undefined;
    if (lane === null) {
      row = (
        await client.query<JobRow>(`SELECT * FROM ${SCHEMA}.jobs WHERE id = $1 AND status = 'pending' AND boss_id IS NULL AND run_after <= $2 FOR UPDATE`, [
          jobId,
          now,
        ])
      ).rows[0];
    } else {
      const busy = await client.query(
        `SELECT 1 FROM ${SCHEMA}.jobs WHERE lane = $1 AND (status = 'running' OR (status = 'pending' AND boss_id IS NOT NULL)) LIMIT 1`,
        [lane],
      );
      if (busy.rowCount) return;
      row = (
        await client.query<JobRow>(`SELECT * FROM ${SCHEMA}.jobs WHERE lane = $1 AND status = 'pending' AND run_after <= $2 ORDER BY id LIMIT 1`, [lane, now])
      ).rows[0];
    }
    if (!row) return;
    const bossId = await this.boss.send(
      QUEUE,
      { jobId: Number(row.id) },
      {
        db: PostgresBackend.db(client),
        // Retries, back-offs and expiry are crashprobe's (lease, run_after, deadline): pg-boss starts it now and never re-dispatches on its own.
        retryLimit: 0,
        expireInSeconds: Math.ceil(this.jobTimeoutMs / 1000) + 3600,
      },
    );
    await client.query(`UPDATE ${SCHEMA}.jobs SET boss_id = $2, updated_at = $3 WHERE id = $1`, [row.id, bossId, this.now()]);
  }

  async admit(deliveryId: string, event: string, job?: JobInput, limit?: RateLimit): Promise<AdmitResult> {
    return this.transaction(async (client) => {
      const now = this.now();
      const delivery = await client.query(`INSERT INTO ${SCHEMA}.deliveries (id, event, received_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
        deliveryId,
        event,
        now,
      ]);
      if (delivery.rowCount !== 1) return { outcome: 'duplicate', superseded: [] };
      if (!job) return { outcome: 'ignored', superseded: [] };
      const lane = job.lane ?? null;
      await PostgresBackend.lockLane(client, lane);
      // Two replicas admitting the same key at once: the key's lock orders them.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`crashprobe key ${job.key}`]);
      const existing = (await client.query<JobRow>(`SELECT * FROM ${SCHEMA}.jobs WHERE key = $1`, [job.key])).rows[0];
      if (existing && existing.status !== 'failed' && existing.status !== 'cancelled') return { outcome: 'exists', job: jobFromRow(existing, this.jobTimeoutMs), superseded: [] };
      if (!existing && limit) {
        const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${SCHEMA}.jobs WHERE installation_id = $1 AND created_at >= $2`, [
          limit.installationId,
          now - HOUR_MS,
        ]);
        if (Number(rows[0]!.n) >= limit.perHour) return { outcome: 'rate-limited', superseded: [] };
      }
      const superseded: string[] = [];
      if (job.supersedes?.length && lane !== null) {
        const cancelled = await client.query<{ key: string; boss_id: string | null }>(
          `UPDATE ${SCHEMA}.jobs SET status = 'cancelled', last_error = $3, updated_at = $4
           WHERE lane = $1 AND key != $2 AND key = ANY($5::text[]) AND status = 'pending' AND supersedable RETURNING key, boss_id`,
          [lane, job.key, `superseded by ${job.key}`, now, [...job.supersedes]],
        );
        const bossIds = cancelled.rows.flatMap((row) => (row.boss_id ? [row.boss_id] : []));
        if (bossIds.length) await this.boss.cancel(QUEUE, bossIds, { db: PostgresBackend.db(client) });
        superseded.push(...cancelled.rows.map((row) => row.key));
      }
      let row: JobRow;
      if (existing) {
        row = (
          await client.query<JobRow>(
            `UPDATE ${SCHEMA}.jobs SET status = 'pending', attempts = 0, owner = NULL, lease_until = NULL, run_after = 0, deadline = $2,
               last_error = NULL, final_reason = NULL, conclusion_stops = 0, delivery_id = $3, boss_id = NULL, updated_at = $4 WHERE id = $1 RETURNING *`,
            [existing.id, now + this.jobTimeoutMs, deliveryId, now],
          )
        ).rows[0]!;
      } else {
        const installationId = (job.payload as { installationId?: unknown } | null)?.installationId;
        row = (
          await client.query<JobRow>(
            `INSERT INTO ${SCHEMA}.jobs (key, lane, payload, installation_id, deadline, delivery_id, supersedable, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING *`,
            [job.key, lane, JSON.stringify(job.payload), typeof installationId === 'number' ? installationId : null, now + this.jobTimeoutMs, deliveryId, Boolean(job.supersedable), now],
          )
        ).rows[0]!;
      }
      await this.dispatch(client, lane, Number(row.id));
      const admitted = (await client.query<JobRow>(`SELECT * FROM ${SCHEMA}.jobs WHERE id = $1`, [row.id])).rows[0]!;
      return { outcome: existing ? 'requeued' : 'queued', job: jobFromRow(admitted, this.jobTimeoutMs), superseded };
    });
  }

  /**
   * Jobs whose worker stopped heartbeating, and jobs past their deadline: taken over; out of attempts
   * or time, given back as a conclusion run (finalReason); a conclusion run whose worker died too:
   * offered again until MAX_CONCLUSION_RUNS have died, then failed (afterConclusionStopped).
   */
  private async reap(): Promise<void> {
    const now = this.now();
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT id FROM ${SCHEMA}.jobs WHERE (status = 'running' AND lease_until < $1) OR (status = 'pending' AND deadline < $1 AND final_reason IS NULL)`,
      [now],
    );
    for (const { id } of rows) {
      await this.transaction(async (client) => {
        const lane = (await client.query<{ lane: string | null }>(`SELECT lane FROM ${SCHEMA}.jobs WHERE id = $1`, [id])).rows[0]?.lane ?? null;
        await PostgresBackend.lockLane(client, lane);
        const job = (await client.query<JobRow>(`SELECT * FROM ${SCHEMA}.jobs WHERE id = $1 FOR UPDATE`, [id])).rows[0];
        if (!job) return;
        const expired = job.status === 'running' && Number(job.lease_until) < now;
        const late = job.final_reason === null && Number(job.deadline) < now && (job.status === 'pending' || expired);
        if (!late && !expired) return;
        if (job.final_reason !== null) {
          const next = afterConclusionStopped(job);
          await client.query(`UPDATE ${SCHEMA}.jobs SET conclusion_stops = $2 WHERE id = $1`, [id, next.stops]);
          if (next.status === 'failed') await this.finish(client, job, 'failed', next.error);
          else await this.offerAgain(client, job, null);
        } else {
          const finalReason = late
            ? timeLimitMessage(this.jobTimeoutMs)
            : job.attempts >= this.maxAttempts
              ? workerStoppedMessage(job.last_error, job.attempts)
              : null;
          await this.offerAgain(client, job, finalReason);
        }
        await this.dispatch(client, job.lane, Number(job.id));
      });
    }
    await this.dispatchReady();
  }

  /** Taken over (or given to a conclusion run): the attempt's pg-boss job is done with; a fresh one dispatches it now. */
  private async offerAgain(client: Client, job: JobRow, finalReason: string | null): Promise<void> {
    await client.query(
      `UPDATE ${SCHEMA}.jobs SET status = 'pending', owner = NULL, lease_until = NULL, run_after = 0, boss_id = NULL,
         final_reason = COALESCE($3, final_reason), updated_at = $2 WHERE id = $1`,
      [job.id, this.now(), finalReason],
    );
    const db = PostgresBackend.db(client);
    if (job.boss_id && job.status === 'running') await this.boss.complete(QUEUE, job.boss_id, { db });
    else if (job.boss_id) await this.boss.cancel(QUEUE, job.boss_id, { db });
  }

  /** Jobs whose back-off ended, in lanes that are free: dispatched (nothing else wakes them; see `dispatch`). */
  private async dispatchReady(): Promise<void> {
    const { rows } = await this.pool.query<{ id: string; lane: string | null }>(
      `SELECT DISTINCT ON (COALESCE(lane, id::text)) id, lane FROM ${SCHEMA}.jobs AS ready
       WHERE status = 'pending' AND boss_id IS NULL AND run_after <= $1
         AND (lane IS NULL OR NOT EXISTS (
           SELECT 1 FROM ${SCHEMA}.jobs AS busy
           WHERE busy.lane = ready.lane AND (busy.status = 'running' OR (busy.status = 'pending' AND busy.boss_id IS NOT NULL))))
       ORDER BY COALESCE(lane, id::text), id LIMIT 100`,
      [this.now()],
    );
    for (const { id, lane } of rows)
      await this.transaction(async (client) => {
        await PostgresBackend.lockLane(client, lane);
        await this.dispatch(client, lane, Number(id));
      });
  }

  /** A job ends (done, failed): its pg-boss job too, in the same transaction. */
  private async finish(client: Client, job: JobRow, status: 'done' | 'failed', error: string | null): Promise<void> {
    await client.query(`UPDATE ${SCHEMA}.jobs SET status = $2, owner = NULL, lease_until = NULL, last_error = $3, updated_at = $4 WHERE id = $1`, [
      job.id,
      status,
      error,
      this.now(),
    ]);
    if (!job.boss_id) return;
    const db = PostgresBackend.db(client);
    if (status === 'done') await this.boss.complete(QUEUE, job.boss_id, { db });
    else if (job.status === 'pending') await this.boss.cancel(QUEUE, job.boss_id, { db });
    else await this.boss.fail(QUEUE, job.boss_id, { error }, { db });
  }

  /**
   * A process that died between pg-boss's fetch and our claim leaves a pending job whose pg-boss job is
   * active: it would hold its lane for ever. Such jobs (pending a minute after dispatch) are dispatched again.
   */
  private async redispatchOrphans(): Promise<void> {
    const { rows } = await this.pool.query<JobRow>(
      `SELECT * FROM ${SCHEMA}.jobs WHERE status = 'pending' AND boss_id IS NOT NULL AND updated_at < $1 AND run_after < $1 ORDER BY id LIMIT 20`,
      [this.now() - 60_000],
    );
    for (const job of rows) {
      const dispatched = await this.boss.getJobById(QUEUE, job.boss_id!);
      if (dispatched && dispatched.state !== 'active') continue;
      await this.transaction(async (client) => {
        await PostgresBackend.lockLane(client, job.lane);
        const taken = await client.query(`UPDATE ${SCHEMA}.jobs SET boss_id = NULL, updated_at = $3 WHERE id = $1 AND boss_id = $2 AND status = 'pending'`, [
          job.id,
          job.boss_id,
          this.now(),
        ]);
        if (!taken.rowCount) return;
        if (dispatched) await this.boss.complete(QUEUE, job.boss_id!, { db: PostgresBackend.db(client) });
        await this.dispatch(client, job.lane, Number(job.id));
      });
    }
  }

  async claim(owner: string, leaseMs: number): Promise<Job | undefined> {
    await this.reap();
    if (this.now() - this.orphansCheckedAt > 30_000) {
      this.orphansCheckedAt = this.now();
      await this.redispatchOrphans();
    }
    // A fetched pg-boss job may be stale (its job was cancelled or taken over meanwhile): skip it and fetch again.
    for (let tries = 0; tries < 5; tries++) {
      const [dispatched] = await this.boss.fetch<{ jobId: number }>(QUEUE, { batchSize: 1 });
      if (!dispatched) return undefined;
      const claimed = await this.transaction(async (client) => {
        const now = this.now();
        const { rows } = await client.query<JobRow>(
          `UPDATE ${SCHEMA}.jobs SET status = 'running', owner = $3, lease_until = $4, attempts = attempts + 1, updated_at = $5
           WHERE id = $1 AND boss_id = $2 AND status = 'pending' RETURNING *`,
          [dispatched.data.jobId, dispatched.id, owner, now + leaseMs, now],
        );
        if (!rows[0]) await this.boss.complete(QUEUE, dispatched.id, { db: PostgresBackend.db(client) });
        return rows[0] && jobFromRow(rows[0], this.jobTimeoutMs);
      });
      if (claimed) return claimed;
    }
    return undefined;
  }

  async heartbeat(id: number, owner: string, leaseMs: number): Promise<boolean> {
    const now = this.now();
    const result = await this.pool.query(
      `UPDATE ${SCHEMA}.jobs SET lease_until = $3, updated_at = $4 WHERE id = $1 AND owner = $2 AND status = 'running'`,
      [id, owner, now + leaseMs, now],
    );
    return result.rowCount === 1;
  }

  /** Runs `work` on the job while this owner still holds it, under its lane's lock; then dispatches the lane's next job. */
  private async whileHeld<T>(id: number, owner: string, work: (client: Client, job: JobRow) => Promise<T>): Promise<T | undefined> {
    return this.transaction(async (client) => {
      const lane = (await client.query<{ lane: string | null }>(`SELECT lane FROM ${SCHEMA}.jobs WHERE id = $1`, [id])).rows[0];
      if (!lane) return undefined;
      await PostgresBackend.lockLane(client, lane.lane);
      const job = (await client.query<JobRow>(`SELECT * FROM ${SCHEMA}.jobs WHERE id = $1 FOR UPDATE`, [id])).rows[0];
      if (!job || job.owner !== owner || job.status !== 'running') return undefined;
      const result = await work(client, job);
      await this.dispatch(client, job.lane, Number(job.id));
      return result;
    });
  }

  async complete(id: number, owner: string): Promise<void> {
    await this.whileHeld(id, owner, (client, job) => this.finish(client, job, 'done', null));
  }

  async fail(id: number, owner: string, error: string, options: FailOptions): Promise<JobStatus> {
    const status = await this.whileHeld(id, owner, async (client, job): Promise<JobStatus> => {
      const now = this.now();
      const runAfter = now + (options.retryInMs ?? this.retryDelayMs(job.attempts));
      if (options.concludeLater !== undefined || isRetry(jobFromRow(job, this.jobTimeoutMs), options, runAfter, this.maxAttempts)) {
        await client.query(
          `UPDATE ${SCHEMA}.jobs SET status = 'pending', owner = NULL, lease_until = NULL, run_after = $2, final_reason = COALESCE($3, final_reason), last_error = $4, boss_id = NULL, updated_at = $5 WHERE id = $1`,
          [id, runAfter, options.concludeLater ?? null, error, now],
        );
        if (job.boss_id) await this.boss.complete(QUEUE, job.boss_id, { db: PostgresBackend.db(client) });
        return 'pending';
      }
      await this.finish(client, job, 'failed', error);
      return 'failed';
    });
    return status ?? (await this.job(id))?.status ?? 'failed';
  }

  async release(id: number, owner: string): Promise<void> {
    await this.whileHeld(id, owner, async (client, job) => {
      await client.query(
        `UPDATE ${SCHEMA}.jobs SET status = 'pending', owner = NULL, lease_until = NULL, run_after = 0, attempts = GREATEST(0, attempts - 1), boss_id = NULL, updated_at = $2 WHERE id = $1`,
        [id, this.now()],
      );
      if (job.boss_id) await this.boss.complete(QUEUE, job.boss_id, { db: PostgresBackend.db(client) });
    });
  }

  async setCheckRun(id: number, checkRunId: number): Promise<void> {
    await this.pool.query(`UPDATE ${SCHEMA}.jobs SET check_run_id = $2, updated_at = $3 WHERE id = $1`, [id, checkRunId, this.now()]);
  }

  async job(id: number): Promise<Job | undefined> {
    const { rows } = await this.pool.query<JobRow>(`SELECT * FROM ${SCHEMA}.jobs WHERE id = $1`, [id]);
    return rows[0] && jobFromRow(rows[0], this.jobTimeoutMs);
  }

  async jobByKey(key: string): Promise<Job | undefined> {
    const { rows } = await this.pool.query<JobRow>(`SELECT * FROM ${SCHEMA}.jobs WHERE key = $1`, [key]);
    return rows[0] && jobFromRow(rows[0], this.jobTimeoutMs);
  }

  async jobs(status?: JobStatus): Promise<Job[]> {
    const { rows } = status
      ? await this.pool.query<JobRow>(`SELECT * FROM ${SCHEMA}.jobs WHERE status = $1 ORDER BY id`, [status])
      : await this.pool.query<JobRow>(`SELECT * FROM ${SCHEMA}.jobs ORDER BY id`);
    return rows.map((row) => jobFromRow(row, this.jobTimeoutMs));
  }

  async counts(): Promise<JobCounts> {
    const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as JobCounts;
    const { rows } = await this.pool.query<{ status: JobStatus; n: string }>(`SELECT status, count(*) AS n FROM ${SCHEMA}.jobs GROUP BY status`);
    for (const row of rows) counts[row.status] = Number(row.n);
    return counts;
  }

  readonly fingerprints = {
    posted: async (repository: string, number: number): Promise<Set<string>> => {
      const { rows } = await this.pool.query<{ fingerprint: string }>(`SELECT fingerprint FROM ${SCHEMA}.fingerprints WHERE repository = $1 AND number = $2`, [
        repository,
        number,
      ]);
      return new Set(rows.map((row) => row.fingerprint));
    },
    record: async (repository: string, number: number, headSha: string, fingerprints: readonly string[]): Promise<void> => {
      if (!fingerprints.length) return;
      await this.pool.query(
        `INSERT INTO ${SCHEMA}.fingerprints (repository, number, fingerprint, head_sha, posted_at)
         SELECT $1, $2, fingerprint, $3, $4 FROM unnest($5::text[]) AS fingerprint ON CONFLICT DO NOTHING`,
        [repository, number, headSha, this.now(), fingerprints],
      );
    },
  };

  /**
   * The core's Store port is synchronous: the tenant's most recently used entries, up to
   * `cacheLoadBytes` of values, are loaded when the job starts; the ones it set are written back, and
   * the ones it read marked used, by `flush` when it ends (write-behind per job). Past the budget an
   * entry reads as a miss. It is a cache: a miss or a write lost to a crash only costs a re-run of
   * that scenario or LLM call. Partial: true loading on demand needs an async Store port in the core.
   */
  async cacheFor(scope: string): Promise<JobCache> {
    const prefix = prefixOf(scope);
    // Sizes first, values only for the keys within the budget: a huge tenant's values are never all read.
    const { rows } = await this.pool.query<{ key: string; value: Buffer }>(
      `SELECT kv.key, kv.value FROM ${SCHEMA}.kv AS kv JOIN (
         SELECT key, sum(octet_length(value)) OVER (ORDER BY used_at DESC, key) AS loaded FROM ${SCHEMA}.kv WHERE key LIKE $1
       ) AS recent ON recent.key = kv.key WHERE recent.loaded <= $2`,
      [`${hex(prefix)}%`, this.cacheLoadBytes],
    );
    const entries = new Map(rows.map((row) => [Buffer.from(row.key, 'hex').toString('utf8'), row.value.toString('utf8')]));
    const changed = new Map<string, string>();
    const read = new Set<string>();
    const inner: Store = {
      get: (key) => {
        const value = entries.get(key);
        if (value !== undefined) read.add(key);
        return value;
      },
      set: (key, value) => {
        entries.set(key, value);
        changed.set(key, value);
      },
    };
    return {
      store: scopedStore(inner, scope),
      flush: async () => {
        const now = this.now();
        const keys = [...changed.keys()];
        const used = [...read].filter((key) => !changed.has(key));
        if (keys.length)
          await this.pool.query(
            `INSERT INTO ${SCHEMA}.kv (key, value, updated_at, used_at)
             SELECT key, decode(value, 'hex'), $3, $3 FROM unnest($1::text[], $2::text[]) AS entry(key, value)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, used_at = excluded.used_at`,
            [keys.map(hex), keys.map((key) => hex(changed.get(key)!)), now],
          );
        if (used.length) await this.pool.query(`UPDATE ${SCHEMA}.kv SET used_at = $2 WHERE key = ANY($1::text[])`, [used.map(hex), now]);
        changed.clear();
        read.clear();
      },
    };
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async prune(ageMs: number): Promise<void> {
    const before = this.now() - ageMs;
    await this.pool.query(`DELETE FROM ${SCHEMA}.deliveries WHERE received_at < $1`, [before]);
    await this.pool.query(`DELETE FROM ${SCHEMA}.jobs WHERE status IN ('done', 'failed', 'cancelled') AND updated_at < $1`, [before]);
  }

  async close(): Promise<void> {
    await this.boss.stop({ graceful: false, wait: true });
    await this.pool.end().catch(() => undefined);
  }
}

export async function openPostgresBackend(url: string, options: BackendOptions = {}): Promise<PostgresBackend> {
  // Idle connections are kept (idleTimeoutMillis 0): a webhook after a quiet spell gets one at once.
  const pool = new pg.Pool({ connectionString: url, max: 10, idleTimeoutMillis: 0 });
  // An idle client's error (the server restarted) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      // Replicas starting together: one creates the tables, the others wait for it.
      await client.query("SELECT pg_advisory_xact_lock(hashtext('crashprobe schema'))");
      await client.query(CREATE_TABLES);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new Error(`crashprobe cannot reach PostgreSQL at CRASHPROBE_DATABASE_URL (${(error as Error).message}): check the URL, the server and the credentials.`);
  }
  const boss = new PgBoss({ connectionString: url, schema: BOSS_SCHEMA, max: 4, application_name: 'crashprobe' });
  boss.on('error', () => undefined);
  await boss.start();
  await boss.createQueue(QUEUE, { name: QUEUE, policy: 'standard', retryLimit: 0 });
  await warmUp(pool, WARM_CONNECTIONS);
  return new PostgresBackend(pool, boss, options);
}

/** Connections opened at start: the first burst of webhooks must not wait for TCP + authentication (measured: up to 1.5 s). */
const WARM_CONNECTIONS = 4;

async function warmUp(pool: pg.Pool, count: number): Promise<void> {
  const clients = await Promise.all(Array.from({ length: count }, () => pool.connect()));
  for (const client of clients) client.release();
}
