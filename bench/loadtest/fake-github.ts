// The GitHub the load test's App replicas talk to (GHE_HOST on 127.0.0.1): many pull requests
// of one repository whose heads move when the load test pushes, check runs, reviews and the
// summary comment kept as GitHub keeps them, every write timestamped so the load test can
// measure delivery-to-review latency and find anything posted twice.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { readRequestBody } from '../../test/support/request-body.ts';

export interface FakePull {
  number: number;
  headSha: string;
  baseSha: string;
  files: { filename: string; status: string; patch?: string }[];
}

export interface Posted {
  at: number;
  pull: number;
  sha: string;
}

export interface FakeCheckRun {
  id: number;
  head_sha: string;
  name: string;
  status: string;
  conclusion?: string;
  external_id?: string;
  output?: unknown;
  createdAt: number;
  completedAt?: number;
}

export interface LoadGitHub {
  /** `127.0.0.1:port`, for GHE_HOST. */
  host: string;
  pulls: Map<number, FakePull>;
  reviews: (Posted & { id: number; comments: unknown[] })[];
  checkRuns: FakeCheckRun[];
  issueComments: { id: number; pull: number; body: string; at: number }[];
  /** Each GET of a pull request, with the head it answered: which heads a worker ever started on. */
  pullReads: Posted[];
  /** Requests no route knew (answered 404). */
  unanswered: string[];
  requestCount(): number;
  /** A push: the pull request's head (and its changed files) move, before its webhook is sent, as on GitHub. */
  push(number: number, headSha: string, files: FakePull['files']): void;
  close(): Promise<void>;
}

/** What a contents read without `ref` means: the default branch. */
export const BASE_REF = 'main';
const BOT = { login: 'crashprobe[bot]', type: 'Bot', id: 99 };
const APP = { id: 42, slug: 'crashprobe' };

export interface LoadGitHubOptions {
  owner: string;
  repo: string;
  pulls: FakePull[];
  /** The repository's files at a commit (the base, or a head): what trees, contents and tarballs serve. */
  treeOf(sha: string): Record<string, string> | undefined;
}

export async function startLoadGitHub(options: LoadGitHubOptions): Promise<LoadGitHub> {
  const fullName = `${options.owner}/${options.repo}`;
  let nextId = 1000;
  let requests = 0;
  const fake: LoadGitHub = {
    host: '',
    pulls: new Map(options.pulls.map((p) => [p.number, { ...p }])),
    reviews: [],
    checkRuns: [],
    issueComments: [],
    pullReads: [],
    unanswered: [],
    requestCount: () => requests,
    push(number, headSha, files) {
      const pull = fake.pulls.get(number);
      if (!pull) throw new Error(`no pull request #${number} in the fake GitHub`);
      pull.headSha = headSha;
      pull.files = files;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  const pullJson = (p: FakePull) => ({
    number: p.number,
    state: 'open',
    draft: false,
    head: { sha: p.headSha, ref: `feature-${p.number}`, repo: { full_name: fullName } },
    base: { sha: p.baseSha, ref: 'main', repo: { full_name: fullName } },
  });
  const pullOf = (n: string | undefined) => fake.pulls.get(Number(n));

  type Answer = { status: number; json?: unknown; text?: string; raw?: Buffer };
  const tarballs = new Map<string, Buffer>();
  /** GitHub's tarball of a commit: one top folder `owner-repo-sha7/`, made with tar and kept. */
  const tarball = (sha: string): Buffer | undefined => {
    const tree = options.treeOf(sha);
    if (!tree) return undefined;
    if (!tarballs.has(sha)) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'loadtest-tarball-'));
      const top = `${options.owner}-${options.repo}-${sha.slice(0, 7)}`;
      for (const [file, text] of Object.entries(tree)) {
        mkdirSync(path.dirname(path.join(dir, top, file)), { recursive: true });
        writeFileSync(path.join(dir, top, file), text);
      }
      tarballs.set(sha, execFileSync('tar', ['-czf', '-', '-C', dir, top]));
      rmSync(dir, { recursive: true, force: true });
    }
    return tarballs.get(sha);
  };
  const repo = '^/api/v3/repos/[^/]+/[^/]+';
  const routes: [string, RegExp, (m: RegExpMatchArray, body: any, query: URLSearchParams) => Answer][] = [
    ['POST', /^\/api\/v3\/app\/installations\/(\d+)\/access_tokens$/, () => ({ status: 201, json: { token: 'ghs_fake', expires_at: new Date(Date.now() + 3_600_000).toISOString() } })],
    ['GET', /^\/api\/v3\/app$/, () => ({ status: 200, json: APP })],
    ['GET', new RegExp(`${repo}/pulls/(\\d+)$`), (m) => {
      const pull = pullOf(m[1]);
      if (!pull) return { status: 404 };
      fake.pullReads.push({ at: Date.now(), pull: pull.number, sha: pull.headSha });
      return { status: 200, json: pullJson(pull) };
    }],
    ['GET', new RegExp(`${repo}/pulls/(\\d+)/files$`), (m) => ({ status: 200, json: pullOf(m[1])?.files ?? [] })],
    ['GET', new RegExp(`${repo}/pulls/(\\d+)/comments$`), (m) => ({ status: 200, json: fake.reviews.filter((r) => r.pull === Number(m[1])).flatMap((r) => r.comments) })],
    ['POST', new RegExp(`${repo}/pulls/(\\d+)/reviews$`), (m, body) => {
      const id = nextId++;
      const comments = (body.comments ?? []).map((c: object) => ({ ...c, id: nextId++, user: BOT, pull_request_review_id: id }));
      fake.reviews.push({ id, at: Date.now(), pull: Number(m[1]), sha: body.commit_id, comments });
      return { status: 200, json: { id } };
    }],
    ['GET', new RegExp(`${repo}/issues/(\\d+)/comments$`), (m) => ({
      status: 200,
      json: fake.issueComments.filter((c) => c.pull === Number(m[1])).map((c) => ({ id: c.id, body: c.body, user: BOT })),
    })],
    ['POST', new RegExp(`${repo}/issues/(\\d+)/comments$`), (m, body) => {
      const comment = { id: nextId++, pull: Number(m[1]), body: body.body as string, at: Date.now() };
      fake.issueComments.push(comment);
      return { status: 201, json: { id: comment.id, body: comment.body, user: BOT } };
    }],
    ['PATCH', new RegExp(`${repo}/issues/comments/(\\d+)$`), (m, body) => {
      const comment = fake.issueComments.find((c) => c.id === Number(m[1]));
      if (!comment) return { status: 404 };
      comment.body = body.body;
      return { status: 200, json: { id: comment.id, body: comment.body, user: BOT } };
    }],
    ['GET', new RegExp(`${repo}/commits/([0-9a-f]+)/check-runs$`), (m) => {
      const runs = fake.checkRuns.filter((r) => r.head_sha === m[1]).map(checkRunJson);
      return { status: 200, json: { total_count: runs.length, check_runs: runs } };
    }],
    ['POST', new RegExp(`${repo}/check-runs$`), (_m, body) => {
      const run: FakeCheckRun = { ...body, id: nextId++, createdAt: Date.now() };
      if (run.status === 'completed') run.completedAt = Date.now();
      fake.checkRuns.push(run);
      return { status: 201, json: checkRunJson(run) };
    }],
    ['PATCH', new RegExp(`${repo}/check-runs/(\\d+)$`), (m, body) => {
      const run = fake.checkRuns.find((r) => r.id === Number(m[1]));
      if (!run) return { status: 404 };
      Object.assign(run, body);
      if (body.status === 'completed' || body.conclusion) run.completedAt ??= Date.now();
      return { status: 200, json: checkRunJson(run) };
    }],
    ['GET', new RegExp(`${repo}/check-runs/(\\d+)/annotations$`), () => ({ status: 200, json: [] })],
    ['GET', new RegExp(`^/api/v3/repos/([^/]+)/([^/]+)/contents/(.+)$`), (m, _body, query) => {
      const own = m[1] === options.owner && m[2] === options.repo;
      // No ref: the default branch (the config); a ref: that commit's file.
      const text = own ? options.treeOf(query.get('ref') ?? BASE_REF)?.[decodeURIComponent(m[3]!)] : undefined;
      return text === undefined ? { status: 404 } : { status: 200, text };
    }],
    ['GET', new RegExp(`${repo}/git/trees/([0-9a-f]+)$`), (m) => {
      const tree = options.treeOf(m[1]!);
      return tree ? { status: 200, json: { sha: m[1], truncated: false, tree: Object.keys(tree).map((file) => ({ path: file, type: 'blob', mode: '100644' })) } } : { status: 404 };
    }],
    ['GET', new RegExp(`${repo}/tarball/([0-9a-f]+)$`), (m) => {
      const archive = tarball(m[1]!);
      return archive ? { status: 200, raw: archive } : { status: 404 };
    }],
    ['POST', /^\/api\/graphql$/, () => ({
      status: 200,
      json: { data: { repository: { pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [] } } } } },
    })],
  ];

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    requests += 1;
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const body = await readRequestBody(request);
    const method = request.method ?? 'GET';
    const route = routes.find(([m, pattern]) => m === method && pattern.test(url.pathname));
    const answer = route ? route[2](url.pathname.match(route[1])!, body, url.searchParams) : { status: 404 };
    if (!route) fake.unanswered.push(`${method} ${url.pathname}`);
    if (answer.raw !== undefined) response.writeHead(answer.status, { 'content-type': 'application/x-gzip' }).end(answer.raw);
    else if (answer.text !== undefined) response.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' }).end(answer.text);
    else response.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(answer.json ?? { message: 'Not Found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

function checkRunJson(run: FakeCheckRun) {
  const { createdAt: _created, completedAt: _completed, ...json } = run;
  return { ...json, app: APP };
}

