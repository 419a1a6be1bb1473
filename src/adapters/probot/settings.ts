// Everything the App takes from its environment, read once (by main.ts) into
// one typed object; nothing downstream reads process.env.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { isPostgresUrl } from '../../store/open.ts';
import { readEnvSettings, type EnvSettings } from '../env/settings.ts';

export interface AppSettings {
  appId: number;
  privateKey: string;
  webhookSecret: string;
  port: number;
  host: string;
  webhookPath: string;
  /** GitHub's REST root: api.github.com, or `${GHE_PROTOCOL}://${GHE_HOST}/api/v3`. */
  baseUrl?: string;
  /** The SQLite state file (deliveries, jobs, fingerprints, verdict cache), used unless `databaseUrl` is set. */
  statePath: string;
  /** CRASHPROBE_DATABASE_URL: postgres://… puts the state in PostgreSQL (many replicas and workers); absent: the SQLite file. */
  databaseUrl?: string;
  /** CRASHPROBE_WORKERS (or the older CRASHPROBE_CONCURRENCY): reviews a worker process runs at once (default: the number of cores). */
  workers: number;
  /** CRASHPROBE_GRACE_SECONDS: how long a stop lets running reviews finish before handing them back (default 30 s). */
  graceMs: number;
  /** CRASHPROBE_JOB_TIMEOUT_MINUTES: a review's overall time limit from when it was queued, retries included (default 30). */
  jobTimeoutMs: number;
  /** CRASHPROBE_REVIEWS_PER_HOUR: reviews one installation may queue per hour (default 120). */
  reviewsPerHour: number;
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  /** LOG_FORMAT: `json` (default: one object a line, what a log collector reads) or `pretty` (a terminal). */
  logFormat: 'json' | 'pretty';
  /** CRASHPROBE_LEASE_SECONDS: how soon a dead worker's job is taken over (the heartbeat beats every third of it); absent: the pool's 30 s. */
  leaseMs?: number;
  /** CRASHPROBE_METRICS_PORT: where a worker-only process serves /healthz, /readyz and /metrics; absent: no server. */
  metricsPort?: number;
  /** The interpreter crash runs use: CRASHPROBE_PYTHON, or python3. */
  python: string;
  /** Where bubblewrap is looked for (PATH): without it, pull-request code runs with resource limits only. */
  searchPath: string[];
  /** OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, CRASHPROBE_MODEL: the audit's LLM. Never logged. */
  llmEnv: Record<string, string | undefined>;
  /** Where and how repositories' environments are built (CRASHPROBE_PIP_INDEX_URL, CRASHPROBE_ENV_*); absent: none are built. */
  env?: EnvSettings;
}

export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(`crashprobe cannot start: ${problems.join('; ')}`);
    this.name = 'SettingsError';
  }
}

type Env = Record<string, string | undefined>;

const LLM_VARIABLES = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'CRASHPROBE_MODEL'] as const;

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

export function readSettings(env: Env, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): AppSettings {
  const problems: string[] = [];
  const appId = Number(env.APP_ID);
  if (!env.APP_ID || !Number.isInteger(appId) || appId <= 0) problems.push('APP_ID must be the numeric id of the GitHub App (its settings page shows it)');

  let privateKey = env.PRIVATE_KEY?.replace(/\\n/g, '\n');
  if (!privateKey && env.PRIVATE_KEY_PATH) {
    try {
      privateKey = readFile(env.PRIVATE_KEY_PATH);
    } catch (error) {
      problems.push(`PRIVATE_KEY_PATH ${env.PRIVATE_KEY_PATH} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  if (!privateKey && !env.PRIVATE_KEY_PATH) problems.push('set PRIVATE_KEY (the PEM text) or PRIVATE_KEY_PATH (a .pem file) to the App\'s private key');
  else if (privateKey && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(privateKey)) problems.push('the private key is not PEM: expected "-----BEGIN RSA PRIVATE KEY-----"');

  if (!env.WEBHOOK_SECRET) problems.push('WEBHOOK_SECRET must be the webhook secret set in the App\'s settings');

  const portOf = (name: string, fallback?: number): number | undefined => {
    const port = env[name] ? Number(env[name]) : fallback;
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) problems.push(`${name} must be a port number, not "${env[name]}"`);
    return port;
  };
  const port = portOf('PORT', 3000)!;
  const metricsPort = portOf('CRASHPROBE_METRICS_PORT');

  const leaseSeconds = env.CRASHPROBE_LEASE_SECONDS ? Number(env.CRASHPROBE_LEASE_SECONDS) : undefined;
  if (leaseSeconds !== undefined && (!Number.isFinite(leaseSeconds) || leaseSeconds < 3))
    problems.push(`CRASHPROBE_LEASE_SECONDS must be a number of seconds, 3 or more, not "${env.CRASHPROBE_LEASE_SECONDS}"`);

  const workersName = env.CRASHPROBE_WORKERS ? 'CRASHPROBE_WORKERS' : 'CRASHPROBE_CONCURRENCY';
  const workersText = env.CRASHPROBE_WORKERS || env.CRASHPROBE_CONCURRENCY;
  const workers = workersText ? Number(workersText) : os.availableParallelism();
  if (!Number.isInteger(workers) || workers < 1) problems.push(`${workersName} must be a whole number of 1 or more, not "${workersText}"`);

  const graceSeconds = env.CRASHPROBE_GRACE_SECONDS ? Number(env.CRASHPROBE_GRACE_SECONDS) : 30;
  if (!Number.isFinite(graceSeconds) || graceSeconds < 0) problems.push(`CRASHPROBE_GRACE_SECONDS must be a number of seconds (0 or more), not "${env.CRASHPROBE_GRACE_SECONDS}"`);

  const timeoutMinutes = env.CRASHPROBE_JOB_TIMEOUT_MINUTES ? Number(env.CRASHPROBE_JOB_TIMEOUT_MINUTES) : 30;
  if (!Number.isFinite(timeoutMinutes) || timeoutMinutes <= 0)
    problems.push(`CRASHPROBE_JOB_TIMEOUT_MINUTES must be a number of minutes above 0, not "${env.CRASHPROBE_JOB_TIMEOUT_MINUTES}"`);

  const databaseUrl = env.CRASHPROBE_DATABASE_URL || undefined;
  if (databaseUrl && !isPostgresUrl(databaseUrl))
    problems.push('CRASHPROBE_DATABASE_URL must be a postgres:// or postgresql:// URL (unset it to keep the state in the SQLite file)');

  const reviewsPerHour = env.CRASHPROBE_REVIEWS_PER_HOUR ? Number(env.CRASHPROBE_REVIEWS_PER_HOUR) : 120;
  if (!Number.isInteger(reviewsPerHour) || reviewsPerHour < 1) problems.push(`CRASHPROBE_REVIEWS_PER_HOUR must be a whole number of 1 or more, not "${env.CRASHPROBE_REVIEWS_PER_HOUR}"`);

  const logLevel = (env.LOG_LEVEL ?? 'info') as AppSettings['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const protocol = env.GHE_PROTOCOL || 'https';
  if (protocol !== 'https' && protocol !== 'http') problems.push(`GHE_PROTOCOL must be https or http, not "${protocol}"`);

  const statePath = env.CRASHPROBE_STATE || './.crashprobe/state.db';
  const envSettings = readEnvSettings(env, statePath);
  problems.push(...envSettings.problems);

  if (problems.length) throw new SettingsError(problems);
  return {
    appId,
    privateKey: privateKey!,
    webhookSecret: env.WEBHOOK_SECRET!,
    port,
    host: env.HOST || '0.0.0.0',
    webhookPath: env.WEBHOOK_PATH || '/api/github/webhooks',
    baseUrl: env.GHE_HOST ? `${protocol}://${env.GHE_HOST}/api/v3` : undefined,
    statePath,
    databaseUrl,
    workers,
    graceMs: Math.round(graceSeconds * 1000),
    jobTimeoutMs: Math.round(timeoutMinutes * 60_000),
    reviewsPerHour,
    logLevel,
    logFormat: env.LOG_FORMAT === 'pretty' ? 'pretty' : 'json',
    ...(leaseSeconds !== undefined ? { leaseMs: leaseSeconds * 1000 } : {}),
    ...(metricsPort !== undefined ? { metricsPort } : {}),
    python: env.CRASHPROBE_PYTHON || 'python3',
    searchPath: (env.PATH || '/usr/local/bin:/usr/bin:/bin').split(':'),
    llmEnv: Object.fromEntries(LLM_VARIABLES.map((name) => [name, env[name]])),
    env: envSettings.settings,
  };
}
