import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RetryableError, WorkerPool } from '../../../src/adapters/probot/worker-pool.ts';
import { silentLogger } from '../../../src/core/ports.ts';
import { openState, type CrashprobeState } from '../../../src/store/state.ts';

let dir: string;
let state: CrashprobeState;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-pool-'));
  state = openState(path.join(dir, 'state.db'));
});
afterEach(async () => {
  state.close();
  await rm(dir, { recursive: true, force: true });
});

describe('WorkerPool', () => {
  it('never runs more jobs at once than its concurrency, and runs them all', async () => {
    for (let i = 0; i < 7; i++) state.enqueue(`job-${i}`, {});
    let active = 0;
    let peak = 0;
    const pool = new WorkerPool(
      state,
      async () => {
        active += 1;
        peak = Math.max(peak, active);
        await new Promise((resolve) => setTimeout(resolve, 20));
        active -= 1;
      },
      { concurrency: 3, logger: silentLogger, pollMs: 10 },
    );
    pool.start();
    await pool.idle();
    await pool.stop();
    expect(peak).toBe(3);
    expect(state.jobs('done')).toHaveLength(7);
  });

  it('retries a retryable failure and records a final one', async () => {
    state.enqueue('flaky', {});
    state.enqueue('broken', {});
    const runs: string[] = [];
    const pool = new WorkerPool(
      state,
      async (job) => {
        runs.push(job.key);
        if (job.key === 'flaky' && job.attempts === 1) throw new RetryableError('GitHub 502');
        if (job.key === 'broken') throw new Error('the payload is not a pull request');
      },
      { concurrency: 1, logger: silentLogger, pollMs: 10, retryInMs: () => 0 },
    );
    pool.start();
    const deadline = Date.now() + 5000;
    while (state.jobs('pending').length + state.jobs('running').length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await pool.stop();
    expect(runs.sort()).toEqual(['broken', 'flaky', 'flaky']);
    expect(state.jobByKey('flaky')?.status).toBe('done');
    expect(state.jobByKey('broken')).toMatchObject({ status: 'failed', lastError: 'the payload is not a pull request' });
  });

  it('stops within its grace on SIGTERM though a job is still running, and a new start runs that job again', async () => {
    state.enqueue('slow', {});
    let release: () => void = () => {};
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const pool = new WorkerPool(state, () => blocked, { concurrency: 1, logger: silentLogger, pollMs: 10, owner: 'gone-host:1' });
    pool.start();
    while (state.jobs('running').length === 0) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    await pool.stop(100);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(state.jobByKey('slow')?.status).toBe('running');
    // The next process: the owner is another host's, so its lease decides; a released job runs again.
    const again: string[] = [];
    state.releaseAbandoned(() => false);
    const next = new WorkerPool(state, async (job) => void again.push(job.key), { concurrency: 1, logger: silentLogger, pollMs: 10 });
    next.start();
    await next.idle();
    while (state.jobByKey('slow')?.status !== 'done') await new Promise((r) => setTimeout(r, 5));
    await next.stop();
    release();
    expect(again).toEqual(['slow']);
  });
});
