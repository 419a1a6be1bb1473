import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Review } from '../../../src/core/model/review.ts';
import { API, comment, ORDERS_PATCH, sampleReview, withoutTimes } from '../github/fixtures.ts';
import { createTestApp, nockJobStart, webhookExample, type TestApp } from './helpers.ts';

const OWNER = 'Codertocat';
const REPO = 'Hello-World';
const repo = `/repos/${OWNER}/${REPO}`;
let test: TestApp | undefined;

beforeAll(() => nock.disableNetConnect());
afterEach(async () => {
  await test?.close();
  test = undefined;
  nock.cleanAll();
});

/** The review threads GraphQL answers when crashprobe's comment 11 is an open thread (nothing to resolve or reopen). */
const OPEN_THREAD_11 = {
  data: { repository: { pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [{ id: 'T11', isResolved: false, comments: { nodes: [{ databaseId: 11 }] } }] } } } },
};

/**
 * Polls `done` until it holds or `timeoutMs` passes (then the assertions after it say what is missing).
 * Generous: a loaded 2-core CI machine took 1.0–2.8 s for what these tests wait on.
 */
async function waitFor(done: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

function openedPayload() {
  return webhookExample('pull_request', 'opened');
}

function reviewFor(headSha: string): Review {
  return sampleReview([comment('fp-send', 3)], { repository: `${OWNER}/${REPO}`, headSha });
}

describe('crashprobe Probot app', () => {
  it('answers a pull_request.opened delivery with one check run and one review; a redelivery does nothing', async () => {
    const payload = openedPayload();
    const pr = payload.pull_request;
    test = await createTestApp(async (source) => reviewFor(source.headSha));
    const sent: { call: string; body: unknown }[] = [];
    const record = (call: string) => (body: any) => (sent.push({ call, body: withoutTimes(body) }), true);
    const scope = nockJobStart(pr)
      .get(`${repo}/commits/${pr.head.sha}/check-runs`)
      .query({ check_name: 'crashprobe', filter: 'all', app_id: '42' })
      .reply(200, { total_count: 0, check_runs: [] })
      .post(`${repo}/check-runs`, record('create check run'))
      .reply(201, { id: 900 })
      .get(`${repo}/pulls/2/files`).query(true)
      .reply(200, [{ filename: 'shop/orders.py', status: 'modified', patch: ORDERS_PATCH }])
      .get(`${repo}/pulls/2/comments`).query(true)
      .reply(200, [])
      .post(`${repo}/pulls/2/reviews`, record('create review'))
      .reply(200, { id: 101 })
      .get(`${repo}/issues/2/comments`).query(true)
      .reply(200, [])
      .post(`${repo}/issues/2/comments`, (body) => (sent.push({ call: 'create summary', body: '<summary>' }), typeof body.body === 'string'))
      .reply(201, { id: 6 })
      .patch(`${repo}/check-runs/900`, record('complete check run'))
      .reply(200, { id: 900 });

    await test.probot.receive({ id: 'delivery-1', name: 'pull_request', payload } as never);
    await test.app.pool.idle();
    await test.probot.receive({ id: 'delivery-1', name: 'pull_request', payload } as never);
    await test.app.pool.idle();

    expect(test.reviews).toHaveLength(1);
    const [source, config, deps] = test.reviews[0]!;
    expect(source).toMatchObject({ repository: `${OWNER}/${REPO}`, number: 2, headSha: pr.head.sha, fromFork: false });
    expect(config.fail_on).toBe('unsafe');
    expect(deps.harness).toBeDefined();
    expect(test.state.jobs().map((j) => [j.key, j.status, j.checkRunId])).toEqual([[`${OWNER}/${REPO}#2@${pr.head.sha}`, 'done', 900]]);
    expect(sent).toMatchInlineSnapshot(`
      [
        {
          "body": {
            "external_id": "crashprobe-review",
            "head_sha": "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
            "name": "crashprobe",
            "output": {
              "summary": "Crash-testing the touched functions in both sqlite3 transaction modes.",
              "title": "crashprobe is reviewing",
            },
            "started_at": "<time>",
            "status": "in_progress",
          },
          "call": "create check run",
        },
        {
          "body": {
            "body": "crashprobe: 1 new finding(s) on ec26c3e; the summary comment has the whole picture.
      <!-- crashprobe:review head=ec26c3e57ca3a959ca5aad62de7213c562f8c821 -->",
            "comments": [
              {
                "body": "**Sends before it records** · \`send-before-record\`

      The e-mail goes out before the refund is committed.
      <!-- crashprobe:fp=fp-send -->
      ",
                "line": 3,
                "path": "shop/orders.py",
                "side": "RIGHT",
              },
            ],
            "commit_id": "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
            "event": "COMMENT",
          },
          "call": "create review",
        },
        {
          "body": "<summary>",
          "call": "create summary",
        },
        {
          "body": {
            "completed_at": "<time>",
            "conclusion": "failure",
            "output": {
              "annotations": [
                {
                  "annotation_level": "failure",
                  "end_line": 3,
                  "message": "The e-mail goes out first.",
                  "path": "shop/orders.py",
                  "start_line": 3,
                  "title": "Sends before it records",
                },
              ],
              "summary": "## crashprobe: 1 unsafe",
              "title": "crashprobe: 1 unsafe",
            },
            "status": "completed",
          },
          "call": "complete check run",
        },
      ]
    `);
    expect(scope.isDone()).toBe(true);
  });

  it('ends the check run as action_required, naming the field, when the config is broken, and posts nothing else', async () => {
    const payload = openedPayload();
    test = await createTestApp(async (source) => reviewFor(source.headSha));
    let completion: any;
    const scope = nockJobStart(payload.pull_request, { status: 200, body: 'fail_on: sometimes\nharness:\n  forks: maybe\n' })
      .get(`${repo}/commits/${payload.pull_request.head.sha}/check-runs`).query(true)
      .reply(200, { total_count: 0, check_runs: [] })
      .post(`${repo}/check-runs`).reply(201, { id: 901 })
      .patch(`${repo}/check-runs/901`, (body) => ((completion = body), true)).reply(200, { id: 901 });

    await test.probot.receive({ id: 'delivery-2', name: 'pull_request', payload } as never);
    await test.app.pool.idle();

    expect(test.reviews).toHaveLength(0);
    expect(completion.conclusion).toBe('action_required');
    expect(completion.output.title).toBe('crashprobe: .github/crashprobe.yml is not valid');
    expect(completion.output.summary).toMatchInlineSnapshot(`
      "crashprobe did not review this pull request: \`.github/crashprobe.yml\` on the default branch is not valid.

      - \`fail_on\`: Invalid enum value. Expected 'unsafe' | 'safe_by_accident' | 'never', received 'sometimes'
      - \`harness.forks\`: Expected boolean, received string

      Fix the file on the default branch (the schema is \`schema/crashprobe.schema.json\`), then re-run this check."
    `);
    expect(scope.isDone()).toBe(true);
  });

  it('skips a draft unless the config asks for drafts', async () => {
    const payload = openedPayload();
    payload.pull_request.draft = true;
    test = await createTestApp(async (source) => reviewFor(source.headSha));
    const scope = nockJobStart(payload.pull_request);
    await test.probot.receive({ id: 'delivery-3', name: 'pull_request', payload } as never);
    await test.app.pool.idle();
    expect(test.reviews).toHaveLength(0);
    expect(test.state.jobs()[0]?.status).toBe('done');
    expect(scope.isDone()).toBe(true);
  });

  it('reviews a fork without the crash harness unless harness.forks is on', async () => {
    const payload = openedPayload();
    payload.pull_request.head.repo.full_name = 'mallory/Hello-World';
    // An empty review: nothing inline, so only the summary is posted.
    test = await createTestApp(async (source) => sampleReview([], { headSha: source.headSha, findings: [] }));
    const scope = nockJobStart(payload.pull_request)
      .get(`${repo}/commits/${payload.pull_request.head.sha}/check-runs`).query(true)
      .reply(200, { total_count: 0, check_runs: [] })
      .post(`${repo}/check-runs`).reply(201, { id: 902 })
      .get(`${repo}/pulls/2/files`).query(true).reply(200, [])
      .get(`${repo}/pulls/2/comments`).query(true).reply(200, [])
      .get(`${repo}/issues/2/comments`).query(true).reply(200, [])
      .post(`${repo}/issues/2/comments`).reply(201, { id: 7 })
      .patch(`${repo}/check-runs/902`).reply(200, { id: 902 });

    await test.probot.receive({ id: 'delivery-4', name: 'pull_request', payload } as never);
    await test.app.pool.idle();

    const [source, , deps] = test.reviews[0]!;
    expect(source.fromFork).toBe(true);
    expect(deps.harness).toBeUndefined();
    expect(deps.harnessOffReason).toMatch(/fork/);
    expect(test.harnessAsked).toBe(0);
    expect(scope.isDone()).toBe(true);
  });

  it('hands the review the LLM the deployment configures for the repository\'s audit.model', async () => {
    const payload = openedPayload();
    const llm = { model: 'local-model', complete: async () => ({ text: '{}', inputTokens: 0, outputTokens: 0 }) };
    const asked: (string | undefined)[] = [];
    test = await createTestApp(async (source) => sampleReview([], { headSha: source.headSha, findings: [] }), {
      llm: (config) => {
        asked.push(config.audit.model);
        return llm;
      },
    });
    const scope = nockJobStart(payload.pull_request)
      .get(`${repo}/commits/${payload.pull_request.head.sha}/check-runs`).query(true)
      .reply(200, { total_count: 0, check_runs: [] })
      .post(`${repo}/check-runs`).reply(201, { id: 903 })
      .get(`${repo}/pulls/2/files`).query(true).reply(200, [])
      .get(`${repo}/pulls/2/comments`).query(true).reply(200, [])
      .get(`${repo}/issues/2/comments`).query(true).reply(200, [])
      .post(`${repo}/issues/2/comments`).reply(201, { id: 8 })
      .patch(`${repo}/check-runs/903`).reply(200, { id: 903 });

    await test.probot.receive({ id: 'delivery-llm', name: 'pull_request', payload } as never);
    await test.app.pool.idle();

    const [, , deps] = test.reviews[0]!;
    expect(deps.llm).toBe(llm);
    expect(asked).toEqual([undefined]);
    expect(scope.isDone()).toBe(true);
  });

  it('re-reviews on `/crashprobe review` from a collaborator with a new check run, and ignores other comments', async () => {
    const payload = webhookExample('issue_comment', 'created');
    payload.issue.pull_request = { url: `https://api.github.com${repo}/pulls/1` };
    const pr = { ...openedPayload().pull_request, number: 1 };
    test = await createTestApp(async (source) => reviewFor(source.headSha));
    await test.probot.receive({ id: 'delivery-5', name: 'issue_comment', payload } as never);
    expect(test.state.jobs()).toHaveLength(0);

    payload.comment.body = '/crashprobe review please';
    const scope = nockJobStart(pr)
      // A re-run takes up crashprobe's check run on the head when there is one (the one publisher's rule); here there is none.
      .get(`${repo}/commits/${pr.head.sha}/check-runs`).query(true)
      .reply(200, { total_count: 0, check_runs: [] })
      .post(`${repo}/check-runs`).reply(201, { id: 903 })
      .get(`${repo}/pulls/1/files`).query(true)
      .reply(200, [{ filename: 'shop/orders.py', status: 'modified', patch: ORDERS_PATCH }])
      .get(`${repo}/pulls/1/comments`).query(true)
      .reply(200, [{ id: 11, body: comment('fp-send', 3).body, user: { login: 'crashprobe[bot]', type: 'Bot' } }])
      .post('/graphql').reply(200, OPEN_THREAD_11)
      .get(`${repo}/issues/1/comments`).query(true).reply(200, [])
      .post(`${repo}/issues/1/comments`).reply(201, { id: 8 })
      .patch(`${repo}/check-runs/903`).reply(200, { id: 903 });
    await test.probot.receive({ id: 'delivery-6', name: 'issue_comment', payload } as never);
    await test.app.pool.idle();

    expect(test.reviews).toHaveLength(1);
    expect(test.state.jobs()[0]).toMatchObject({ key: `${OWNER}/${REPO}#1!delivery-6`, status: 'done' });
    expect(scope.isDone()).toBe(true);
  });

  it('resumes a job that a killed process left running, and completes the check run it had started', async () => {
    const payload = openedPayload();
    const pr = payload.pull_request;
    test = await createTestApp(async (source) => reviewFor(source.headSha), { workers: 1 });
    await test.app.stop();
    // What a killed process leaves: a delivery, a running job owned by a process that is gone, its check run.
    test.state.admit('delivery-7', 'pull_request', {
      key: `${OWNER}/${REPO}#2@${pr.head.sha}`,
      payload: { installationId: 1, owner: OWNER, repo: REPO, number: 2, headSha: pr.head.sha, rerun: false, event: 'pull_request.opened' },
    });
    const job = test.state.claim('some-host-that-is-gone:1', 60_000)!;
    test.state.setCheckRun(job.id, 904);
    const scope = nockJobStart(pr)
      .get(`${repo}/pulls/2/files`).query(true)
      .reply(200, [{ filename: 'shop/orders.py', status: 'modified', patch: ORDERS_PATCH }])
      // The review was posted before the kill: its fingerprint is there, so no second review.
      .get(`${repo}/pulls/2/comments`).query(true)
      .reply(200, [{ id: 11, body: comment('fp-send', 3).body, user: { login: 'crashprobe[bot]', type: 'Bot' } }])
      .post('/graphql').reply(200, OPEN_THREAD_11)
      .get(`${repo}/issues/2/comments`).query(true).reply(200, [])
      .post(`${repo}/issues/2/comments`).reply(201, { id: 9 })
      .patch(`${repo}/check-runs/904`).reply(200, { id: 904 });

    // A restarted app on another host sees the lease and waits; here the lease has run out.
    test.state.db.prepare('UPDATE jobs SET lease_until = 0').run();
    const restarted = await createTestApp(async (source) => reviewFor(source.headSha), { backend: test.backend, workers: 1 });
    // The restarted pool finds the job on one of its polls: waited for, not slept for.
    await waitFor(() => test!.state.jobs()[0]?.status === 'done');
    await restarted.app.pool.idle();
    await restarted.app.stop();

    expect(restarted.reviews).toHaveLength(1);
    expect(test.state.jobs()[0]).toMatchObject({ status: 'done', attempts: 2, checkRunId: 904 });
    expect(scope.isDone()).toBe(true);
  });
});

describe('a GitHub outage, and process roles (issue 14)', () => {
  it('leaves a completed check run saying why when GitHub answered 502 on every attempt; `reopened` then queues the failed head again', async () => {
    const payload = openedPayload();
    const pr = payload.pull_request;
    test = await createTestApp(async (source) => reviewFor(source.headSha), { retryInMs: () => 0, backendOptions: { maxAttempts: 3 } });
    let completion: any;
    const scope = nock(API)
      .post('/app/installations/1/access_tokens')
      .reply(201, { token: 'installation-token', expires_at: new Date(Date.now() + 3_600_000).toISOString() })
      .get('/app').reply(200, { id: 42, slug: 'crashprobe' })
      .get(`${repo}/pulls/2`).times(3).reply(502, { message: 'Server Error' })
      // Only the last attempt concludes, on the head the event named: GitHub answers again by then.
      .get(`${repo}/commits/${pr.head.sha}/check-runs`).query(true).reply(200, { total_count: 0, check_runs: [] })
      .post(`${repo}/check-runs`).reply(201, { id: 950 })
      .patch(`${repo}/check-runs/950`, (body) => ((completion = body), true)).reply(200, { id: 950 });

    await test.probot.receive({ id: 'delivery-502', name: 'pull_request', payload } as never);
    await test.app.pool.idle();

    expect(scope.isDone()).toBe(true);
    expect(completion).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: 'crashprobe could not finish the review' } });
    expect(completion.output.summary).toMatch(/GitHub GET \/repos\/Codertocat\/Hello-World\/pulls\/2 failed with 502/);
    expect(test.state.jobs()[0]).toMatchObject({ status: 'failed', attempts: 3, checkRunId: 950 });

    // GitHub is back: a `reopened` (or a re-run) must not be answered "already done".
    const again = nock(API)
      .get(`${repo}/pulls/2`).reply(200, pr)
      .get(`${repo}/contents/.github%2Fcrashprobe.yml`).reply(404, { message: 'Not Found' })
      .get(`/repos/${OWNER}/.github/contents/.github%2Fcrashprobe.yml`).reply(404, { message: 'Not Found' })
      .get(`${repo}/pulls/2/files`).query(true).reply(200, [{ filename: 'shop/orders.py', status: 'modified', patch: ORDERS_PATCH }])
      .get(`${repo}/pulls/2/comments`).query(true).reply(200, [])
      .post(`${repo}/pulls/2/reviews`).reply(200, { id: 101 })
      .get(`${repo}/issues/2/comments`).query(true).reply(200, [])
      .post(`${repo}/issues/2/comments`).reply(201, { id: 6 })
      // The failed check run of this head is taken up again and completed with the review.
      .patch(`${repo}/check-runs/950`, (body) => body.conclusion === 'failure' || body.conclusion === 'success' || body.conclusion === 'neutral').reply(200, { id: 950 });
    await test.probot.receive({ id: 'delivery-reopened', name: 'pull_request', payload: { ...payload, action: 'reopened' } } as never);
    await test.app.pool.idle();
    expect(test.reviews).toHaveLength(1);
    expect(test.state.jobs()).toMatchObject([{ status: 'done', attempts: 1, deliveryId: 'delivery-reopened' }]);
    expect(again.pendingMocks()).toEqual([]);
  });

  it('completes the failed check run once GitHub answers again, when it was still down at the last attempt', async () => {
    const payload = openedPayload();
    const pr = payload.pull_request;
    test = await createTestApp(async (source) => reviewFor(source.headSha), { retryInMs: () => 0, backendOptions: { maxAttempts: 1 } });
    let completion: any;
    const scope = nock(API)
      .post('/app/installations/1/access_tokens')
      .reply(201, { token: 'installation-token', expires_at: new Date(Date.now() + 3_600_000).toISOString() })
      .get('/app').reply(200, { id: 42, slug: 'crashprobe' })
      .get(`${repo}/pulls/2`).reply(502, { message: 'Server Error' })
      // The last attempt's check run meets GitHub still down: the job is kept to complete it later.
      .get(`${repo}/commits/${pr.head.sha}/check-runs`).query(true).reply(502, { message: 'Server Error' })
      // GitHub is back: the conclusion run completes the check run, saying why the review failed.
      .get(`${repo}/commits/${pr.head.sha}/check-runs`).query(true).reply(200, { total_count: 0, check_runs: [] })
      .post(`${repo}/check-runs`).reply(201, { id: 980 })
      .patch(`${repo}/check-runs/980`, (body) => ((completion = body), true)).reply(200, { id: 980 });

    await test.probot.receive({ id: 'delivery-down', name: 'pull_request', payload } as never);
    // The conclusion run comes on a later poll: waited for up to a deadline, not a count of polls (slow CI).
    await waitFor(() => scope.isDone() && test!.state.jobs()[0]?.status === 'failed');
    await test.app.pool.idle();

    expect(scope.isDone()).toBe(true);
    expect(completion).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: 'crashprobe could not finish the review' } });
    expect(completion.output.summary).toMatch(/GitHub GET \/repos\/Codertocat\/Hello-World\/pulls\/2 failed with 502/);
    expect(test.state.jobs()[0]).toMatchObject({ status: 'failed' });
  });

  it('says in the failed check run that the review was made but not posted, with what it found, when posting it met 502', async () => {
    const payload = openedPayload();
    const pr = payload.pull_request;
    test = await createTestApp(async (source) => reviewFor(source.headSha), { backendOptions: { maxAttempts: 1 } });
    let completion: any;
    const scope = nockJobStart(pr)
      .get(`${repo}/commits/${pr.head.sha}/check-runs`).query(true).reply(200, { total_count: 0, check_runs: [] })
      .post(`${repo}/check-runs`).reply(201, { id: 970 })
      .get(`${repo}/pulls/2/files`).query(true).reply(200, [{ filename: 'shop/orders.py', status: 'modified', patch: ORDERS_PATCH }])
      .get(`${repo}/pulls/2/comments`).query(true).reply(200, [])
      .post(`${repo}/pulls/2/reviews`).reply(502, { message: 'Server Error' })
      .patch(`${repo}/check-runs/970`, (body) => ((completion = body), true)).reply(200, { id: 970 });

    await test.probot.receive({ id: 'delivery-post-502', name: 'pull_request', payload } as never);
    await test.app.pool.idle();

    expect(scope.isDone()).toBe(true);
    expect(completion).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: 'crashprobe could not post its review' } });
    expect(completion.output.summary).toMatch(/^GitHub POST \/repos\/Codertocat\/Hello-World\/pulls\/2\/reviews failed with 502/);
    expect(completion.output.summary).toContain(reviewFor(pr.head.sha).checkSummary);
  });

  it('completes the check run as failed, saying why, when the worker died on the last attempt', async () => {
    const payload = openedPayload();
    const pr = payload.pull_request;
    test = await createTestApp(async (source) => reviewFor(source.headSha), { role: 'web', backendOptions: { maxAttempts: 1 } });
    await test.probot.receive({ id: 'delivery-killed', name: 'pull_request', payload } as never);
    // Its only attempt: a worker that then died (kill -9, lost host).
    const job = test.state.claim('lost-host:1:x', 60_000)!;
    test.state.setCheckRun(job.id, 960);
    test.state.db.prepare('UPDATE jobs SET lease_until = 0').run();
    let completion: any;
    const scope = nock(API)
      .post('/app/installations/1/access_tokens')
      .reply(201, { token: 'installation-token', expires_at: new Date(Date.now() + 3_600_000).toISOString() })
      .get('/app').reply(200, { id: 42, slug: 'crashprobe' })
      .patch(`${repo}/check-runs/960`, (body) => ((completion = body), true)).reply(200, { id: 960 });
    const worker = await createTestApp(async (source) => reviewFor(source.headSha), { role: 'worker', backend: test.backend });
    await waitFor(() => test!.state.jobs()[0]?.status === 'failed');
    await worker.app.pool.idle();
    await worker.close();
    expect(worker.reviews).toHaveLength(0);
    expect(completion).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(completion.output.summary).toMatch(/its worker stopped 1 time\(s\) before finishing/);
    expect(test.state.jobs()[0]).toMatchObject({ status: 'failed', lastError: 'its worker stopped 1 time(s) before finishing' });
    expect(scope.isDone()).toBe(true);
    expect(pr.number).toBe(2);
  });

  it('splits into a web process that only queues and a worker process that only runs jobs', async () => {
    const payload = openedPayload();
    const pr = payload.pull_request;
    pr.draft = true;
    test = await createTestApp(async (source) => reviewFor(source.headSha), { role: 'web' });
    expect(test.app.pool).toBeUndefined();
    await test.probot.receive({ id: 'delivery-web', name: 'pull_request', payload } as never);
    await waitFor(() => test!.state.jobs().length > 0);
    expect(test.state.jobs()).toMatchObject([{ status: 'pending', deliveryId: 'delivery-web' }]);

    const scope = nockJobStart(pr);
    const worker = await createTestApp(async () => reviewFor(pr.head.sha), { role: 'worker', backend: test.backend });
    // A worker registers no webhook handler: a delivery sent to it queues nothing.
    await worker.probot.receive({ id: 'delivery-to-worker', name: 'pull_request', payload: { ...payload, number: 99 } } as never);
    await waitFor(() => test!.state.jobs()[0]?.status === 'done');
    await worker.app.pool.idle();
    await worker.close();
    expect(test.state.jobs()).toMatchObject([{ status: 'done', deliveryId: 'delivery-web' }]);
    expect(scope.isDone()).toBe(true);
  });
});

describe('check_run.rerequested', () => {
  it('finds the pull request of the head when GitHub names none, and ignores other apps\' check names', async () => {
    const payload = webhookExample('check_run', 'rerequested');
    const sha = payload.check_run.head_sha;
    const path = `/repos/${payload.repository.full_name}`;
    test = await createTestApp(async (source) => reviewFor(source.headSha));
    await test.probot.receive({ id: 'rerequest-0', name: 'check_run', payload } as never);
    expect(test.state.jobs()).toHaveLength(0);

    payload.check_run.name = 'crashprobe';
    const scope = nock(API)
      .post('/app/installations/1/access_tokens')
      .reply(201, { token: 'installation-token', expires_at: new Date(Date.now() + 3_600_000).toISOString() })
      .get('/app').reply(200, { id: 42, slug: 'crashprobe' })
      .get(`${path}/commits/${sha}/pulls`).reply(200, [{ number: 5, state: 'open', head: { sha } }])
      .get(`${path}/pulls/5`).reply(200, { number: 5, state: 'closed', head: { sha } });
    await test.probot.receive({ id: 'rerequest-1', name: 'check_run', payload } as never);
    await test.app.pool.idle();

    expect(test.state.jobs()[0]).toMatchObject({ key: `${payload.repository.full_name}@${sha}!rerequest-1`, status: 'done' });
    expect(test.reviews).toHaveLength(0);
    expect(scope.isDone()).toBe(true);
  });
});
