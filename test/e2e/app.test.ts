// The App as a real server process (`npm start`'s entry, under node with tsx),
// a fake GitHub on 127.0.0.1, signed webhooks over HTTP: one review and one
// check run per head commit, through a redelivery and through a kill -9.
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitHubApp, type FakeGitHubApp } from './fake-github-app.ts';
import { CONFIG_YML, ORDERS_PATCH, ORDERS_PY } from './shop-change.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = 'e2e-webhook-secret';
const OWNER = 'octo';
const REPO = 'shop';
const PR_ONE = { number: 1, headSha: 'a'.repeat(40), baseSha: 'b'.repeat(40), files: [{ filename: 'shop/orders.py', status: 'added', patch: ORDERS_PATCH }] };
const PR_TWO = { number: 2, headSha: 'c'.repeat(40), baseSha: 'b'.repeat(40), files: [{ filename: 'shop/orders.py', status: 'added', patch: ORDERS_PATCH }] };

let github: FakeGitHubApp;
let work: string;
let port: number;
let app: ResultPromise | undefined;
let output = '';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// A port from freePort() is free when asked, not when the App binds it (later, and again after the kill):
// another process may take it in between. Then the App exits with EADDRINUSE; start it on a new port.
async function startApp(): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const outputBefore = output.length;
    const started = await startAppOnce();
    if (started) return;
    const said = output.slice(outputBefore);
    if (!/EADDRINUSE/.test(said) || attempt === 3) throw new Error(`the app exited before it answered /ping\n--- app output ---\n${said.slice(-4000)}`);
    port = await freePort();
  }
}

/** False when the app exited before answering /ping. */
async function startAppOnce(): Promise<boolean> {
  const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
  // `npm start` is `tsx src/adapters/probot/main.ts`; node --import tsx runs the same entry as one process, so a kill reaches it.
  app = execa(process.execPath, ['--import', 'tsx', 'src/adapters/probot/main.ts'], {
    cwd: ROOT,
    reject: false,
    all: true,
    extendEnv: false,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      APP_ID: '42',
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: SECRET,
      PORT: String(port),
      HOST: '127.0.0.1',
      GHE_HOST: github.host,
      GHE_PROTOCOL: 'http',
      CRASHPROBE_STATE: path.join(work, 'state.db'),
      // A killed process's job is taken over when its lease runs out (no process-id check: the lease decides).
      CRASHPROBE_LEASE_SECONDS: '5',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    },
  });
  const running = app;
  let exited = false;
  void running.then(() => (exited = true));
  running.all?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await until(async () => exited || (await fetch(`http://127.0.0.1:${port}/ping`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined))?.ok === true, 30_000, 'the app to answer /ping');
  if (!exited) return true;
  await running;
  app = undefined;
  return false;
}

async function stopApp(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!app) return;
  app.kill(signal);
  await app;
  app = undefined;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n--- app output ---\n${output.slice(-4000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function pullRequestEvent(pr: typeof PR_ONE) {
  return {
    action: 'opened',
    number: pr.number,
    pull_request: {
      number: pr.number,
      draft: false,
      state: 'open',
      head: { sha: pr.headSha, ref: `feature-${pr.number}`, repo: { full_name: `${OWNER}/${REPO}` } },
      base: { sha: pr.baseSha, ref: 'main', repo: { full_name: `${OWNER}/${REPO}` } },
    },
    repository: { id: 1, name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } },
    installation: { id: 7 },
    sender: { login: 'alice', type: 'User' },
  };
}

async function sendWebhook(delivery: string, payload: unknown, secret = SECRET): Promise<number> {
  const body = JSON.stringify(payload);
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const response = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': delivery, 'x-hub-signature-256': signature },
    body,
  });
  await response.text();
  return response.status;
}

const checkRunsFor = (sha: string) => github.checkRuns.filter((run) => run.head_sha === sha);
const reviewsOn = (pull: number) => github.reviews.filter((review) => review.pull === pull);
const writes = () => github.requests.filter((r) => r.method !== 'GET' && !r.path.endsWith('/access_tokens') && r.path !== '/api/graphql');

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-e2e-'));
  github = await startFakeGitHubApp({
    owner: OWNER,
    repo: REPO,
    pulls: [PR_ONE, PR_TWO],
    files: { '.github/crashprobe.yml': CONFIG_YML, 'shop/orders.py': ORDERS_PY },
  });
  port = await freePort();
  await startApp();
}, 60_000);

afterAll(async () => {
  await stopApp('SIGKILL');
  await github?.close();
  await rm(work, { recursive: true, force: true });
});

describe('crashprobe App, end to end', () => {
  it('refuses a webhook with a bad signature', async () => {
    const status = await sendWebhook('bad-1', pullRequestEvent(PR_ONE), 'not-the-secret');
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(github.requests).toEqual([]);
  });

  it('posts one review and one completed check run for a pull request; a redelivery posts nothing more', async () => {
    expect(await sendWebhook('delivery-1', pullRequestEvent(PR_ONE))).toBe(200);
    await until(() => checkRunsFor(PR_ONE.headSha).some((run) => run.status === 'completed') && github.issueComments.length === 1, 30_000, 'the review of PR 1');

    expect(checkRunsFor(PR_ONE.headSha)).toHaveLength(1);
    expect(checkRunsFor(PR_ONE.headSha)[0]).toMatchObject({ name: 'crashprobe', conclusion: expect.stringMatching(/success|failure|neutral/) });
    expect(reviewsOn(1)).toHaveLength(1);
    expect(reviewsOn(1)[0]!.commit_id).toBe(PR_ONE.headSha);
    expect(reviewsOn(1)[0]!.comments.length).toBeGreaterThan(0);
    expect(github.issueComments[0]!.body).toContain('<!-- crashprobe:summary -->');
    expect(github.unanswered).toEqual([]);

    const writesBefore = writes().length;
    expect(await sendWebhook('delivery-1', pullRequestEvent(PR_ONE))).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(writes()).toHaveLength(writesBefore);
    expect(reviewsOn(1)).toHaveLength(1);
  });

  it('ends with one review and one check run when the app is killed mid-review and restarted', async () => {
    const held = github.hold(/\/pulls\/2\/files$/);
    expect(await sendWebhook('delivery-2', pullRequestEvent(PR_TWO))).toBe(200);
    await held.arrived;
    expect(checkRunsFor(PR_TWO.headSha).map((run) => run.status)).toEqual(['in_progress']);
    await stopApp('SIGKILL');
    held.release();

    await startApp();
    await until(() => checkRunsFor(PR_TWO.headSha).some((run) => run.status === 'completed'), 30_000, 'the resumed review of PR 2');
    await until(() => github.issueComments.length === 2, 10_000, 'the summary of PR 2');

    expect(checkRunsFor(PR_TWO.headSha)).toHaveLength(1);
    expect(reviewsOn(2)).toHaveLength(1);
    expect(reviewsOn(2)[0]!.commit_id).toBe(PR_TWO.headSha);
    expect(reviewsOn(1)).toHaveLength(1);
    expect(github.unanswered).toEqual([]);
  });
});
