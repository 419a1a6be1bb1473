import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { completeCheckRun, MAX_SUMMARY_CHARS, reviewOutcome, startCheckRun } from '../../../src/adapters/github/check-run.ts';
import type { Annotation } from '../../../src/core/model/review.ts';
import { API, HEAD, PR, sampleReview, testOctokit, withoutTimes } from './fixtures.ts';

const repo = `/repos/${PR.owner}/${PR.repo}`;
const REPO = { owner: PR.owner, repo: PR.repo };

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('check run', () => {
  it('is created in_progress on the head commit, with no pull request number in the body', async () => {
    const sent: unknown[] = [];
    const scope = nock(API)
      .get(`${repo}/commits/${HEAD}/check-runs`).query(true)
      .reply(200, { total_count: 0, check_runs: [] })
      .post(`${repo}/check-runs`, (body) => (sent.push(withoutTimes(body)), true))
      .reply(201, { id: 900, app: { slug: 'github-actions' } });
    expect(await startCheckRun(testOctokit(), { ...REPO, number: 7 } as typeof REPO, HEAD)).toEqual({ id: 900, reused: false, appSlug: 'github-actions' });
    expect(sent).toMatchInlineSnapshot(`
      [
        {
          "external_id": "crashprobe-review",
          "head_sha": "abc1234567890abc1234567890abc1234567890a",
          "name": "crashprobe",
          "output": {
            "summary": "Crash-testing the touched functions in both sqlite3 transaction modes.",
            "title": "crashprobe is reviewing",
          },
          "started_at": "<time>",
          "status": "in_progress",
        },
      ]
    `);
    expect(scope.isDone()).toBe(true);
  });

  it('is reused and set back in progress when this commit already has crashprobe\'s own (a re-run), not a job named crashprobe', async () => {
    const sent: Record<string, unknown>[] = [];
    const scope = nock(API)
      .get(`${repo}/commits/${HEAD}/check-runs`)
      .query({ check_name: 'crashprobe', filter: 'all', app_id: '42' })
      .reply(200, {
        total_count: 2,
        check_runs: [
          // A workflow job called `crashprobe` has a check run of that name too: not ours.
          { id: 800, name: 'crashprobe', head_sha: HEAD, external_id: '', app: { slug: 'github-actions' } },
          { id: 901, name: 'crashprobe', head_sha: HEAD, external_id: 'crashprobe-review', app: { slug: 'crashprobe' } },
        ],
      })
      .patch(`${repo}/check-runs/901`, (body) => (sent.push(withoutTimes(body)), true))
      .reply(200, { id: 901 });
    expect(await startCheckRun(testOctokit(), REPO, HEAD, { appId: 42 })).toEqual({ id: 901, reused: true, appSlug: 'crashprobe' });
    expect(sent).toEqual([{ status: 'in_progress', started_at: '<time>', output: { title: 'crashprobe is reviewing', summary: expect.any(String) } }]);
    expect(scope.isDone()).toBe(true);
  });

  it('completes with the conclusion and sends annotations 50 at a time', async () => {
    const annotations: Annotation[] = Array.from({ length: 120 }, (_, i) => ({
      path: 'shop/orders.py',
      startLine: i + 1,
      endLine: i + 1,
      level: 'warning',
      title: `finding ${i}`,
      message: 'm',
    }));
    const review = sampleReview(undefined, { annotations, checkSummary: 'x'.repeat(70_000) });
    const sent: Record<string, unknown>[] = [];
    const scope = nock(API)
      .patch(`${repo}/check-runs/900`, (body) => (sent.push(body), true))
      .times(3)
      .reply(200, { id: 900 });

    await completeCheckRun(testOctokit(), REPO, 900, reviewOutcome(review));

    expect(scope.isDone()).toBe(true);
    const batches = sent.map((body) => (body.output as { annotations: unknown[] }).annotations.length);
    expect(batches).toEqual([50, 50, 20]);
    expect(sent[0]).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: 'crashprobe: 1 unsafe' } });
    expect(sent[1]).not.toHaveProperty('status');
    const summary = (sent[0]!.output as { summary: string }).summary;
    expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
    expect(summary).toMatch(/cut here/);
    expect(withoutTimes({ ...sent[0]!, output: { ...(sent[0]!.output as object), summary: '<summary>', annotations: (sent[0]!.output as { annotations: unknown[] }).annotations.slice(0, 1) } })).toMatchInlineSnapshot(`
      {
        "completed_at": "<time>",
        "conclusion": "failure",
        "output": {
          "annotations": [
            {
              "annotation_level": "warning",
              "end_line": 1,
              "message": "m",
              "path": "shop/orders.py",
              "start_line": 1,
              "title": "finding 0",
            },
          ],
          "summary": "<summary>",
          "title": "crashprobe: 1 unsafe",
        },
        "status": "completed",
      }
    `);
  });

  it('completes with no annotations in one request', async () => {
    const scope = nock(API)
      .patch(`${repo}/check-runs/900`, (body) => body.conclusion === 'success' && !('annotations' in body.output))
      .reply(200, { id: 900 });
    await completeCheckRun(testOctokit(), REPO, 900, { conclusion: 'success', title: 'ok', summary: 'fine' });
    expect(scope.isDone()).toBe(true);
  });
});
