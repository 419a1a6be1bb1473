// The shared storage promises (backend.contract.ts) on PostgreSQL with pg-boss: a throwaway server
// for this file, a fresh database for each test. Without PostgreSQL this fails, saying how to install it.
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPostgresBackend } from '../../src/store/postgres/postgres-backend.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { backendContract } from './backend.contract.ts';

let server: TestPostgres;
let url: string;
let count = 0;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});
beforeEach(async () => {
  url = await server.database(`contract_${++count}`);
});

backendContract('PostgreSQL', async (options) => openPostgresBackend(url, options));

describe('PostgreSQL cache of a very large tenant', () => {
  it('loads at most cacheLoadBytes per job, most recently used first; a read keeps an entry in, the rest read as misses', async () => {
    let time = 1_000;
    const b = await openPostgresBackend(url, { cacheLoadBytes: 10, now: () => time });
    try {
      const job = async (work: (store: { get(key: string): string | undefined; set(key: string, value: string): void }) => void) => {
        const cache = await b.cacheFor('1/octo/shop');
        work(cache.store);
        await cache.flush();
        time += 1;
      };
      for (const key of ['a', 'b', 'c']) await job((store) => store.set(key, '12345'));
      // Another tenant's entries count against its own budget, never this one's.
      const other = await b.cacheFor('2/octo/other');
      other.store.set('huge', 'x'.repeat(1000));
      await other.flush();
      const seen: Record<string, string | undefined> = {};
      await job((store) => {
        for (const key of ['a', 'b', 'c']) seen[key] = store.get(key);
      });
      // 10 bytes hold the two most recently used entries; the oldest reads as a miss.
      expect(seen).toEqual({ a: undefined, b: '12345', c: '12345' });
      await job((store) => void store.get('b'));
      await job((store) => store.set('d', '12345'));
      await job((store) => {
        for (const key of ['b', 'c', 'd']) seen[key] = store.get(key);
      });
      // b was read after c was last used: b stays in, c drops out.
      expect(seen).toMatchObject({ b: '12345', c: undefined, d: '12345' });
      // An entry bigger than the whole budget is never loaded: recomputed by each job that needs it.
      expect((await b.cacheFor('2/octo/other')).store.get('huge')).toBeUndefined();
    } finally {
      await b.close();
    }
  });
});

describe('PostgreSQL database made before the conclusion-run count and the cache recency', () => {
  it('gains both columns at start, keeping its rows', async () => {
    const made = await openPostgresBackend(url);
    await made.admit('d-1', 'pull_request', { key: 'octo/shop#7@a', payload: {}, lane: 'octo/shop#7' });
    const cache = await made.cacheFor('1/octo/shop');
    cache.store.set('verdict', 'kept');
    await cache.flush();
    await made.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('ALTER TABLE crashprobe.jobs DROP COLUMN conclusion_stops; ALTER TABLE crashprobe.kv DROP COLUMN used_at');
    await client.end();
    const reopened = await openPostgresBackend(url);
    try {
      expect(await reopened.jobByKey('octo/shop#7@a')).toMatchObject({ status: 'pending', conclusionStops: 0 });
      expect((await reopened.cacheFor('1/octo/shop')).store.get('verdict')).toBe('kept');
    } finally {
      await reopened.close();
    }
  });
});
