// Picks the backend from the settings: PostgreSQL for a postgres:// URL (many replicas, many hosts),
// else the SQLite file (one machine, no setup).
import type { AppBackend, BackendOptions } from './backend.ts';
import { openSqliteBackend } from './sqlite/sqlite-backend.ts';

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

export async function openBackend(options: BackendOptions): Promise<AppBackend> {
  if (options.databaseUrl) {
    if (!isPostgresUrl(options.databaseUrl))
      throw new Error('CRASHPROBE_DATABASE_URL must be a postgres:// or postgresql:// URL; leave it unset for the SQLite file.');
    const { openPostgresBackend } = await import('./postgres/postgres-backend.ts');
    return openPostgresBackend(options.databaseUrl, options);
  }
  return openSqliteBackend(options.statePath ?? './.crashprobe/state.db', options);
}
