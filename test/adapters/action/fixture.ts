// A workflow job as GitHub would set it up for examples/shop's pull request: the
// checkout in a workspace, the pull_request event payload, the runner's files,
// and a fake GitHub API on 127.0.0.1 that keeps the state a real one would (check
// runs, review comments and their threads, issue comments, commit statuses),
// refuses writes the token's permissions do not allow the way GitHub does (REST:
// 403; GraphQL mutations: HTTP 200 with an error of type FORBIDDEN), and records
// every request.
import { mkdtempSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { buildExampleRepository } from '../../../scripts/example.ts';
import { splitGitDiff } from '../../../src/adapters/cli/git-source.ts';
import { examplePayload } from './events.ts';
import { startFakeGitHub, type Answer, type FakeGitHub, type RecordedRequest, type Routes } from './fake-github.ts';

export const REPOSITORY = 'Codertocat/Hello-World';
export const NUMBER = 2;

/** Who `${{ github.token }}` is on GitHub: the Actions app's bot. */
export const ACTIONS_BOT_USER = { login: 'github-actions[bot]', id: 41898282, type: 'Bot' };

/** The step outputs for examples/shop's whole change under fail-on: unsafe (one function of each class it shows). */
export const SHOP_OUTPUTS = {
  unsafe: '1',
  'safe-by-accident': '1',
  'safe-by-design': '1',
  'not-working': '0',
  untested: '0',
  conclusion: 'failure',
};

/** What the job's token may write: `permissions:` of the workflow (a fork's pull_request token may write nothing). */
export interface Permissions {
  pullRequests: boolean;
  checks: boolean;
  statuses: boolean;
}

export const FULL: Permissions = { pullRequests: true, checks: true, statuses: true };
export const READ_ONLY: Permissions = { pullRequests: false, checks: false, statuses: false };

export interface CheckRun {
  id: number;
  name: string;
  head_sha: string;
  external_id?: string;
  status: string;
  conclusion?: string;
  output?: { title?: string; summary?: string; annotations?: unknown[] };
  app: { slug: string };
}

export interface ReviewComment {
  id: number;
  body: string;
  path: string;
  line: number;
  user: typeof ACTIONS_BOT_USER;
  in_reply_to_id: null;
}

export interface Thread {
  id: string;
  isResolved: boolean;
  resolvedBy: { login: string } | null;
  commentId: number;
}

export interface IssueComment {
  id: number;
  body: string;
  user: typeof ACTIONS_BOT_USER;
}

/** What GitHub holds for the repository; a re-run in the same test sees what the first run left. */
export interface GitHubState {
  permissions: Permissions;
  /** `METHOD /path` (with `:name` segments, as routes) answered with this status instead, e.g. a 502. */
  failing: Record<string, number>;
  checkRuns: CheckRun[];
  statuses: { sha: string; state: string; context: string; description?: string }[];
  reviews: { id: number; commit_id: string; body: string; comments: number }[];
  reviewComments: ReviewComment[];
  threads: Thread[];
  issueComments: IssueComment[];
}

export interface Job {
  /** The checkout of the pull request's head. */
  workspace: string;
  baseSha: string;
  headSha: string;
  eventPath: string;
  outputPath: string;
  summaryPath: string;
  github: FakeGitHub;
  state: GitHubState;
  /** The runner's variables, pointing at the fake API. */
  env: Record<string, string>;
  /** Empties the output and summary files, as a new job's runner would. */
  resetRunnerFiles(): Promise<void>;
  cleanUp(): Promise<void>;
}

export interface JobOptions {
  permissions?: Permissions;
  /** Routes answered with this status (`'POST /repos/:owner/:repo/pulls/:number/reviews': 502`). */
  failing?: Record<string, number>;
  /** The pull request's files as pulls/files lists them (default: all the change touches). */
  onlyFiles?: string[];
  /** Builds the checkout (a git repository with `main` as the base and HEAD as the head); examples/shop's change by default. */
  repository?: () => Promise<string>;
  /** The head is in another repository, as a fork's pull request. */
  fromFork?: boolean;
  /** The event's name (GITHUB_EVENT_NAME), pull_request by default. */
  eventName?: string;
  /** State left by an earlier review, e.g. crashprobe's comments on the pull request. */
  seed?(state: GitHubState): void;
}

/**
 * The runner's own temp folder, one per test process: a job's event payload, output
 * and job summary files live here, as under $RUNNER_TEMP.
 */
const runnerTemp = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-runner-'));

export function removeRunnerTemp(): Promise<void> {
  return rm(runnerTemp, { recursive: true, force: true });
}

const git = (cwd: string, ...args: string[]) => execa('git', args, { cwd }).then((r) => r.stdout.trim());

let jobCount = 0;

export async function startJob(options: JobOptions = {}): Promise<Job> {
  const workspace = await (options.repository ?? buildExampleRepository)();
  const baseSha = await git(workspace, 'rev-parse', 'main');
  const headSha = await git(workspace, 'rev-parse', 'HEAD');
  const changed = splitGitDiff(await git(workspace, 'diff', '--no-color', '--find-renames', 'main', 'HEAD'))
    .filter((file) => !options.onlyFiles || options.onlyFiles.includes(file.path))
    .map((file) => ({ filename: file.path, status: file.status, patch: file.patch, previous_filename: file.previousPath }));

  const payload = examplePayload('pull_request', 'synchronize');
  payload.pull_request.base.sha = baseSha;
  payload.pull_request.head.sha = headSha;
  if (options.fromFork) payload.pull_request.head.repo = { full_name: 'forker/Hello-World' };
  const dir = path.join(runnerTemp, `job-${++jobCount}`);
  await execa('mkdir', ['-p', dir]);
  const eventPath = path.join(dir, 'event.json');
  await writeFile(eventPath, JSON.stringify(payload));
  const outputPath = path.join(dir, 'output');
  const summaryPath = path.join(dir, 'step_summary.md');
  const resetRunnerFiles = async () => {
    await writeFile(outputPath, '');
    await writeFile(summaryPath, '');
  };
  await resetRunnerFiles();

  const state: GitHubState = {
    permissions: options.permissions ?? FULL,
    failing: options.failing ?? {},
    checkRuns: [],
    statuses: [],
    reviews: [],
    reviewComments: [],
    threads: [],
    issueComments: [],
  };
  options.seed?.(state);
  const github = await startFakeGitHub(fakeRepository(state, changed));
  return {
    workspace,
    baseSha,
    headSha,
    eventPath,
    outputPath,
    summaryPath,
    github,
    state,
    env: {
      GITHUB_API_URL: github.url,
      GITHUB_EVENT_NAME: options.eventName ?? 'pull_request',
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_REPOSITORY: REPOSITORY,
      GITHUB_WORKSPACE: workspace,
      GITHUB_OUTPUT: outputPath,
      GITHUB_STEP_SUMMARY: summaryPath,
    },
    resetRunnerFiles,
    async cleanUp() {
      await github.close();
      await rm(workspace, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const FORBIDDEN: Answer = { status: 403, body: { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com/rest' } };

/** The routes of a repository with one pull request (#2), reading and writing `state`. */
export function fakeRepository(state: GitHubState, changedFiles: unknown[]): Routes {
  let nextId = 100;
  const repo = '/repos/:owner/:repo';
  const pr = `${repo}/pulls/:number`;
  const writes = (allowed: keyof Permissions, answer: (request: RecordedRequest, params: Record<string, string>) => Answer) =>
    (request: RecordedRequest, params: Record<string, string>): Answer => (state.permissions[allowed] ? answer(request, params) : FORBIDDEN);
  const routes: Routes = {
    [`GET ${pr}/files`]: { status: 200, body: changedFiles },
    [`GET ${pr}/comments`]: () => ({ status: 200, body: state.reviewComments }),
    [`POST ${pr}/reviews`]: writes('pullRequests', (request) => {
      const body = request.body as { commit_id: string; body: string; comments: { path: string; line: number; body: string }[] };
      const review = { id: nextId++, commit_id: body.commit_id, body: body.body, comments: body.comments.length };
      state.reviews.push(review);
      for (const c of body.comments) {
        const comment: ReviewComment = { id: nextId++, body: c.body, path: c.path, line: c.line, user: ACTIONS_BOT_USER, in_reply_to_id: null };
        state.reviewComments.push(comment);
        state.threads.push({ id: `PRRT_${comment.id}`, isResolved: false, resolvedBy: null, commentId: comment.id });
      }
      return { status: 200, body: { id: review.id } };
    }),
    [`GET ${repo}/issues/:number/comments`]: () => ({ status: 200, body: state.issueComments }),
    [`POST ${repo}/issues/:number/comments`]: writes('pullRequests', (request) => {
      const comment = { id: nextId++, body: (request.body as { body: string }).body, user: ACTIONS_BOT_USER };
      state.issueComments.push(comment);
      return { status: 201, body: comment };
    }),
    [`PATCH ${repo}/issues/comments/:id`]: writes('pullRequests', (request, params) => {
      const comment = state.issueComments.find((c) => c.id === Number(params.id));
      if (!comment) return { status: 404, body: { message: 'Not Found' } };
      comment.body = (request.body as { body: string }).body;
      return { status: 200, body: comment };
    }),
    [`GET ${repo}/commits/:sha/check-runs`]: (request, params) => {
      const runs = state.checkRuns.filter((r) => r.head_sha === params.sha && (!request.query.get('check_name') || r.name === request.query.get('check_name')));
      return { status: 200, body: { total_count: runs.length, check_runs: runs } };
    },
    [`POST ${repo}/check-runs`]: writes('checks', (request) => {
      const body = request.body as Omit<CheckRun, 'id' | 'app'>;
      const run: CheckRun = { ...body, id: nextId++, app: { slug: 'github-actions' } };
      state.checkRuns.push(run);
      return { status: 201, body: run };
    }),
    [`GET ${repo}/check-runs/:id/annotations`]: (_request, params) => {
      const run = state.checkRuns.find((r) => r.id === Number(params.id));
      return run ? { status: 200, body: run.output?.annotations ?? [] } : { status: 404, body: { message: 'Not Found' } };
    },
    [`PATCH ${repo}/check-runs/:id`]: writes('checks', (request, params) => {
      const run = state.checkRuns.find((r) => r.id === Number(params.id));
      if (!run) return { status: 404, body: { message: 'Not Found' } };
      const body = request.body as Partial<CheckRun>;
      Object.assign(run, body, body.output ? { output: { ...body.output, annotations: [...(run.output?.annotations ?? []), ...(body.output.annotations ?? [])] } } : {});
      return { status: 200, body: run };
    }),
    [`POST ${repo}/statuses/:sha`]: writes('statuses', (request, params) => {
      const body = request.body as { state: string; context: string; description?: string };
      state.statuses.push({ sha: params.sha ?? '', ...body });
      return { status: 201, body: { id: nextId++, ...body } };
    }),
    'POST /graphql': (request) => graphql(state, request.body as { query: string; variables: Record<string, unknown> }),
  };
  // A route told to fail answers with that status before it does anything.
  return Object.fromEntries(
    Object.entries(routes).map(([pattern, handler]) => [
      pattern,
      (request: RecordedRequest, params: Record<string, string>): Answer => {
        const status = state.failing[pattern];
        if (status) return { status, body: { message: 'Server Error' } };
        return typeof handler === 'function' ? handler(request, params) : handler;
      },
    ]),
  );
}

/** The three GraphQL operations crashprobe sends: the review threads, resolve, unresolve. */
function graphql(state: GitHubState, body: { query: string; variables: Record<string, unknown> }): Answer {
  if (/reviewThreads/.test(body.query)) {
    const nodes = state.threads.map((t) => ({ id: t.id, isResolved: t.isResolved, resolvedBy: t.resolvedBy, comments: { nodes: [{ databaseId: t.commentId }] } }));
    return { status: 200, body: { data: { repository: { pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes } } } } } };
  }
  const mutation = /(unresolveReviewThread|resolveReviewThread)/.exec(body.query)?.[1];
  if (!mutation) return { status: 200, body: { data: null, errors: [{ type: 'UNKNOWN_QUERY', message: 'the fake GitHub does not know this query' }] } };
  if (!state.permissions.pullRequests) {
    // What GitHub answers a token without pull-requests: write: HTTP 200, and the refusal in `errors`.
    return {
      status: 200,
      body: {
        data: { [mutation]: null },
        errors: [{ type: 'FORBIDDEN', path: [mutation], extensions: { saml_failure: false }, locations: [{ line: 2, column: 3 }], message: 'Resource not accessible by integration' }],
      },
    };
  }
  const thread = state.threads.find((t) => t.id === body.variables.threadId);
  if (!thread) return { status: 200, body: { data: { [mutation]: null }, errors: [{ type: 'NOT_FOUND', message: 'no such thread' }] } };
  thread.isResolved = mutation === 'resolveReviewThread';
  thread.resolvedBy = thread.isResolved ? { login: ACTIONS_BOT_USER.login } : null;
  return { status: 200, body: { data: { [mutation]: { thread: { id: thread.id, isResolved: thread.isResolved } } } } };
}

/** The step outputs as GitHub reads them from GITHUB_OUTPUT (`name<<delimiter` blocks). */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^<=]+)<<(.+)$/.exec(lines[i] ?? '');
    if (!heredoc) continue;
    const [, name = '', delimiter] = heredoc;
    const value: string[] = [];
    while (++i < lines.length && lines[i] !== delimiter) value.push(lines[i] ?? '');
    outputs[name] = value.join('\n');
  }
  return outputs;
}
