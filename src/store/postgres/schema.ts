// crashprobe's own tables in PostgreSQL. pg-boss (its own schema) dispatches the jobs; these
// tables hold what pg-boss does not: deliveries, idempotency keys, lanes, leases with a
// heartbeat, overall deadlines, check runs, fingerprints and the cache.
export const SCHEMA = 'crashprobe';
export const BOSS_SCHEMA = 'crashprobe_boss';
export const QUEUE = 'crashprobe-review';

/**
 * A column added after issue 14, for a database made before it. Checked first: ALTER TABLE would take
 * the table's exclusive lock at every start, waiting behind the other replicas' work.
 */
const addColumn = (table: string, column: string, definition: string) => `
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = '${SCHEMA}' AND table_name = '${table}' AND column_name = '${column}') THEN
    ALTER TABLE ${SCHEMA}.${table} ADD COLUMN ${column} ${definition};
  END IF;
END $$;`;

export const CREATE_TABLES = `
CREATE SCHEMA IF NOT EXISTS ${SCHEMA};
CREATE TABLE IF NOT EXISTS ${SCHEMA}.deliveries (
  id text PRIMARY KEY,
  event text NOT NULL,
  received_at bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.jobs (
  id bigserial PRIMARY KEY,
  key text NOT NULL UNIQUE,
  lane text,
  payload text NOT NULL,
  installation_id bigint,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed', 'cancelled')),
  attempts int NOT NULL DEFAULT 0,
  owner text,
  lease_until bigint,
  run_after bigint NOT NULL DEFAULT 0,
  deadline bigint NOT NULL,
  check_run_id bigint,
  last_error text,
  delivery_id text,
  supersedable boolean NOT NULL DEFAULT false,
  -- Set for a conclusion run (see Job.finalReason in backend.ts).
  final_reason text,
  -- The pg-boss job that dispatches this one; NULL while it waits for its lane to be free.
  boss_id uuid,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
-- Conclusion runs whose worker stopped too (see Job.conclusionStops).
${addColumn('jobs', 'conclusion_stops', 'int NOT NULL DEFAULT 0')}
CREATE INDEX IF NOT EXISTS jobs_lane ON ${SCHEMA}.jobs (lane, status, id);
CREATE INDEX IF NOT EXISTS jobs_status ON ${SCHEMA}.jobs (status, lease_until);
CREATE INDEX IF NOT EXISTS jobs_installation ON ${SCHEMA}.jobs (installation_id, created_at);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.fingerprints (
  repository text NOT NULL,
  number int NOT NULL,
  fingerprint text NOT NULL,
  head_sha text NOT NULL,
  posted_at bigint NOT NULL,
  PRIMARY KEY (repository, number, fingerprint)
);
-- Keys are hex (scopedStore's keys hold NUL, which text cannot); hex keeps a tenant's prefix a prefix.
CREATE TABLE IF NOT EXISTS ${SCHEMA}.kv (
  key text COLLATE "C" PRIMARY KEY,
  value bytea NOT NULL,
  updated_at bigint NOT NULL
);
-- When a job last read or wrote the entry: a job loads its tenant's most recently used entries first (see cacheFor).
${addColumn('kv', 'used_at', 'bigint NOT NULL DEFAULT 0')}
`;
