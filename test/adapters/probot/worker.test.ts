// `npm run worker` (issue 14): a worker-only process answers /healthz, /readyz and /metrics on its
// metrics port and no webhooks; the entry exits 0 soon after SIGTERM, and refuses an unknown role.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWorker } from '../../../src/adapters/probot/worker.ts';
import type { AppSettings } from '../../../src/adapters/probot/settings.ts';
import { freePort } from '../../../bench/loadtest/processes.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-worker-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('serves the operability endpoints on its own port and stops promptly', async () => {
  const settings = {
    appId: 1, privateKey, webhookSecret: 's', port: 0, host: '127.0.0.1', webhookPath: '/api/github/webhooks',
    statePath: path.join(dir, 'state.db'), workers: 2, graceMs: 2_000, jobTimeoutMs: 60_000, reviewsPerHour: 120,
    logLevel: 'fatal', logFormat: 'json', metricsPort: 0, python: 'python3', searchPath: [], llmEnv: {},
  } as AppSettings;
  const worker = await startWorker(settings);
  const base = `http://127.0.0.1:${(worker.server!.address() as AddressInfo).port}`;
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
  expect((await fetch(`${base}/readyz`)).status).toBe(200);
  expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/^crashprobe_queue_depth\{role="worker"\} 0$/m);
  expect((await fetch(`${base}/api/github/webhooks`, { method: 'POST', body: '{}' })).status).toBe(404);
  const started = Date.now();
  await worker.stop();
  // Nothing runs, so nothing to wait for; the bound has room for a loaded CI machine, not for a hang.
  expect(Date.now() - started).toBeLessThan(15_000);
});

it('`main.ts worker` exits 0 within seconds of SIGTERM; an unknown role exits 2 saying which roles exist', async () => {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH, HOME: process.env.HOME, APP_ID: '1', PRIVATE_KEY: privateKey, WEBHOOK_SECRET: 's', HOST: '127.0.0.1',
    CRASHPROBE_STATE: path.join(dir, 'main.db'), CRASHPROBE_METRICS_PORT: String(port), LOG_LEVEL: 'warn',
  };
  const child = execa(process.execPath, ['--import', 'tsx', 'src/adapters/probot/main.ts', 'worker'], { cwd: ROOT, env, extendEnv: false, reject: false });
  const deadline = Date.now() + 30_000;
  while ((await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0)) !== 200) {
    if (Date.now() > deadline) throw new Error('the worker did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const signalled = Date.now();
  child.kill('SIGTERM');
  const result = await child;
  expect(result.exitCode, String(result.stderr)).toBe(0);
  // Well below main.ts's forced exit (grace 30 s + 15 s), with room for a loaded CI machine's slow process exit.
  expect(Date.now() - signalled).toBeLessThan(20_000);

  const wrong = await execa(process.execPath, ['--import', 'tsx', 'src/adapters/probot/main.ts', 'janitor'], { cwd: ROOT, env, extendEnv: false, reject: false });
  expect(wrong.exitCode).toBe(2);
  expect(wrong.stderr).toContain('web, worker, both');
}, 60_000);
