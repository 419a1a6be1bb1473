import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheKey, envDir, evict, readMeta, repoFolder, withLock, writeMeta } from '../../../src/adapters/env/env-cache.ts';

const cacheRoot = () => mkdtempSync(path.join(os.tmpdir(), 'crashprobe-envs-'));

async function finishedEnv(root: string, repo: string, key: string, bytes: number, usedSecondsAgo: number): Promise<string> {
  const dir = envDir(root, repo, key);
  mkdirSync(dir, { recursive: true });
  await writeMeta(dir, { format: 1, key, repo, python: 'python3 3.11', sources: ['requirements.txt'], bytes, createdAt: new Date().toISOString() });
  const when = new Date(Date.now() - usedSecondsAgo * 1000);
  utimesSync(path.join(dir, 'meta.json'), when, when);
  return dir;
}

describe('env cache', () => {
  it('keys by content: the same parts give the same key, any change another', () => {
    const parts = { sources: [{ path: 'requirements.txt', text: 'tinydep==1.0\n' }], index: 'https://pypi.org/simple/' };
    expect(cacheKey(parts)).toBe(cacheKey(structuredClone(parts)));
    expect(cacheKey(parts)).not.toBe(cacheKey({ ...parts, sources: [{ path: 'requirements.txt', text: 'tinydep==2.0\n' }] }));
    expect(cacheKey(parts)).toMatch(/^[0-9a-f]{32}$/);
  });

  it('gives each repository its own folder that cannot climb out of the cache', () => {
    expect(repoFolder('acme/shop')).not.toBe(repoFolder('acme/Shop'));
    expect(repoFolder('../../etc')).not.toContain('/');
    expect(repoFolder('../../etc').startsWith('.')).toBe(false);
    expect(path.dirname(path.dirname(envDir('/cache', '../x', 'k')))).toBe('/cache');
  });

  it('evicts the least recently used environments until the budget holds, never the one in use, and stale unfinished builds', async () => {
    const root = cacheRoot();
    const oldest = await finishedEnv(root, 'a/one', 'k1', 400, 300);
    const middle = await finishedEnv(root, 'b/two', 'k2', 400, 200);
    const inUse = await finishedEnv(root, 'a/one', 'k3', 400, 500);
    const fresh = await finishedEnv(root, 'a/one', 'k4', 400, 10);
    const unfinished = envDir(root, 'b/two', 'half');
    mkdirSync(unfinished, { recursive: true });
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(unfinished, old, old);

    const removed = await evict(root, 1000, inUse, 60_000);
    expect(removed.map((r) => r.dir).sort()).toEqual([oldest, middle, unfinished].sort());
    expect(existsSync(inUse) && existsSync(fresh)).toBe(true);
    expect(existsSync(oldest) || existsSync(middle) || existsSync(unfinished)).toBe(false);
    expect(await evict(root, 1000, inUse, 60_000)).toEqual([]);
  });

  it('keeps an environment another review took up recently, even over the budget', async () => {
    const root = cacheRoot();
    const idle = await finishedEnv(root, 'a/one', 'k1', 400, 3_600);
    const busy = await finishedEnv(root, 'b/two', 'k2', 400, 60);
    const built = await finishedEnv(root, 'a/one', 'k3', 400, 0);
    const removed = await evict(root, 500, built, 60_000, 10 * 60_000);
    expect(removed.map((r) => r.dir)).toEqual([idle]);
    expect(existsSync(busy)).toBe(true);
  });

  it('keeps an unfinished build that holds its lock', async () => {
    const root = cacheRoot();
    const building = envDir(root, 'a/one', 'busy');
    mkdirSync(building, { recursive: true });
    mkdirSync(`${building}.lock`);
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(building, old, old);
    expect(await evict(root, 0, '/nowhere', 60_000)).toEqual([]);
    expect(existsSync(building)).toBe(true);
  });

  it('reads back only a meta.json of its own format', async () => {
    const dir = cacheRoot();
    expect(await readMeta(dir)).toBeUndefined();
    writeFileSync(path.join(dir, 'meta.json'), '{"format": 99}');
    expect(await readMeta(dir)).toBeUndefined();
  });

  it('runs one build at a time per folder', async () => {
    const dir = path.join(cacheRoot(), 'r', 'k');
    const order: string[] = [];
    const job = (name: string) =>
      withLock(dir, 60_000, async () => {
        order.push(`${name} in`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        order.push(`${name} out`);
      });
    await Promise.all([job('a'), job('b')]);
    // Which build takes the lock first is up to the file system; that they never overlap is the promise.
    const [first, second] = order[0] === 'a in' ? ['a', 'b'] : ['b', 'a'];
    expect(order).toEqual([`${first} in`, `${first} out`, `${second} in`, `${second} out`]);
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });
});
