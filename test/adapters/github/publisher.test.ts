// The one publisher (App and Action alike) against nock: the check run first, the
// review reconciled, the check run completed, and the degraded paths a token's
// permissions lead to. Every request GitHub would receive is asserted.
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { failedOutcome } from '../../../src/adapters/github/fail-closed.ts';
import { GitHubApiError } from '../../../src/adapters/github/errors.ts';
import { reviewPublisher } from '../../../src/adapters/github/publisher.ts';
import { summaryBody } from '../../../src/adapters/github/publish.ts';
import { API, BOT, comment, FILES, HEAD, PR, sampleReview, testOctokit, withoutTimes } from './fixtures.ts';

const repo = `/repos/${PR.owner}/${PR.repo}`;
const target = { ...PR, headSha: HEAD };
const forbidden = { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com/rest' };
const noThreads = { data: { repository: { pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [] } } } } };

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

function calls() {
  const sent: { call: string; body: any }[] = [];
  const record = (call: string) => (body: any) => (sent.push({ call, body: typeof body === 'object' ? withoutTimes(body) : body }), true);
  return { sent, record };
}

function publisher(options: Partial<Parameters<typeof reviewPublisher>[2]> = {}) {
  return reviewPublisher(testOctokit(), target, { author: { login: BOT.login }, appId: 42, ...options });
}

const noCheckRuns = { total_count: 0, check_runs: [] };

describe('reviewPublisher', () => {
  it('starts the check run in progress before anything else, posts the review and the summary, then completes the check run', async () => {
    const { sent, record } = calls();
    const scope = nock(API)
      .get(`${repo}/commits/${HEAD}/check-runs`).query({ check_name: 'crashprobe', filter: 'all', app_id: '42' }).reply(200, noCheckRuns)
      .post(`${repo}/check-runs`, record('create check run')).reply(201, { id: 900 })
      .get(`${repo}/pulls/7/comments`).query(true).reply(200, [])
      .post(`${repo}/pulls/7/reviews`, record('create review')).reply(200, { id: 101 })
      .get(`${repo}/issues/7/comments`).query(true).reply(200, [])
      .post(`${repo}/issues/7/comments`, record('create summary')).reply(201, { id: 6 })
      .patch(`${repo}/check-runs/900`, record('complete check run')).reply(200, { id: 900 });
    const remembered: number[] = [];
    const p = publisher({ onCheckRun: (id) => remembered.push(id) });
    await p.start();
    expect(sent.map((s) => s.call)).toEqual(['create check run']);
    const report = await p.publish(sampleReview(), FILES);

    expect(report).toMatchObject({ pullRequest: 'posted', check: 'check-run', refusals: [], result: { reviewId: 101, posted: ['fp-send'] } });
    expect(remembered).toEqual([900]);
    expect(sent.map((s) => s.call)).toEqual(['create check run', 'create review', 'create summary', 'complete check run']);
    expect(sent[0]!.body).toMatchObject({ status: 'in_progress', external_id: 'crashprobe-review' });
    for (const { body } of sent) expect(body).not.toHaveProperty('number');
    expect(sent[3]!.body).toMatchObject({ status: 'completed', conclusion: 'failure', output: { annotations: [expect.objectContaining({ path: 'shop/orders.py' })] } });
    expect(scope.isDone()).toBe(true);
  });

  it('on a re-run of the same head: takes up its own check run, posts no second review and leaves an unchanged summary alone', async () => {
    const review = sampleReview();
    const { sent, record } = calls();
    const scope = nock(API)
      .get(`${repo}/commits/${HEAD}/check-runs`).query(true)
      .reply(200, { total_count: 1, check_runs: [{ id: 900, name: 'crashprobe', head_sha: HEAD, external_id: 'crashprobe-review', app: { slug: 'crashprobe' } }] })
      .patch(`${repo}/check-runs/900`, record('check run in progress again')).reply(200, { id: 900 })
      .get(`${repo}/pulls/7/comments`).query(true).reply(200, [{ id: 11, body: comment('fp-send', 3).body, user: BOT }])
      .post('/graphql', record('threads')).reply(200, {
        data: { repository: { pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [{ id: 'T1', isResolved: false, comments: { nodes: [{ databaseId: 11 }] } }] } } } },
      })
      .get(`${repo}/issues/7/comments`).query(true).reply(200, [{ id: 6, body: summaryBody(review, []), user: BOT }])
      // What the first run left on the check run: GitHub appends annotations, so they are not sent again.
      .get(`${repo}/check-runs/900/annotations`).query(true)
      .reply(200, review.annotations.map((a) => ({ path: a.path, start_line: a.startLine, end_line: a.endLine, annotation_level: a.level, title: a.title, message: a.message })))
      .patch(`${repo}/check-runs/900`, record('complete check run')).reply(200, { id: 900 });

    const report = await publisher().publish(review, FILES);
    expect(sent[2]!.body).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect((sent[2]!.body as { output: { annotations?: unknown[] } }).output.annotations).toBeUndefined();

    expect(report.result).toMatchObject({ reviewId: undefined, posted: [], unchanged: ['fp-send'], summary: 'unchanged' });
    expect(sent.map((s) => s.call)).toEqual(['check run in progress again', 'threads', 'complete check run']);
    expect(sent[0]!.body).toMatchObject({ status: 'in_progress' });
    expect(scope.isDone()).toBe(true);
  });

  it('reopens the thread it resolved when the finding comes back, and leaves one a person resolved alone', async () => {
    const { sent, record } = calls();
    const review = sampleReview([comment('fp-send', 3), comment('fp-dismissed', 4)]);
    const scope = nock(API)
      .get(`${repo}/pulls/7/comments`).query(true).reply(200, [
        { id: 11, body: comment('fp-send', 3).body, user: BOT },
        { id: 12, body: comment('fp-dismissed', 4).body, user: BOT },
      ])
      .post('/graphql').reply(200, {
        data: { repository: { pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [
          { id: 'T_send', isResolved: true, resolvedBy: { login: BOT.login }, comments: { nodes: [{ databaseId: 11 }] } },
          { id: 'T_dismissed', isResolved: true, resolvedBy: { login: 'alice' }, comments: { nodes: [{ databaseId: 12 }] } },
        ] } } } },
      })
      .post('/graphql', record('reopen')).reply(200, { data: { unresolveReviewThread: { thread: { id: 'T_send', isResolved: false } } } })
      .get(`${repo}/issues/7/comments`).query(true).reply(200, [])
      .post(`${repo}/issues/7/comments`).reply(201, { id: 6 })
      .patch(`${repo}/check-runs/900`).reply(200, { id: 900 });

    const report = await publisher({ checkRunId: 900 }).publish(review, FILES);

    expect(report.result).toMatchObject({ posted: [], reopened: ['fp-send'], resolved: [] });
    expect(sent).toEqual([{ call: 'reopen', body: { query: expect.stringContaining('unresolveReviewThread'), variables: { threadId: 'T_send' } } }]);
    expect(scope.isDone()).toBe(true);
  });

  it('treats GraphQL FORBIDDEN at HTTP 200 as a read-only token: no review, and the check run still carries the conclusion and annotations', async () => {
    const { sent, record } = calls();
    const scope = nock(API)
      .get(`${repo}/pulls/7/comments`).query(true).reply(200, [{ id: 12, body: comment('fp-fixed', 2).body, user: BOT }])
      .post('/graphql').reply(200, {
        data: { repository: { pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [{ id: 'T_fixed', isResolved: false, comments: { nodes: [{ databaseId: 12 }] } }] } } } },
      })
      .post('/graphql')
      .reply(200, { data: { resolveReviewThread: null }, errors: [{ type: 'FORBIDDEN', path: ['resolveReviewThread'], message: 'Resource not accessible by integration' }] })
      .patch(`${repo}/check-runs/900`, record('complete check run')).reply(200, { id: 900 });

    const report = await publisher({ checkRunId: 900 }).publish(sampleReview(), FILES);

    expect(report).toMatchObject({ pullRequest: 'read-only', check: 'check-run' });
    expect(report.refusals).toEqual([expect.stringContaining('resolveReviewThread) failed with 403: FORBIDDEN: Resource not accessible by integration')]);
    expect(sent[0]!.body).toMatchObject({ conclusion: 'failure', output: { annotations: [expect.anything()] } });
    expect(scope.isDone()).toBe(true);
  });

  it('without checks: write: posts the review and puts the conclusion on a commit status (pending first)', async () => {
    const { sent, record } = calls();
    const scope = nock(API)
      .get(`${repo}/commits/${HEAD}/check-runs`).query(true).reply(200, noCheckRuns)
      .post(`${repo}/check-runs`).reply(403, forbidden)
      .post(`${repo}/statuses/${HEAD}`, record('status')).reply(201, {})
      .get(`${repo}/pulls/7/comments`).query(true).reply(200, [])
      .post(`${repo}/pulls/7/reviews`).reply(200, { id: 101 })
      .get(`${repo}/issues/7/comments`).query(true).reply(200, [])
      .post(`${repo}/issues/7/comments`).reply(201, { id: 6 })
      .post(`${repo}/statuses/${HEAD}`, record('status')).reply(201, {});

    const report = await publisher().publish(sampleReview(), FILES);

    expect(report).toMatchObject({ pullRequest: 'posted', check: 'commit-status' });
    expect(sent.map((s) => [s.body.state, s.body.context])).toEqual([['pending', 'crashprobe'], ['failure', 'crashprobe']]);
    expect(scope.isDone()).toBe(true);
  });

  it('with neither checks nor statuses writable: says so (check: none) and does not throw', async () => {
    const scope = nock(API)
      .get(`${repo}/commits/${HEAD}/check-runs`).query(true).reply(403, forbidden)
      .post(`${repo}/statuses/${HEAD}`).reply(403, forbidden)
      .get(`${repo}/pulls/7/comments`).query(true).reply(200, [])
      .post(`${repo}/pulls/7/reviews`).reply(403, forbidden);

    const report = await publisher().publish(sampleReview(), FILES);

    expect(report).toMatchObject({ pullRequest: 'read-only', check: 'none' });
    expect(report.refusals).toHaveLength(3);
    expect(scope.isDone()).toBe(true);
  });

  it('throws a 5xx (not a permission) for the caller, and fails closed: conclude() completes the check run as failure with the reason', async () => {
    const { sent, record } = calls();
    const scope = nock(API)
      .get(`${repo}/pulls/7/comments`).query(true).reply(200, [])
      .post(`${repo}/pulls/7/reviews`).reply(502, { message: 'Server Error' })
      .patch(`${repo}/check-runs/900`, record('complete check run')).reply(200, { id: 900 });
    const p = publisher({ checkRunId: 900 });
    const review = sampleReview();

    const error = await p.publish(review, FILES).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubApiError);
    expect((error as GitHubApiError).retryable).toBe(true);
    expect((error as Error).message).not.toMatch(/retried later/);
    await p.conclude(failedOutcome((error as Error).message, review));

    expect(sent[0]!.body).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: 'crashprobe could not post its review' } });
    expect(sent[0]!.body.output.summary).toContain('failed with 502');
    expect(scope.isDone()).toBe(true);
  });
});
