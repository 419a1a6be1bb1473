import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState, type CrashprobeState } from '../../src/store/state.ts';

let dir: string;
let file: string;
let clock: number;
let state: CrashprobeState;
const now = () => clock;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-state-'));
  file = path.join(dir, 'nested', 'state.db');
  clock = 1_000_000;
  state = openState(file, { now, maxAttempts: 2 });
});
afterEach(async () => {
  state.close();
  await rm(dir, { recursive: true, force: true });
});

describe('state file', () => {
  it('uses WAL and keeps everything across a reopen', () => {
    expect(state.db.pragma('journal_mode', { simple: true })).toBe('wal');
    state.recordDelivery('d-1', 'pull_request');
    state.enqueue('octo/shop#7@abc', { n: 1 });
    state.verdicts.set('v', '{"ok":true}');
    state.fingerprints.record('octo/shop', 7, 'abc', ['fp-1', 'fp-2']);
    state.close();
    state = openState(file, { now });
    expect(state.recordDelivery('d-1', 'pull_request')).toBe(false);
    expect(state.jobs().map((j) => j.key)).toEqual(['octo/shop#7@abc']);
    expect(state.verdicts.get('v')).toBe('{"ok":true}');
    expect(state.verdicts.get('missing')).toBeUndefined();
    expect([...state.fingerprints.posted('octo/shop', 7)].sort()).toEqual(['fp-1', 'fp-2']);
    expect(state.fingerprints.posted('octo/shop', 8).size).toBe(0);
  });

  it("is readable by the App's user only: file and WAL 0600, a folder it makes 0700 (issue 9)", () => {
    state.recordDelivery('d-1', 'pull_request');
    for (const f of [file, `${file}-wal`]) expect({ f, mode: (statSync(f).mode & 0o777).toString(8) }).toEqual({ f, mode: '600' });
    expect((statSync(path.dirname(file)).mode & 0o777).toString(8)).toBe('700');
  });
});

describe('deliveries and admission', () => {
  it('records a delivery once; a redelivery queues nothing', () => {
    const job = { key: 'octo/shop#7@abc', payload: { n: 7 } };
    expect(state.admit('d-1', 'pull_request', job).outcome).toBe('queued');
    expect(state.admit('d-1', 'pull_request', job).outcome).toBe('duplicate');
    expect(state.admit('d-2', 'pull_request', job).outcome).toBe('exists');
    expect(state.admit('d-3', 'issue_comment').outcome).toBe('ignored');
    expect(state.jobs()).toHaveLength(1);
  });

  it('updates the verdict cache in place', () => {
    state.verdicts.set('k', 'a');
    state.verdicts.set('k', 'b');
    expect(state.verdicts.get('k')).toBe('b');
  });
});

describe('job queue', () => {
  it('claims the oldest ready job once, and completes it', () => {
    state.enqueue('a', {});
    state.enqueue('b', {});
    const first = state.claim('w1', 1000)!;
    const second = state.claim('w2', 1000)!;
    expect([first.key, second.key]).toEqual(['a', 'b']);
    expect(first).toMatchObject({ status: 'running', owner: 'w1', attempts: 1, leaseUntil: clock + 1000 });
    expect(state.claim('w3', 1000)).toBeUndefined();
    state.complete(first.id, 'w1');
    expect(state.job(first.id)?.status).toBe('done');
    // A done job is not queued again under the same key.
    expect(state.enqueue('a', {}).created).toBe(false);
  });

  it('gives a job whose worker died (lease ran out) to another worker', () => {
    const { job } = state.enqueue('a', {});
    state.claim('dead', 1000);
    clock += 500;
    expect(state.heartbeat(job.id, 'dead', 1000)).toBe(true);
    clock += 900;
    expect(state.claim('w2', 1000)).toBeUndefined();
    clock += 200;
    const again = state.claim('w2', 1000)!;
    expect(again).toMatchObject({ id: job.id, owner: 'w2', attempts: 2 });
    // The dead worker's late heartbeat or completion no longer counts.
    expect(state.heartbeat(job.id, 'dead', 1000)).toBe(false);
    state.complete(job.id, 'dead');
    expect(state.job(job.id)?.status).toBe('running');
  });

  it('gives a job whose worker died on every attempt one conclusion run, then marks it failed', () => {
    const { job } = state.enqueue('a', {});
    state.claim('w1', 10);
    clock += 20;
    state.claim('w2', 10);
    clock += 20;
    // One conclusion run, to complete the check run with the reason; then failed.
    const conclusion = state.claim('w3', 10)!;
    expect(conclusion).toMatchObject({ id: job.id, finalReason: 'its worker stopped 2 time(s) before finishing' });
    state.fail(job.id, 'w3', conclusion.finalReason!, { retryable: true });
    expect(state.job(job.id)).toMatchObject({ status: 'failed', lastError: 'its worker stopped 2 time(s) before finishing' });
  });

  it('retries a retryable failure after a delay, and gives up when attempts run out or the error is final', () => {
    const { job } = state.enqueue('a', {});
    state.claim('w1', 1000);
    expect(state.fail(job.id, 'w1', 'GitHub 502', { retryable: true, retryInMs: 5000 })).toBe('pending');
    expect(state.claim('w1', 1000)).toBeUndefined();
    clock += 5000;
    expect(state.claim('w1', 1000)?.attempts).toBe(2);
    expect(state.fail(job.id, 'w1', 'GitHub 502', { retryable: true })).toBe('failed');
    const other = state.enqueue('b', {}).job;
    state.claim('w1', 1000);
    expect(state.fail(other.id, 'w1', 'bad config', { retryable: false })).toBe('failed');
    expect(state.job(other.id)?.lastError).toBe('bad config');
  });

  it('hands a job back at once (graceful stop) without counting the attempt', () => {
    const { job } = state.enqueue('a', {});
    state.claim('host:111:x', 60_000);
    state.release(job.id, 'host:111:x');
    expect(state.claim('host:222:y', 60_000)).toMatchObject({ id: job.id, owner: 'host:222:y', attempts: 1 });
  });

  it('rebuilds a state file from before issue 14 in place, keeping its jobs', () => {
    state.close();
    const Database = state.db.constructor as new (file: string) => import('better-sqlite3').Database;
    const old = new Database(path.join(dir, 'old.db'));
    old.exec(`CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, lane TEXT, payload TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')), attempts INTEGER NOT NULL DEFAULT 0,
      owner TEXT, lease_until INTEGER, run_after INTEGER NOT NULL DEFAULT 0, check_run_id INTEGER, last_error TEXT,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
      INSERT INTO jobs (key, payload, created_at, updated_at) VALUES ('old-job', '{}', 1, ${clock});`);
    old.close();
    state = openState(path.join(dir, 'old.db'), { now });
    expect(state.jobByKey('old-job')).toMatchObject({ status: 'pending', deadline: clock + 30 * 60_000 });
    state.admit('d-1', 'pull_request', { key: 'x', payload: {}, lane: 'l', supersedes: ['y'] });
  });

  it('adds the count of stopped conclusion runs to a state file from issue 14, keeping its jobs', () => {
    state.close();
    const Database = state.db.constructor as new (file: string) => import('better-sqlite3').Database;
    const issue14 = new Database(path.join(dir, 'issue14.db'));
    issue14.exec(`CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, lane TEXT, payload TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed', 'cancelled')), attempts INTEGER NOT NULL DEFAULT 0,
      owner TEXT, lease_until INTEGER, run_after INTEGER NOT NULL DEFAULT 0, deadline INTEGER NOT NULL DEFAULT 0, check_run_id INTEGER,
      last_error TEXT, delivery_id TEXT, supersedable INTEGER NOT NULL DEFAULT 0, final_reason TEXT,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
      INSERT INTO jobs (key, payload, status, owner, lease_until, final_reason, created_at, updated_at)
        VALUES ('concluding', '{}', 'running', 'dead', ${clock - 1}, 'its worker stopped 2 time(s) before finishing', 1, 1);`);
    issue14.close();
    state = openState(path.join(dir, 'issue14.db'), { now });
    expect(state.jobByKey('concluding')).toMatchObject({ status: 'running', conclusionStops: 0 });
    // Its conclusion run's worker is gone: offered again, as on a new file.
    expect(state.claim('w', 60_000)).toMatchObject({ key: 'concluding', conclusionStops: 1, finalReason: 'its worker stopped 2 time(s) before finishing' });
    state.close();
    state = openState(path.join(dir, 'issue14.db'), { now });
    expect(state.jobByKey('concluding')?.conclusionStops).toBe(1);
  });

  it('remembers the check run of a job', () => {
    const { job } = state.enqueue('a', {});
    state.setCheckRun(job.id, 900);
    expect(state.jobByKey('a')?.checkRunId).toBe(900);
  });

  it('lets two connections to one file claim each job once', () => {
    const other = openState(file, { now });
    try {
      for (let i = 0; i < 20; i++) state.enqueue(`j${i}`, {});
      const claimed: string[] = [];
      for (let i = 0; i < 20; i++) {
        const job = (i % 2 ? state : other).claim(`w${i % 2}`, 60_000);
        if (job) claimed.push(job.key);
      }
      expect(new Set(claimed).size).toBe(20);
    } finally {
      other.close();
    }
  });
});

describe('lanes and pruning', () => {
  it('runs the jobs of one pull request one at a time, other pull requests alongside', () => {
    state.enqueue('pr7@a', {}, 'octo/shop#7');
    state.enqueue('pr7!rerun', {}, 'octo/shop#7');
    state.enqueue('pr8@b', {}, 'octo/shop#8');
    const first = state.claim('w1', 1000)!;
    expect(first.key).toBe('pr7@a');
    expect(state.claim('w2', 1000)?.key).toBe('pr8@b');
    expect(state.claim('w3', 1000)).toBeUndefined();
    state.complete(first.id, 'w1');
    expect(state.claim('w3', 1000)?.key).toBe('pr7!rerun');
  });

  it('lets a lane go on when its running job\'s worker died', () => {
    state.enqueue('pr7@a', {}, 'octo/shop#7');
    state.enqueue('pr7@b', {}, 'octo/shop#7');
    state.claim('dead', 1000);
    clock += 1001;
    expect(state.claim('w2', 1000)?.key).toBe('pr7@a');
  });

  it('forgets old deliveries and finished jobs, and keeps pending ones', () => {
    state.admit('old', 'pull_request', { key: 'done-job', payload: {} });
    const done = state.claim('w', 1000)!;
    state.complete(done.id, 'w');
    state.enqueue('waiting', {});
    clock += 10_000;
    state.prune(5_000);
    expect(state.recordDelivery('old', 'pull_request')).toBe(true);
    expect(state.jobs().map((j) => j.key)).toEqual(['waiting']);
  });
});

describe('rate limit per installation (issue 9, requirement 10)', () => {
  it('queues at most perHour reviews of one installation in an hour; others and later ones go on', () => {
    const job = (key: string, installationId: number) => ({ key, payload: { installationId }, lane: key });
    const limit = (installationId: number) => ({ installationId, perHour: 2 });
    expect(state.admit('d1', 'pull_request', job('a#1@1', 7), limit(7)).outcome).toBe('queued');
    expect(state.admit('d2', 'pull_request', job('a#1@2', 7), limit(7)).outcome).toBe('queued');
    expect(state.admit('d3', 'pull_request', job('a#1@3', 7), limit(7)).outcome).toBe('rate-limited');
    expect(state.admit('d4', 'pull_request', job('b#1@1', 8), limit(8)).outcome).toBe('queued');
    // A redelivery of a job already queued is still 'exists', not a new review to count.
    expect(state.admit('d5', 'pull_request', job('a#1@1', 7), limit(7)).outcome).toBe('exists');
    clock += 3_600_001;
    expect(state.admit('d6', 'pull_request', job('a#1@4', 7), limit(7)).outcome).toBe('queued');
    expect(state.jobs().map((j) => j.key)).toEqual(['a#1@1', 'a#1@2', 'b#1@1', 'a#1@4']);
  });
});
