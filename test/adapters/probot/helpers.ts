// A Probot instance wired to crashprobe's app with a fake review, for nock-based tests.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import examples from '@octokit/webhooks-examples';
import nock from 'nock';
import { Probot, ProbotOctokit } from 'probot';
import crashprobeApp, { type AppDeps, type CrashprobeApp } from '../../../src/adapters/probot/app.ts';
import type { WorkerPool } from '../../../src/adapters/probot/worker-pool.ts';
import type { ReviewFunction } from '../../../src/adapters/probot/review-job.ts';
import type { CrashprobeState } from '../../../src/store/state.ts';
import type { BackendOptions } from '../../../src/store/backend.ts';
import { openSqliteBackend, type SqliteBackend } from '../../../src/store/sqlite/sqlite-backend.ts';
import { API } from '../github/fixtures.ts';

export const PRIVATE_KEY = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

/** A deep copy of a real webhook payload from @octokit/webhooks-examples. */
export function webhookExample<T = Record<string, any>>(event: string, action: string, pick: (payload: any) => boolean = () => true): T {
  const group = (examples as unknown as { name: string; examples: any[] }[]).find((e) => e.name === event);
  const payload = group?.examples.find((p) => p.action === action && p.installation && pick(p));
  if (!payload) throw new Error(`no ${event}.${action} example with an installation`);
  return structuredClone(payload) as T;
}

export interface TestApp {
  probot: Probot;
  /** A web+worker app: its pool is there. */
  app: CrashprobeApp & { pool: WorkerPool };
  backend: SqliteBackend;
  /** The backend's SQLite state, read synchronously by the tests. */
  state: CrashprobeState;
  reviews: Parameters<ReviewFunction>[];
  harnessAsked: number;
  close(): Promise<void>;
}

export async function createTestApp(
  review: ReviewFunction,
  { backendOptions, ...overrides }: Partial<Omit<AppDeps, 'backend'>> & { backend?: SqliteBackend; backendOptions?: BackendOptions } = {},
): Promise<TestApp> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-app-'));
  const backend = overrides.backend ?? openSqliteBackend(path.join(dir, 'state.db'), backendOptions);
  const state = backend.state;
  const probot = new Probot({
    appId: 42,
    privateKey: PRIVATE_KEY,
    secret: 'test-secret',
    logLevel: 'warn',
    Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
  });
  const test: TestApp = {
    probot,
    backend,
    state,
    reviews: [],
    harnessAsked: 0,
    app: undefined as unknown as TestApp['app'],
    async close() {
      await test.app.stop();
      if (!overrides.backend) await backend.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  test.app = crashprobeApp(probot, undefined, {
    backend,
    review: async (...args) => {
      test.reviews.push(args);
      return review(...args);
    },
    harness: async () => {
      test.harnessAsked += 1;
      return { harness: { run: async () => ({ scenarios: [], errors: [] }) as never } };
    },
    workers: 2,
    pollMs: 20,
    workRoot: dir,
    ...overrides,
  }) as TestApp['app'];
  return test;
}

/**
 * What every job asks first, answered with nock: a token, the app's identity, the pull request,
 * the config (the repository's, then the owner's .github repository's when it has none).
 */
export function nockJobStart(pr: Record<string, any>, config: { status: number; body?: string } = { status: 404 }, owner = 'Codertocat', name = 'Hello-World') {
  const scope = nock(API)
    .post('/app/installations/1/access_tokens')
    .reply(201, { token: 'installation-token', expires_at: new Date(Date.now() + 3_600_000).toISOString() })
    .get('/app')
    .reply(200, { id: 42, slug: 'crashprobe' })
    .get(`/repos/${owner}/${name}/pulls/${pr.number}`)
    .reply(200, pr)
    .get(`/repos/${owner}/${name}/contents/.github%2Fcrashprobe.yml`)
    .reply(config.status, config.body ?? { message: 'Not Found' }, { 'content-type': config.status === 200 ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8' });
  if (config.status === 404) scope.get(`/repos/${owner}/.github/contents/.github%2Fcrashprobe.yml`).reply(404, { message: 'Not Found' });
  return scope;
}
