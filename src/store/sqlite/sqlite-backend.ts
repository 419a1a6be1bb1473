// The zero-setup backend: one SQLite file on one machine (several processes may share it; WAL
// and IMMEDIATE transactions serialise their claims). Synchronous underneath, async outside so
// the App codes against one interface for SQLite and PostgreSQL.
import { scopedStore } from '../../core/ports.ts';
import type { AppBackend, BackendOptions, JobCache } from '../backend.ts';
import { openState, type CrashprobeState } from '../state.ts';

export class SqliteBackend implements AppBackend {
  readonly kind = 'sqlite' as const;

  constructor(readonly state: CrashprobeState) {}

  get maxAttempts(): number {
    return this.state.maxAttempts;
  }

  async admit(...args: Parameters<CrashprobeState['admit']>) {
    return this.state.admit(...args);
  }
  async claim(owner: string, leaseMs: number) {
    return this.state.claim(owner, leaseMs);
  }
  async heartbeat(id: number, owner: string, leaseMs: number) {
    return this.state.heartbeat(id, owner, leaseMs);
  }
  async complete(id: number, owner: string) {
    this.state.complete(id, owner);
  }
  async fail(...args: Parameters<CrashprobeState['fail']>) {
    return this.state.fail(...args);
  }
  async release(id: number, owner: string) {
    this.state.release(id, owner);
  }
  async setCheckRun(id: number, checkRunId: number) {
    this.state.setCheckRun(id, checkRunId);
  }
  async job(id: number) {
    return this.state.job(id);
  }
  async jobByKey(key: string) {
    return this.state.jobByKey(key);
  }
  async jobs(...args: Parameters<CrashprobeState['jobs']>) {
    return this.state.jobs(...args);
  }
  async counts() {
    return this.state.counts();
  }

  readonly fingerprints = {
    posted: async (repository: string, number: number) => this.state.fingerprints.posted(repository, number),
    record: async (repository: string, number: number, headSha: string, fingerprints: readonly string[]) =>
      this.state.fingerprints.record(repository, number, headSha, fingerprints),
  };

  /** Writes through: the file is local, so nothing waits for the job's end. */
  async cacheFor(scope: string): Promise<JobCache> {
    return { store: scopedStore(this.state.verdicts, scope), flush: async () => {} };
  }

  async ping(): Promise<void> {
    this.state.db.prepare('SELECT 1').get();
  }
  async prune(ageMs: number) {
    this.state.prune(ageMs);
  }
  async close() {
    if (this.state.db.open) this.state.close();
  }
}

export function openSqliteBackend(file: string, options: BackendOptions = {}): SqliteBackend {
  return new SqliteBackend(
    openState(file, { maxAttempts: options.maxAttempts, jobTimeoutMs: options.jobTimeoutMs, retryDelayMs: options.retryDelayMs, now: options.now }),
  );
}
