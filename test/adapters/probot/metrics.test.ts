// The App's /metrics, /healthz and /readyz (issue 14): the queue read from the backend at scrape
// time, harness runs and LLM tokens counted through the wrapped ports, readiness failing with the database.
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createMetrics } from '../../../src/adapters/probot/metrics.ts';
import { startHealthServer, closeServer } from '../../../src/adapters/probot/health.ts';
import type { HarnessRunner, LlmClient } from '../../../src/core/ports.ts';

const servers: import('node:http').Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await closeServer(server);
});

async function serve(ping: () => Promise<void>, metrics = createMetrics({ role: 'worker', defaultMetrics: false }), accepting = () => true) {
  const server = await startHealthServer({ ping, metrics, accepting }, 0, '127.0.0.1');
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

it('reports the queue by state from the backend, read at each scrape', async () => {
  let counts = { pending: 3, running: 1, done: 10, failed: 0, cancelled: 2 };
  const metrics = createMetrics({ role: 'web', jobCounts: async () => counts, defaultMetrics: false });
  const first = (await metrics.render()).body;
  expect(first).toMatch(/^crashprobe_queue_depth\{role="web"\} 3$/m);
  expect(first).toMatch(/^crashprobe_jobs\{state="cancelled",role="web"\} 2$/m);
  counts = { ...counts, pending: 0, done: 13 };
  await new Promise((resolve) => setTimeout(resolve, 600)); // past the one-read-per-scrape window
  const second = (await metrics.render()).body;
  expect(second).toMatch(/^crashprobe_queue_depth\{role="web"\} 0$/m);
  expect(second).toMatch(/^crashprobe_jobs\{state="done",role="web"\} 13$/m);
});

it('counts harness runs and LLM tokens through the wrapped ports, and review latency', async () => {
  const metrics = createMetrics({ role: 'worker', defaultMetrics: false });
  const runner: HarnessRunner = { run: async () => ({ scenarios: [], errors: [], notes: [], runs: 12, seconds: 1 }) };
  await metrics.harness(runner).run([]);
  await metrics.harness(runner).run([]);
  const broken: HarnessRunner = { run: async () => Promise.reject(new Error('bwrap died')) };
  await expect(metrics.harness(broken).run([])).rejects.toThrow('bwrap died');
  let cached = false;
  const llm: LlmClient = { model: 'm-1', complete: async () => ({ text: 'ok', inputTokens: 100, outputTokens: 7, cached }) };
  const wrapped = metrics.llm(llm);
  expect(wrapped.model).toBe('m-1');
  await wrapped.complete({ system: '', prompt: 'p' } as never);
  cached = true;
  await wrapped.complete({ system: '', prompt: 'p' } as never); // from the cache: no tokens spent
  metrics.observeReview(4.2, 'done');
  const text = (await metrics.render()).body;
  expect(text).toMatch(/^crashprobe_harness_runs_total\{role="worker"\} 24$/m);
  expect(text).toMatch(/^crashprobe_harness_campaigns_total\{outcome="ok",role="worker"\} 2$/m);
  expect(text).toMatch(/^crashprobe_harness_campaigns_total\{outcome="failed",role="worker"\} 1$/m);
  expect(text).toMatch(/^crashprobe_llm_tokens_total\{model="m-1",direction="input",role="worker"\} 100$/m);
  expect(text).toMatch(/^crashprobe_llm_tokens_total\{model="m-1",direction="output",role="worker"\} 7$/m);
  expect(text).toMatch(/^crashprobe_llm_calls_total\{model="m-1",outcome="cached",role="worker"\} 1$/m);
  expect(text).toMatch(/^crashprobe_review_latency_seconds_bucket\{le="5",role="worker",outcome="done"\} 1$/m);
  expect(text).toMatch(/^crashprobe_review_latency_seconds_bucket\{le="2",role="worker",outcome="done"\} 0$/m);
});

it('answers /healthz always, /readyz 200 only while the database answers, and /metrics in Prometheus text', async () => {
  let down = false;
  const base = await serve(async () => {
    if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
  });
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
  expect((await fetch(`${base}/readyz`)).status).toBe(200);
  down = true;
  const refused = await fetch(`${base}/readyz`);
  expect(refused.status).toBe(503);
  expect(await refused.text()).toContain('ECONNREFUSED');
  expect((await fetch(`${base}/healthz`)).status).toBe(200); // alive, just not ready
  const metrics = await fetch(`${base}/metrics`);
  expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(await metrics.text()).toContain('# TYPE crashprobe_review_latency_seconds histogram');
  expect((await fetch(`${base}/other`)).status).toBe(404);
});

it('answers /readyz 503 while stopping, and when the database hangs', async () => {
  let accepting = true;
  const stopping = await serve(async () => {}, undefined, () => accepting);
  accepting = false;
  expect((await fetch(`${stopping}/readyz`)).status).toBe(503);
  const hanging = await serve(() => new Promise(() => {}));
  const started = Date.now();
  expect((await fetch(`${hanging}/readyz`)).status).toBe(503);
  // The ping gives up after 2 s; a hung ping without that limit would never answer. Room for a loaded CI machine.
  expect(Date.now() - started).toBeLessThan(15_000);
});
