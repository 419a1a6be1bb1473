// The App's web server on 127.0.0.1: the webhook body capped at GitHub's 25 MB before it is
// buffered, a signed delivery still reaching Probot, and a stop that returns promptly (issue 9).
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer } from '../../../src/adapters/probot/server.ts';

let dir: string;
let running: Awaited<ReturnType<typeof startServer>>;
let base: string;
const secret = 'test-secret';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-server-'));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  running = await startServer({
    appId: 1,
    privateKey,
    webhookSecret: secret,
    port: 0,
    host: '127.0.0.1',
    webhookPath: '/api/github/webhooks',
    statePath: path.join(dir, 'state.db'),
    concurrency: 1,
    reviewsPerHour: 120,
    logLevel: 'fatal',
    python: 'python3',
    searchPath: [],
    llmEnv: {},
  });
  base = `http://127.0.0.1:${(running.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('answers /ping', async () => {
  expect(await (await fetch(`${base}/ping`)).text()).toBe('PONG');
});

it('refuses a body over 25 MB with 413 before buffering it', async () => {
  const big = new Uint8Array(26 * 1024 * 1024);
  const response = await fetch(`${base}/api/github/webhooks`, { method: 'POST', body: big, headers: { 'content-type': 'application/json' } }).catch((e: Error) => e);
  if (response instanceof Error) expect(response.message).toMatch(/fetch failed|socket|reset/); // closed while sending: refused all the same
  else expect(response.status).toBe(413);
});

it('hands a signed delivery under the cap to Probot, and refuses a bad signature', async () => {
  const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
  const sign = (text: string) => `sha256=${createHmac('sha256', secret).update(text).digest('hex')}`;
  const headers = (signature: string) => ({ 'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': 'd-1', 'x-hub-signature-256': signature });
  expect((await fetch(`${base}/api/github/webhooks`, { method: 'POST', body, headers: headers(sign(body)) })).status).toBe(200);
  expect((await fetch(`${base}/api/github/webhooks`, { method: 'POST', body, headers: headers(sign('other')) })).status).toBeGreaterThanOrEqual(400);
});

it('stops within a few seconds', async () => {
  const started = Date.now();
  await running.stop();
  expect(Date.now() - started).toBeLessThan(10_000);
});
