// The App's web server on 127.0.0.1: the webhook body capped at GitHub's 25 MB before it is
// buffered, a signed delivery still reaching Probot, the operability endpoints, JSON log lines
// carrying the delivery id, the web role queueing without running, and a prompt stop (issues 9, 14).
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../src/adapters/probot/server.ts';
import type { AppSettings } from '../../../src/adapters/probot/settings.ts';

const secret = 'test-secret';
const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
let dir: string;

function settings(name: string): AppSettings {
  return {
    appId: 1,
    privateKey,
    webhookSecret: secret,
    port: 0,
    host: '127.0.0.1',
    webhookPath: '/api/github/webhooks',
    // An address where nothing answers: a job that ran would fail, never reach GitHub.
    baseUrl: 'http://127.0.0.1:9/api/v3',
    statePath: path.join(dir, `${name}.db`),
    workers: 1,
    graceMs: 2_000,
    jobTimeoutMs: 60_000,
    reviewsPerHour: 120,
    logLevel: 'info',
    logFormat: 'json',
    python: 'python3',
    searchPath: [],
    llmEnv: {},
  } as AppSettings;
}

function capture() {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _encoding, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
  return { lines, log };
}

const sign = (text: string) => `sha256=${createHmac('sha256', secret).update(text).digest('hex')}`;
const post = (base: string, event: string, delivery: string, body: string, signature = sign(body)) =>
  fetch(`${base}/api/github/webhooks`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': delivery, 'x-hub-signature-256': signature } });

function pullRequestOpened(number: number) {
  return {
    action: 'opened',
    number,
    pull_request: { number, draft: false, state: 'open', head: { sha: 'a'.repeat(40), repo: { full_name: 'octo/shop' } }, base: { sha: 'b'.repeat(40), repo: { full_name: 'octo/shop' } } },
    repository: { id: 1, name: 'shop', full_name: 'octo/shop', owner: { login: 'octo' } },
    installation: { id: 7 },
    sender: { login: 'alice', type: 'User' },
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-server-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('npm start (web and workers)', () => {
  let running: RunningServer;
  let base: string;
  beforeAll(async () => {
    running = await startServer(settings('both'), { log: capture().log });
    base = `http://127.0.0.1:${(running.server.address() as AddressInfo).port}`;
  });

  it('answers /ping, /healthz, /readyz and /metrics', async () => {
    expect(await (await fetch(`${base}/ping`)).text()).toBe('PONG');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^crashprobe_queue_depth\{role="both"\} 0$/m);
    expect(metrics).toMatch(/^crashprobe_jobs\{state="pending",role="both"\} 0$/m);
    expect(metrics).toContain('crashprobe_process_resident_memory_bytes');
  });

  it('refuses a body over 25 MB with 413 before buffering it', async () => {
    const big = new Uint8Array(26 * 1024 * 1024);
    const response = await fetch(`${base}/api/github/webhooks`, { method: 'POST', body: big, headers: { 'content-type': 'application/json' } }).catch((e: Error) => e);
    if (response instanceof Error) expect(response.message).toMatch(/fetch failed|socket|reset/); // closed while sending: refused all the same
    else expect(response.status).toBe(413);
  });

  it('hands a signed delivery under the cap to Probot, and refuses a bad signature', async () => {
    const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    expect((await post(base, 'ping', 'd-1', body)).status).toBe(200);
    expect((await post(base, 'ping', 'd-2', body, sign('other'))).status).toBeGreaterThanOrEqual(400);
  });

  it('stops within a few seconds and closes its port', async () => {
    const started = Date.now();
    await running.stop();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await fetch(`${base}/healthz`).then((r) => r.status, () => 'closed')).toBe('closed');
  });
});

describe('npm run web', () => {
  it('queues a delivery without running it, and logs it as JSON with its delivery id', async () => {
    const { lines, log } = capture();
    const running = await startServer(settings('web'), { role: 'web', log });
    const base = `http://127.0.0.1:${(running.server.address() as AddressInfo).port}`;
    try {
      expect(running.app.pool).toBeUndefined();
      expect((await post(base, 'pull_request', 'delivery-web-1', JSON.stringify(pullRequestOpened(3)))).status).toBe(200);
      expect((await post(base, 'pull_request', 'delivery-web-1', JSON.stringify(pullRequestOpened(3)))).status).toBe(200); // redelivered
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await running.backend.counts()).toMatchObject({ pending: 1, running: 0 });
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/^crashprobe_queue_depth\{role="web"\} 1$/m);
      // Every line the deliveries caused names the delivery (Probot's child logger: `id`; crashprobe's: `deliveryId`).
      const about = lines.filter((line) => JSON.stringify(line).includes('octo/shop'));
      expect(about.length).toBeGreaterThan(0);
      for (const line of about) expect(line.deliveryId ?? line.id, JSON.stringify(line)).toBe('delivery-web-1');
    } finally {
      await running.stop();
    }
  });
});
