// A small stateful GitHub on 127.0.0.1 for the App's end-to-end test: it keeps
// check runs, reviews and comments as GitHub would, records every request, and
// can hold requests (to kill the App mid-review) until released.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PullRequestFixture {
  number: number;
  headSha: string;
  baseSha: string;
  files: { filename: string; status: string; patch?: string }[];
}

export interface Recorded {
  method: string;
  path: string;
  body: unknown;
}

export interface FakeGitHubApp {
  /** `127.0.0.1:port`, for GHE_HOST. */
  host: string;
  requests: Recorded[];
  checkRuns: { id: number; head_sha: string; name: string; status: string; conclusion?: string; output?: unknown }[];
  reviews: { id: number; pull: number; commit_id: string; comments: unknown[] }[];
  issueComments: { id: number; pull: number; body: string }[];
  /** Requests whose path matches are held without an answer until `release()`. */
  hold(pattern: RegExp): { arrived: Promise<void>; release(): void };
  unanswered: Recorded[];
  close(): Promise<void>;
}

const BOT = { login: 'crashprobe[bot]', type: 'Bot', id: 99 };

export async function startFakeGitHubApp(options: { owner: string; repo: string; pulls: PullRequestFixture[]; files: Record<string, string> }): Promise<FakeGitHubApp> {
  const { owner, repo } = options;
  const fullName = `${owner}/${repo}`;
  let nextId = 1000;
  const holds: { pattern: RegExp; arrived: () => void; released: Promise<void> }[] = [];
  const fake: FakeGitHubApp = {
    host: '',
    requests: [],
    checkRuns: [],
    reviews: [],
    issueComments: [],
    unanswered: [],
    hold(pattern) {
      let arrived!: () => void;
      let release!: () => void;
      const arrivedPromise = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.push({ pattern, arrived, released });
      return { arrived: arrivedPromise, release };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const pull = (n: string) => options.pulls.find((p) => p.number === Number(n));
  const pullJson = (p: PullRequestFixture) => ({
    number: p.number,
    state: 'open',
    draft: false,
    head: { sha: p.headSha, ref: `feature-${p.number}`, repo: { full_name: fullName } },
    base: { sha: p.baseSha, ref: 'main', repo: { full_name: fullName } },
  });

  type Answer = { status: number; json?: unknown; text?: string };
  const routes: [string, RegExp, (m: RegExpMatchArray, body: any) => Answer][] = [
    ['POST', /^\/api\/v3\/app\/installations\/(\d+)\/access_tokens$/, () => ({ status: 201, json: { token: 'ghs_fake', expires_at: new Date(Date.now() + 3_600_000).toISOString() } })],
    ['GET', /^\/api\/v3\/app$/, () => ({ status: 200, json: { id: 42, slug: 'crashprobe' } })],
    ['GET', /^\/api\/v3\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)$/, (m) => (pull(m[1]!) ? { status: 200, json: pullJson(pull(m[1]!)!) } : { status: 404 })],
    ['GET', /^\/api\/v3\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)\/files$/, (m) => ({ status: 200, json: pull(m[1]!)?.files ?? [] })],
    ['GET', /^\/api\/v3\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)\/comments$/, (m) => ({
      status: 200,
      json: fake.reviews.filter((r) => r.pull === Number(m[1])).flatMap((r) => r.comments),
    })],
    ['POST', /^\/api\/v3\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)\/reviews$/, (m, body) => {
      const id = nextId++;
      const comments = (body.comments ?? []).map((c: object) => ({ ...c, id: nextId++, user: BOT, pull_request_review_id: id }));
      fake.reviews.push({ id, pull: Number(m[1]), commit_id: body.commit_id, comments });
      return { status: 200, json: { id } };
    }],
    ['GET', /^\/api\/v3\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/, (m) => ({
      status: 200,
      json: fake.issueComments.filter((c) => c.pull === Number(m[1])).map((c) => ({ ...c, user: BOT })),
    })],
    ['POST', /^\/api\/v3\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/, (m, body) => {
      const comment = { id: nextId++, pull: Number(m[1]), body: body.body };
      fake.issueComments.push(comment);
      return { status: 201, json: comment };
    }],
    ['PATCH', /^\/api\/v3\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/, (m, body) => {
      const comment = fake.issueComments.find((c) => c.id === Number(m[1]));
      if (!comment) return { status: 404 };
      comment.body = body.body;
      return { status: 200, json: comment };
    }],
    ['GET', /^\/api\/v3\/repos\/[^/]+\/[^/]+\/commits\/([0-9a-f]+)\/check-runs$/, (m) => {
      const runs = fake.checkRuns.filter((r) => r.head_sha === m[1]);
      return { status: 200, json: { total_count: runs.length, check_runs: runs } };
    }],
    ['POST', /^\/api\/v3\/repos\/[^/]+\/[^/]+\/check-runs$/, (_m, body) => {
      const run = { id: nextId++, head_sha: body.head_sha, name: body.name, status: body.status, output: body.output };
      fake.checkRuns.push(run);
      return { status: 201, json: run };
    }],
    ['PATCH', /^\/api\/v3\/repos\/[^/]+\/[^/]+\/check-runs\/(\d+)$/, (m, body) => {
      const run = fake.checkRuns.find((r) => r.id === Number(m[1]));
      if (!run) return { status: 404 };
      Object.assign(run, body.status ? { status: body.status } : {}, body.conclusion ? { conclusion: body.conclusion } : {}, { output: body.output });
      return { status: 200, json: run };
    }],
    ['GET', /^\/api\/v3\/repos\/([^/]+)\/([^/]+)\/contents\/(.+)$/, (m) => {
      const text = m[1] === owner && m[2] === repo ? options.files[decodeURIComponent(m[3]!)] : undefined;
      return text === undefined ? { status: 404 } : { status: 200, text };
    }],
    ['GET', /^\/api\/v3\/repos\/[^/]+\/[^/]+\/git\/trees\/[0-9a-f]+$/, () => ({
      status: 200,
      json: { truncated: false, tree: Object.keys(options.files).map((path) => ({ path, type: 'blob' })) },
    })],
    ['POST', /^\/api\/graphql$/, () => ({
      status: 200,
      json: { data: { repository: { pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [] } } } } },
    })],
  ];

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const body = await readJson(request);
    const recorded = { method: request.method ?? 'GET', path: url.pathname, body };
    fake.requests.push(recorded);
    const held = holds.find((h) => h.pattern.test(url.pathname));
    if (held) {
      holds.splice(holds.indexOf(held), 1);
      held.arrived();
      await held.released;
    }
    // The caller died while held: like GitHub, do nothing for a request nobody waits for.
    if (response.destroyed) return;
    const route = routes.find(([method, pattern]) => method === recorded.method && pattern.test(url.pathname));
    const answer = route ? route[2](url.pathname.match(route[1])!, body) : { status: 404 };
    if (!route) fake.unanswered.push(recorded);
    if (answer.text !== undefined) {
      response.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' }).end(answer.text);
    } else {
      response
        .writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' })
        .end(JSON.stringify(answer.json ?? { message: 'Not Found' }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}
