// A Probot instance wired to crashprobe's app with a fake review, for nock-based tests.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import examples from '@octokit/webhooks-examples';
import { Probot, ProbotOctokit } from 'probot';
import crashprobeApp, { type AppDeps, type CrashprobeApp } from '../../../src/adapters/probot/app.ts';
import type { ReviewFunction } from '../../../src/adapters/probot/review-job.ts';
import { openState, type CrashprobeState } from '../../../src/store/state.ts';

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
  app: CrashprobeApp;
  state: CrashprobeState;
  reviews: Parameters<ReviewFunction>[];
  harnessAsked: number;
  close(): Promise<void>;
}

export async function createTestApp(review: ReviewFunction, overrides: Partial<AppDeps> = {}): Promise<TestApp> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-app-'));
  const state = overrides.state ?? openState(path.join(dir, 'state.db'));
  const probot = new Probot({
    appId: 42,
    privateKey: PRIVATE_KEY,
    secret: 'test-secret',
    logLevel: 'warn',
    Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
  });
  const test: TestApp = {
    probot,
    state,
    reviews: [],
    harnessAsked: 0,
    app: undefined as unknown as CrashprobeApp,
    async close() {
      await test.app.stop();
      if (!overrides.state) state.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  test.app = crashprobeApp(probot, undefined, {
    state,
    review: async (...args) => {
      test.reviews.push(args);
      return review(...args);
    },
    harness: async () => {
      test.harnessAsked += 1;
      return { harness: { run: async () => ({ scenarios: [], errors: [] }) as never } };
    },
    concurrency: 2,
    pollMs: 20,
    workRoot: dir,
    ...overrides,
  });
  return test;
}
