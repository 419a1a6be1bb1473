// Issue 14's load test in CI (bench/loadtest, `npm run loadtest` runs the full size): signed
// deliveries with redeliveries and superseding pushes to the App as real processes, one killed
// with SIGKILL midway. PostgreSQL: 1 web replica, 2 workers; SQLite: the one `npm start` process,
// killed and started again. Every live head one review and one completed check run, superseded
// heads none, nothing posted twice, every webhook answered under 1 s.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runLoadTest, type LoadTestOptions } from '../../bench/loadtest/run.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';

// A 6 s lease: the killed worker's job is taken over in seconds, not the default 30 s, to keep CI short.
// Still, one process posts about 10 reviews a minute (Octokit paces content-creating writes 3 s apart,
// per process), so after the kill the last worker needs about a minute for its share.
// The wait for the reviews measured about 60 s (PostgreSQL) and 30 s (SQLite) on a busy 2-core CI
// machine: 200 s leaves room for a slower one, and a passing run ends as soon as every review is in.
const small = { burst: 6, burstGapMs: 500, kill: true, harness: false, timeoutMs: 200_000, leaseSeconds: 6 } as const;
// Above the wait for the reviews: starting the processes, the bursts, draining the queue and stopping.
const TEST_TIMEOUT_MS = small.timeoutMs + 100_000;
let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 120_000);
afterAll(async () => {
  await postgres?.stop();
});

function expectHeld(result: Awaited<ReturnType<typeof runLoadTest>>): void {
  const f = result.figures;
  // Printed for the closing note.
  console.log(`${f.deliveries} deliveries; webhook p50 ${f.webhookMs.p50.toFixed(0)} ms p95 ${f.webhookMs.p95.toFixed(0)} ms max ${f.webhookMs.max.toFixed(0)} ms; review p50 ${f.reviewSeconds.p50.toFixed(1)} s p95 ${f.reviewSeconds.p95.toFixed(1)} s; ${f.reviewsPerMinute.toFixed(1)} reviews/min; killed ${result.killed}`);
  expect(result.problems, `logs: ${result.logDir}`).toEqual([]);
  expect(f.deliveries).toBe(result.plan.bursts.flat().length);
  expect(f.reviews).toBe(result.plan.liveHeads.size);
  expect(result.killed).toBeDefined();
}

it('PostgreSQL: 30 deliveries, 1 web replica, 2 workers, one killed', async () => {
  const options: LoadTestOptions = { ...small, pulls: 10, backend: 'postgres', databaseUrl: await postgres.database('loadtest_ci'), webs: 1, workers: 2, workerConcurrency: 2 };
  const result = await runLoadTest(options);
  expectHeld(result);
  expect(result.figures.deliveries).toBe(30);
}, TEST_TIMEOUT_MS);

// One process posts about 10 reviews a minute (Octokit's pacing of content-creating writes), so SQLite gets 14 deliveries (5 pull requests).
it('SQLite: 14 deliveries to one process, killed and started again', async () => {
  expectHeld(await runLoadTest({ ...small, pulls: 5, backend: 'sqlite', webs: 1, workers: 0, workerConcurrency: 2 }));
}, TEST_TIMEOUT_MS);
