// The App's settings for building environments, read from the deployment's
// environment (never from a repository's config, which a pull request controls).
import path from 'node:path';

export interface EnvSettings {
  /** Where environments are kept: CRASHPROBE_ENV_DIR, default `envs/` beside the state file. */
  cacheDir: string;
  /** The package index (PEP 503 simple API): CRASHPROBE_PIP_INDEX_URL, default PyPI. */
  indexUrl: string;
  /** Other host[:port]s the index's files come from (CRASHPROBE_PIP_FILES_HOSTS, comma-separated). PyPI's files host is added by itself. */
  extraHosts: string[];
  timeoutMs: number;
  /** One environment at most (CRASHPROBE_ENV_MAX_MB, default 1024). */
  maxEnvBytes: number;
  /** All environments together (CRASHPROBE_ENV_BUDGET_MB, default 10240): the least recently used go first. */
  budgetBytes: number;
  /** The install sandbox's /tmp (a tmpfs: memory). */
  tmpBytes: number;
  /** Address-space limit of the install's processes. */
  memoryBytes: number;
  /** CRASHPROBE_ENV_INSTALLER: `auto` (uv when it is on the App's PATH, else pip), `pip` or `uv`. */
  installer: 'auto' | 'pip' | 'uv';
}

export const DEFAULT_INDEX_URL = 'https://pypi.org/simple';

const MB = 1024 * 1024;

export function readEnvSettings(env: Readonly<Record<string, string | undefined>>, statePath: string): { settings: EnvSettings; problems: string[] } {
  const problems: string[] = [];
  const number = (name: string, fallback: number, min: number): number => {
    const raw = env[name];
    if (!raw) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min) {
      problems.push(`${name} must be a number of at least ${min}, not "${raw}"`);
      return fallback;
    }
    return value;
  };
  const indexUrl = env.CRASHPROBE_PIP_INDEX_URL || DEFAULT_INDEX_URL;
  try {
    const url = new URL(indexUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not http(s)');
    if (url.username || url.password) problems.push('CRASHPROBE_PIP_INDEX_URL must not carry credentials (the install sandbox would see them)');
  } catch {
    problems.push(`CRASHPROBE_PIP_INDEX_URL must be an http(s) URL of a PEP 503 simple index, not "${indexUrl}"`);
  }
  const installer = env.CRASHPROBE_ENV_INSTALLER || 'auto';
  if (installer !== 'auto' && installer !== 'pip' && installer !== 'uv') problems.push(`CRASHPROBE_ENV_INSTALLER must be auto, pip or uv, not "${installer}"`);
  return {
    settings: {
      cacheDir: path.resolve(env.CRASHPROBE_ENV_DIR || path.join(path.dirname(statePath), 'envs')),
      indexUrl: indexUrl.replace(/\/*$/, '/'),
      extraHosts: (env.CRASHPROBE_PIP_FILES_HOSTS ?? '').split(',').map((h) => h.trim()).filter(Boolean),
      timeoutMs: number('CRASHPROBE_ENV_TIMEOUT_SECONDS', 300, 10) * 1000,
      maxEnvBytes: number('CRASHPROBE_ENV_MAX_MB', 1024, 16) * MB,
      budgetBytes: number('CRASHPROBE_ENV_BUDGET_MB', 10240, 16) * MB,
      tmpBytes: 512 * MB,
      memoryBytes: 4096 * MB,
      installer: installer === 'pip' || installer === 'uv' ? installer : 'auto',
    },
    problems,
  };
}
