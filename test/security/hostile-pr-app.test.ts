// Issue 9 in the App's mode: the hostile pull request (test/security/hostile-pr.ts) reviewed by
// the Probot app end to end, as a deployment runs it: a webhook delivery, the installation token,
// the head and base read through the API and GitHub's tarballs (a local fake GitHub on 127.0.0.1
// serving real archives of the checkout), the crash harness in the sandbox prepareHarness picks
// here, and the one publisher. The code also tries the App's own folder: its state DB and a key
// file there. No canary may appear in any request body sent to GitHub or in anything the App logs.
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Probot, ProbotOctokit } from 'probot';
import { afterAll, beforeAll, expect, it } from 'vitest';
import crashprobeApp from '../../src/adapters/probot/app.ts';
import { chooseHarness } from '../../src/adapters/harness/choose.ts';
import { reviewPullRequest } from '../../src/core/review/review.ts';
import { openSqliteBackend } from '../../src/store/sqlite/sqlite-backend.ts';
import { splitGitDiff } from '../../src/adapters/cli/git-source.ts';
import { startFakeGitHub, type Routes } from '../adapters/action/fake-github.ts';
import { fakeRepository, FULL, type GitHubState } from '../adapters/action/fixture.ts';
import { PRIVATE_KEY, webhookExample } from '../adapters/probot/helpers.ts';
import { hostilePr, type HostilePr } from './hostile-pr.ts';

const SYSTEM_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];
const hasBwrap = SYSTEM_PATH.some((dir) => existsSync(path.join(dir, 'bwrap')));
const OWNER = 'Codertocat';
const REPO = 'Hello-World';

let pr: HostilePr;
let appDir: string;
beforeAll(async () => {
  pr = hostilePr();
  appDir = await mkdtemp(path.join(os.tmpdir(), 'cp-app-'));
});
afterAll(async () => {
  pr.cleanUp();
  await rm(appDir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execa('git', args, { cwd, encoding: 'buffer' }).then((r) => r.stdout);
const gitText = async (cwd: string, ...args: string[]) => Buffer.from(await git(cwd, ...args)).toString('utf8').trim();

/** What the App reads of the repository: the pull request, its files, contents, tree and tarballs, from the checkout. */
async function repositoryRoutes(dir: string, head: string, base: string, payload: Record<string, any>): Promise<Routes> {
  const tarball = async (sha: string) => Buffer.from(await git(dir, 'archive', '--format=tar.gz', `--prefix=${OWNER}-${REPO}-${sha.slice(0, 7)}/`, sha));
  const tarballs = { [head]: await tarball(head), [base]: await tarball(base) };
  const tree = (await gitText(dir, 'ls-tree', '-r', '--full-tree', head)).split('\n').map((line) => {
    const [meta = '', file = ''] = line.split('\t');
    const [mode, type, sha] = meta.split(' ');
    return { path: file, mode, type, sha };
  });
  const contents = new Map<string, string>();
  for (const entry of tree) if (entry.type === 'blob') contents.set(entry.path, await gitText(dir, 'show', `${head}:${entry.path}`));
  return {
    'POST /app/installations/:id/access_tokens': { status: 201, body: { token: 'ghs_installation', expires_at: new Date(Date.now() + 3_600_000).toISOString() } },
    'GET /app': { status: 200, body: { id: 42, slug: 'crashprobe' } },
    [`GET /repos/${OWNER}/${REPO}/pulls/:number`]: { status: 200, body: payload.pull_request },
    [`GET /repos/${OWNER}/${REPO}/tarball/:sha`]: (_r, { sha = '' }) => (tarballs[sha] ? { status: 200, raw: tarballs[sha] } : { status: 404, body: { message: 'Not Found' } }),
    [`GET /repos/${OWNER}/${REPO}/git/trees/:sha`]: { status: 200, body: { sha: head, truncated: false, tree } },
    [`GET /repos/${OWNER}/${REPO}/contents/:path`]: (_r, { path: file = '' }) => {
      const text = contents.get(file);
      return text === undefined ? { status: 404, body: { message: 'Not Found' } } : { status: 200, raw: text };
    },
  };
}

interface AppRun {
  github: GitHubState;
  bodies: string;
  log: string;
  jobStatus?: string;
  jobError?: string | null;
}

/** The hostile pull request through the App, end to end; `searchPath`: where bubblewrap is looked for. */
async function runApp(folder: string, searchPath: string[]): Promise<AppRun> {
  // The App's folder: its state DB and a private key, as a deployment keeps them.
  const keyFile = path.join(folder, 'private-key.pem');
  writeFileSync(keyFile, `-----BEGIN RSA PRIVATE KEY-----\n${pr.token}\n-----END RSA PRIVATE KEY-----\n`);
  const statePath = path.join(folder, 'state.db');
  const backend = openSqliteBackend(statePath);
  const state = backend.state;
  state.verdicts.set('planted', pr.token);
  const dir = await pr.build([keyFile, statePath, `${statePath}-wal`]);
  const head = await gitText(dir, 'rev-parse', 'HEAD');
  const base = await gitText(dir, 'rev-parse', 'main');

  const payload = webhookExample('pull_request', 'opened');
  Object.assign(payload.pull_request, { number: 2, draft: false });
  Object.assign(payload.pull_request.head, { sha: head, repo: { ...payload.pull_request.head.repo, full_name: `${OWNER}/${REPO}` } });
  Object.assign(payload.pull_request.base, { sha: base });
  payload.installation = { id: 1 };
  payload.repository.owner.login = OWNER;
  payload.repository.name = REPO;
  payload.repository.full_name = `${OWNER}/${REPO}`;

  const changed = splitGitDiff(await gitText(dir, 'diff', '--no-color', 'main', 'HEAD')).map((f) => ({ filename: f.path, status: f.status, patch: f.patch }));
  const github: GitHubState = { permissions: FULL, failing: {}, checkRuns: [], statuses: [], reviews: [], reviewComments: [], threads: [], issueComments: [] };
  const fake = await startFakeGitHub({ ...(await repositoryRoutes(dir, head, base, payload)), ...fakeRepository(github, changed) });
  // Everything the App logs, at the most talkative level (octokit's request logs included).
  const printed: string[] = [];
  const log = pino({ level: 'trace' }, new Writable({ write: (chunk, _encoding, done) => (printed.push(String(chunk)), done()) }));
  process.env[pr.envName] = pr.token;
  const probot = new Probot({
    appId: 42,
    privateKey: PRIVATE_KEY,
    secret: 'test-secret',
    baseUrl: fake.url,
    log,
    Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
  });
  const app = crashprobeApp(probot, undefined, {
    backend,
    review: reviewPullRequest,
    harness: (config, logger) => chooseHarness(config, { enabled: true, fromFork: false, python: 'python3', searchPath, env: {} }, logger),
    workers: 1,
    pollMs: 20,
    workRoot: folder,
  });
  try {
    await probot.receive({ id: 'hostile-1', name: 'pull_request', payload } as never);
    await app.pool!.idle();
  } finally {
    await app.stop();
    delete process.env[pr.envName];
    await fake.close();
  }
  const [job] = state.jobs();
  await backend.close();
  const bodies = fake.requests.map((r) => (typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? ''))).join('\n');
  return { github, bodies, log: printed.join(''), jobStatus: job?.status, jobError: job?.lastError };
}

it.skipIf(!hasBwrap)("through the App: no canary in any request to GitHub or in the App's log, and the function was judged", async () => {
  const run = await runApp(await mkdtemp(path.join(appDir, 'sandboxed-')), SYSTEM_PATH);
  expect(run.jobStatus, run.jobError ?? '').toBe('done');
  expect(run.bodies).toContain('ledger/store.py'); // the review went out
  // The code ran in the sandbox: a verdict, not "untested".
  expect(run.github.checkRuns[0]?.output?.summary ?? '').toMatch(/safe by accident|unsafe|safe by design/);
  expect({ where: 'request bodies', leaked: run.bodies.includes(pr.token) }).toEqual({ where: 'request bodies', leaked: false });
  expect(run.log).toContain('hostile-1'); // the log was captured
  expect({ where: 'log', leaked: run.log.includes(pr.token) }).toEqual({ where: 'log', leaked: false });
}, 240_000);

it('through the App where bubblewrap cannot start: the code is not run, and the check run says why (action_required), never passes', async () => {
  // A bwrap that fails as Docker's default seccomp profile or Ubuntu 24.04's AppArmor make it fail.
  const bin = await mkdtemp(path.join(appDir, 'bin-'));
  writeFileSync(path.join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', { mode: 0o755 });
  const run = await runApp(await mkdtemp(path.join(appDir, 'refused-')), [bin, ...SYSTEM_PATH.filter((d) => !existsSync(path.join(d, 'bwrap')))]);
  expect(run.jobStatus, run.jobError ?? '').toBe('done');
  const [check] = run.github.checkRuns;
  expect(check?.conclusion).toBe('action_required');
  expect(check?.output?.summary ?? '').toMatch(/sandbox|bubblewrap/i);
  expect(run.bodies).not.toMatch(/safe by accident|safe by design/);
  expect(run.bodies.includes(pr.token) || run.log.includes(pr.token)).toBe(false);
}, 240_000);
