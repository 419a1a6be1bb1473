// Where built environments live and how long: one folder per repository, one
// environment per hash of its dependency files (and interpreter, index, options),
// shared by every pull request of that repository (never across repositories: a
// PR's install could leave something behind for the next user of the folder).
// The least recently used environments go when the disk budget is exceeded.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

export const ENV_FORMAT = 1;

const metaSchema = z.object({
  format: z.literal(ENV_FORMAT),
  key: z.string(),
  repo: z.string(),
  python: z.string(),
  sources: z.array(z.string()),
  bytes: z.number(),
  createdAt: z.string(),
});
export type EnvMeta = z.infer<typeof metaSchema>;

export function cacheKey(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify({ format: ENV_FORMAT, parts })).digest('hex').slice(0, 32);
}

/** A folder name for a repository that cannot climb out of the cache (owner/name, installation). */
export function repoFolder(repo: string): string {
  const safe = repo.toLowerCase().replace(/[^a-z0-9._-]+/g, '_').replace(/^\.+/, '_').slice(0, 100);
  return `${safe}-${createHash('sha256').update(repo).digest('hex').slice(0, 8)}`;
}

export function envDir(cacheRoot: string, repo: string, key: string): string {
  return path.join(cacheRoot, repoFolder(repo), key);
}

export async function readMeta(dir: string): Promise<EnvMeta | undefined> {
  try {
    const parsed = metaSchema.safeParse(JSON.parse(await readFile(path.join(dir, 'meta.json'), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Written last: an environment without it is a build that did not finish. */
export async function writeMeta(dir: string, meta: EnvMeta): Promise<void> {
  await writeFile(path.join(dir, 'meta.json'), JSON.stringify(meta, null, 2) + '\n', { mode: 0o644 });
}

/** Marks an environment used now (its meta.json's mtime orders eviction). */
export async function touch(dir: string): Promise<void> {
  const now = new Date();
  await utimes(path.join(dir, 'meta.json'), now, now).catch(() => undefined);
}

/** Bytes under a folder, symlinks counted as links (never followed). */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  const stack = [dir];
  while (stack.length) {
    const current = stack.pop()!;
    let entries;
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else total += (await lstat(full).catch(() => ({ size: 0 }))).size;
    }
  }
  return total;
}

export interface Evicted {
  dir: string;
  bytes: number;
}

/**
 * Removes the least recently used environments until the finished ones fit in `budgetBytes`,
 * and unfinished builds older than `staleMs`. `keep` (the one in use) is never removed, nor one
 * taken up within the last `inUseMs`: another review may still be crash-testing with it (the
 * budget is then exceeded for a while rather than an environment pulled from under a run).
 */
export async function evict(cacheRoot: string, budgetBytes: number, keep: string, staleMs: number, inUseMs = 0): Promise<Evicted[]> {
  if (!existsSync(cacheRoot)) return [];
  const envs: { dir: string; bytes: number; used: number }[] = [];
  const removed: Evicted[] = [];
  for (const repo of await readdir(cacheRoot, { withFileTypes: true })) {
    if (!repo.isDirectory()) continue;
    for (const env of await readdir(path.join(cacheRoot, repo.name), { withFileTypes: true })) {
      if (!env.isDirectory()) continue;
      const dir = path.join(cacheRoot, repo.name, env.name);
      if (dir === keep) continue;
      const meta = await readMeta(dir);
      if (!meta) {
        const age = Date.now() - (await stat(dir)).mtimeMs;
        if (age > staleMs && !existsSync(`${dir}.lock`)) {
          await rm(dir, { recursive: true, force: true });
          removed.push({ dir, bytes: 0 });
        }
        continue;
      }
      envs.push({ dir, bytes: meta.bytes, used: (await stat(path.join(dir, 'meta.json'))).mtimeMs });
    }
  }
  const keepMeta = await readMeta(keep);
  let total = envs.reduce((n, e) => n + e.bytes, keepMeta?.bytes ?? 0);
  const recent = Date.now() - inUseMs;
  for (const env of envs.sort((a, b) => a.used - b.used)) {
    if (total <= budgetBytes) break;
    if (env.used > recent) continue;
    await rm(env.dir, { recursive: true, force: true });
    total -= env.bytes;
    removed.push({ dir: env.dir, bytes: env.bytes });
  }
  return removed;
}

/** A lock between processes: a folder made with mkdir (atomic); one older than `staleMs` is taken over. */
export async function withLock<T>(dir: string, staleMs: number, fn: () => Promise<T>): Promise<T> {
  const lock = `${dir}.lock`;
  await mkdir(path.dirname(lock), { recursive: true, mode: 0o700 });
  for (let attempt = 0; ; attempt += 1) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (age > staleMs) await rm(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 100 * (attempt + 1))));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
