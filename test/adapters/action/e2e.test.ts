// The Action end to end, as GitHub's runner runs it: the committed bundle
// (`node action/dist/index.js`, see step.ts) on a real pull_request payload and
// the checkout of examples/shop's change, with the crash harness it ships, against
// a fake GitHub (fixture.ts) that keeps state and refuses what the token's
// permissions do not allow. Each test asserts on what the workflow sees (exit
// code, outputs, job summary, workflow commands, the SARIF file) and on what
// GitHub holds afterwards.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CHECKS_READ_ONLY, deliveryNotices, PULL_REQUEST_READ_ONLY } from '../../../src/adapters/action/deliver.ts';
import { NO_LLM_NOTE } from '../../../src/adapters/action/runner.ts';
import { fingerprintOf, isSummary, withFingerprint } from '../../../src/adapters/github/markers.ts';
import { sarifLogSchema } from '../../../src/core/render/sarif.ts';
import type { RecordedRequest } from './fake-github.ts';
import {
  ACTIONS_BOT_USER,
  READ_ONLY,
  removeRunnerTemp,
  REPOSITORY,
  SHOP_OUTPUTS,
  startJob,
  type GitHubState,
  type Job,
  type JobOptions,
} from './fixture.ts';
import { commands, notices, runStep, TOKEN, type StepResult } from './step.ts';

const jobs: Job[] = [];
afterEach(async () => {
  await Promise.all(jobs.splice(0).map((job) => job.cleanUp()));
});
afterAll(removeRunnerTemp);

async function job(options: JobOptions = {}): Promise<Job> {
  const started = await startJob(options);
  jobs.push(started);
  return started;
}

const repo = `/repos/${REPOSITORY}`;
const REVIEWS = `POST ${repo}/pulls/2/reviews`;
const calls = (requests: readonly RecordedRequest[]) => requests.map((r) => `${r.method} ${r.path}`);
const isCheckRunRequest = (r: RecordedRequest) => r.path.startsWith(`${repo}/check-runs`);

/** The findings printed as workflow-command annotations (`::error file=…,line=…::`), one string each. */
function fileAnnotations(stdout: string): string[] {
  return (['error', 'warning', 'notice'] as const).flatMap((level) =>
    commands(stdout, level)
      .filter((c) => c.properties.file)
      .map((c) => `${level} ${c.properties.file}:${c.properties.line}-${c.properties.endLine} ${c.properties.title}: ${c.message}`),
  );
}

async function sarifAt(job: Job, relative: string) {
  return sarifLogSchema.parse(JSON.parse(await readFile(path.join(job.workspace, relative), 'utf8')));
}

/** What every step writes for the workflow, whatever GitHub took: outputs, the job summary and (asked for) SARIF. */
async function expectResultsWritten(job: Job, step: StepResult, conclusion: string, sarif = 'crashprobe.sarif'): Promise<void> {
  expect(step.outputs, step.stdout + step.stderr).toEqual({ ...SHOP_OUTPUTS, conclusion });
  expect(step.summary).toContain('shop/billing.py');
  expect(step.summary).toContain('| emails sent | 0 | 1 | 2 | 1 |');
  const log = await sarifAt(job, sarif);
  expect(log.runs[0]?.results.map((r) => r.locations[0]?.physicalLocation.artifactLocation.uri)).toContain('shop/billing.py');
}

/** GitHub holds nothing crashprobe wrote. */
function expectNothingWritten(state: GitHubState): void {
  expect({ checkRuns: state.checkRuns, statuses: state.statuses, reviews: state.reviews, issueComments: state.issueComments }).toEqual({
    checkRuns: [],
    statuses: [],
    reviews: [],
    issueComments: [],
  });
}

function expectQuietStderr(step: StepResult): void {
  // Octokit's own request log ("POST /repos/…/reviews - 403 with id UNKNOWN in 12ms") must stay off the step's log.
  expect(step.stderr).not.toMatch(/with id|UNKNOWN|\b403\b|\b502\b/);
}

// Each step runs the crash harness on examples/shop (and crash-tests repairs with it): seconds each, more on a busy machine.
describe('node action/dist/index.js on examples/shop against a fake GitHub', { timeout: 240_000 }, () => {
  it('with full permissions: starts the check run first, posts the review and the sticky summary, completes the check run, fails on unsafe', async () => {
    const shop = await job();
    const step = await runStep(shop, { 'fail-on': 'unsafe', sarif: 'reports/crashprobe.sarif' });

    expect(step.stdout).not.toMatch(/cannot load on this runner/);
    expect(step.exitCode, step.stdout + step.stderr).toBe(1);
    expect(step.stdout).toMatch(/^::error::The review concluded failure under fail-on: unsafe \(1 unsafe, 1 safe by accident\)/m);
    expect(step.outputs).toEqual(SHOP_OUTPUTS);
    await expectResultsWritten(shop, step, 'failure', 'reports/crashprobe.sarif');
    // The check run carries the annotations and the review went out: nothing to notice, nothing printed twice.
    expect(notices(step.stdout)).toEqual([]);
    expect(fileAnnotations(step.stdout)).toEqual([]);
    expectQuietStderr(step);

    const { requests, unanswered } = shop.github;
    expect(unanswered).toEqual([]);
    expect(requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);
    // The head files came from the workspace, not the contents API or a tarball.
    expect(calls(requests).filter((c) => /\/contents\/|\/tarball\/|\/git\/trees\//.test(c))).toEqual([]);

    // The check run is in progress before the review is posted, and completed after it.
    const order = calls(requests);
    const created = order.indexOf(`POST ${repo}/check-runs`);
    const reviewed = order.indexOf(REVIEWS);
    expect(created).toBeGreaterThanOrEqual(0);
    expect(reviewed).toBeGreaterThan(created);
    expect(requests[created]?.body).toMatchObject({ name: 'crashprobe', head_sha: shop.headSha, status: 'in_progress' });
    expect(order.lastIndexOf(`PATCH ${repo}/check-runs/${shop.state.checkRuns[0]?.id}`)).toBeGreaterThan(reviewed);
    // A check run belongs to the commit, not to the pull request: its requests carry no `number`.
    const checkRunBodies = requests.filter((r) => isCheckRunRequest(r) && r.method !== 'GET').map((r) => r.body as Record<string, unknown>);
    expect(checkRunBodies.length).toBeGreaterThanOrEqual(2);
    for (const body of checkRunBodies) expect(body).not.toHaveProperty('number');

    const { checkRuns, reviews, reviewComments, issueComments, statuses } = shop.state;
    expect(checkRuns).toHaveLength(1);
    expect(checkRuns[0]).toMatchObject({ name: 'crashprobe', head_sha: shop.headSha, status: 'completed', conclusion: 'failure' });
    expect(checkRuns[0]?.output?.annotations?.length).toBeGreaterThan(0);
    expect(statuses).toEqual([]);
    expect(reviews).toHaveLength(1);
    expect(reviews[0]).toMatchObject({ commit_id: shop.headSha, comments: reviewComments.length });
    expect((requests[reviewed]?.body as { event: string }).event).toBe('COMMENT');
    expect(reviewComments.length).toBeGreaterThan(0);
    for (const comment of reviewComments) expect(fingerprintOf(comment.body)).toBeDefined();
    expect(issueComments).toHaveLength(1);
    expect(isSummary(issueComments[0]?.body)).toBe(true);
    expect(issueComments[0]?.body).toContain('shop/billing.py');

    // Without a model the notes name the Action's inputs, not the CLI's and the App's environment variables.
    expect(step.summary).toContain(NO_LLM_NOTE);
    expect(step.summary + issueComments[0]?.body).not.toMatch(/CRASHPROBE_MODEL|OPENAI_API_KEY|ANTHROPIC_API_KEY/);
  });

  it("on a read-only token: does not fail the step under fail-on: never, keeps outputs, summary and SARIF, prints the annotations once, says what went where", async () => {
    const shop = await job({ permissions: READ_ONLY });
    const step = await runStep(shop, { 'fail-on': 'never', sarif: 'crashprobe.sarif' });

    expect(step.exitCode, step.stdout + step.stderr).toBe(0);
    await expectResultsWritten(shop, step, 'neutral');
    expectQuietStderr(step);
    expect(step.stdout).not.toMatch(/^::error::/m);

    // Nothing could be written: the pull request has no review, the commit no check run nor status.
    expectNothingWritten(shop.state);
    expect(calls(shop.github.requests)).toContain(REVIEWS);
    // The notices say what could not be written and where the review is instead, in the log and the job summary.
    const said = deliveryNotices({ pullRequest: 'read-only', check: 'none', refusals: [] });
    expect(notices(step.stdout)).toEqual(said);
    expect(said[0]).toContain(PULL_REQUEST_READ_ONLY);
    expect(said[0]).toContain('the annotations of this step');
    for (const notice of said) expect(step.summary).toContain(notice);
    // No check run carries the findings, so the step prints them, each once.
    const annotations = fileAnnotations(step.stdout);
    expect(annotations).toContainEqual(expect.stringMatching(/^error shop\/billing\.py:\d+-\d+ /));
    expect(new Set(annotations).size).toBe(annotations.length);
  });

  it("on a read-only token and crashprobe's earlier comments: resolving a fixed finding's thread is refused (GraphQL FORBIDDEN), and the step still ends by fail-on", async () => {
    const shop = await job({ permissions: READ_ONLY, seed: earlierReview });
    const step = await runStep(shop, { 'fail-on': 'never', sarif: 'crashprobe.sarif' });

    expect(step.exitCode, step.stdout + step.stderr).toBe(0);
    await expectResultsWritten(shop, step, 'neutral');
    expectQuietStderr(step);
    expect(step.stdout).not.toMatch(/^::error::/m);

    // Reconciling tried to resolve the thread of the finding that is gone, and GitHub refused.
    const mutations = shop.github.requests.filter((r) => r.path === '/graphql' && /resolveReviewThread/.test((r.body as { query: string }).query));
    expect(mutations.map((r) => (r.body as { variables: { threadId: string } }).variables.threadId)).toEqual(['PRRT_1']);
    expect(shop.state.threads).toEqual([{ id: 'PRRT_1', isResolved: false, resolvedBy: null, commentId: 1 }]);
    expect(shop.state.reviewComments).toHaveLength(1);
    expectNothingWritten(shop.state);
    // Refused as a read-only token is, not failed as an error.
    expect(notices(step.stdout)).toEqual(deliveryNotices({ pullRequest: 'read-only', check: 'none', refusals: [] }));
    expect(step.stdout).not.toMatch(/could not post its review/);
    const annotations = fileAnnotations(step.stdout);
    expect(annotations.length).toBeGreaterThan(0);
    expect(new Set(annotations).size).toBe(annotations.length);
  });

  it('without checks: write: posts the review, concludes with a commit status, one notice about the check run only, annotations printed once', async () => {
    const shop = await job({ permissions: { pullRequests: true, statuses: true, checks: false } });
    const step = await runStep(shop, { 'fail-on': 'unsafe', sarif: 'crashprobe.sarif' });

    expect(step.exitCode, step.stdout + step.stderr).toBe(1);
    await expectResultsWritten(shop, step, 'failure');
    expectQuietStderr(step);

    const { checkRuns, statuses, reviews, reviewComments, issueComments } = shop.state;
    expect(checkRuns).toEqual([]);
    expect(reviews).toHaveLength(1);
    expect(reviewComments.length).toBeGreaterThan(0);
    expect(issueComments).toHaveLength(1);
    expect(statuses.map((s) => [s.sha, s.context, s.state])).toEqual([
      [shop.headSha, 'crashprobe', 'pending'],
      [shop.headSha, 'crashprobe', 'failure'],
    ]);

    const said = notices(step.stdout);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(CHECKS_READ_ONLY);
    expect(said[0]).toContain('commit status');
    expect(said[0]).not.toContain(PULL_REQUEST_READ_ONLY);
    expect(step.stdout + step.summary).not.toMatch(/may not write to this pull request|could not (post|write) (its|the) review/);
    // The annotations are the step's (no check run carries them): each once.
    const annotations = fileAnnotations(step.stdout);
    expect(annotations).toContainEqual(expect.stringMatching(/^error shop\/billing\.py:\d+-\d+ /));
    expect(new Set(annotations).size).toBe(annotations.length);
  });

  it('on a 5xx when posting the review: keeps outputs, summary and SARIF, fails the check run closed, exits by fail-on, promises no retry', async () => {
    const shop = await job({ failing: { 'POST /repos/:owner/:repo/pulls/:number/reviews': 502 } });
    const step = await runStep(shop, { 'fail-on': 'never', sarif: 'crashprobe.sarif' });

    // fail-on: never, though a function is unsafe and the review did not get out: the step's outcome is fail-on's.
    expect(step.exitCode, step.stdout + step.stderr).toBe(0);
    await expectResultsWritten(shop, step, 'neutral');
    expectQuietStderr(step);

    const warnings = commands(step.stdout, 'warning').filter((c) => !c.properties.file);
    expect(warnings.map((w) => w.message)).toContainEqual(expect.stringMatching(/^crashprobe could not post its review to GitHub: .*502/));
    // The check run does not stay in progress, nor pass: it fails closed, with the findings.
    const [checkRun] = shop.state.checkRuns;
    expect(shop.state.checkRuns).toHaveLength(1);
    expect(checkRun).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: 'crashprobe could not post its review' } });
    expect(checkRun?.output?.annotations?.length).toBeGreaterThan(0);
    expect(shop.state.reviews).toEqual([]);
    // The Action retries nothing itself: nothing it says may promise a later retry.
    const everything = [step.stdout, step.stderr, step.summary, checkRun?.output?.summary ?? ''].join('\n');
    expect(everything).not.toMatch(/retried later|will be retried|retry later|retries? (it |them )?(automatically|later)/i);
    expect(everything).toMatch(/re-run/i);
  });

  it('on a re-run of the same head: takes up its check run again and posts no second review or summary comment', async () => {
    const shop = await job();
    const first = await runStep(shop, { 'fail-on': 'unsafe' });
    expect(first.exitCode, first.stdout + first.stderr).toBe(1);
    const after = structuredClone({ reviews: shop.state.reviews, reviewComments: shop.state.reviewComments, issueComments: shop.state.issueComments });
    const annotated = shop.state.checkRuns[0]?.output?.annotations?.length ?? 0;
    expect(annotated).toBeGreaterThan(0);
    expect(after.reviews).toHaveLength(1);
    expect(after.issueComments).toHaveLength(1);
    const firstRequests = shop.github.requests.length;

    await shop.resetRunnerFiles();
    const second = await runStep(shop, { 'fail-on': 'unsafe' });
    expect(second.exitCode, second.stdout + second.stderr).toBe(1);
    expect(second.outputs).toEqual(SHOP_OUTPUTS);
    expect(second.summary).toContain('shop/billing.py');
    expectQuietStderr(second);

    const again = calls(shop.github.requests.slice(firstRequests));
    expect(again).not.toContain(`POST ${repo}/check-runs`);
    expect(again).not.toContain(REVIEWS);
    expect(again).not.toContain(`POST ${repo}/issues/2/comments`);
    const [checkRun] = shop.state.checkRuns;
    expect(shop.state.checkRuns).toHaveLength(1);
    expect(again.filter((c) => c === `PATCH ${repo}/check-runs/${checkRun?.id}`).length).toBeGreaterThanOrEqual(2);
    expect(checkRun).toMatchObject({ status: 'completed', conclusion: 'failure' });
    // GitHub appends the annotations of every update: the re-run sends none the check run already carries.
    expect(checkRun?.output?.annotations).toHaveLength(annotated);
    expect({ reviews: shop.state.reviews, reviewComments: shop.state.reviewComments, issueComments: shop.state.issueComments }).toEqual(after);
    expect(shop.state.threads.every((t) => !t.isResolved)).toBe(true);
  });

  it("on a fork's pull request: does not run its code, says so, and the static review still goes out", async () => {
    const shop = await job({ fromFork: true, permissions: READ_ONLY });
    const step = await runStep(shop, { 'fail-on': 'unsafe', sarif: 'crashprobe.sarif' });

    expect(step.exitCode, step.stdout + step.stderr).toBe(0);
    expect(step.outputs).toEqual({ unsafe: '0', 'safe-by-accident': '0', 'safe-by-design': '0', 'not-working': '0', untested: '3', conclusion: 'success' });
    expect(step.summary).toContain('comes from a fork');
    expect(step.stdout).not.toMatch(/crash-testing/);
    // Each function has a scenario: it was not run, which is not "no scenario".
    for (const fn of ['shop/billing.py:mark_paid', 'shop/refunds.py:refund_order', 'shop/wallet.py:transfer']) {
      expect(step.summary).toMatch(new RegExp(`\`${fn.replace(/[.]/g, '\\.')}\` \\| ➖ not run: fork \\|`));
    }
    expect(step.summary).not.toContain('no scenario');
    // The static review: read from the API, in the summary, the annotations and the SARIF file.
    expect(calls(shop.github.requests)).toContain(`GET ${repo}/pulls/2/files`);
    expect(fileAnnotations(step.stdout)).toContainEqual(expect.stringMatching(/ shop\/billing\.py:\d+-\d+ /));
    expect((await sarifAt(shop, 'crashprobe.sarif')).runs[0]?.results.length).toBeGreaterThan(0);
    expect(notices(step.stdout)).toEqual(deliveryNotices({ pullRequest: 'read-only', check: 'none', refusals: [] }));
    expectNothingWritten(shop.state);
    expectQuietStderr(step);
  });

  it('exits 0 under fail-on: never, though a function is unsafe', async () => {
    const shop = await job();
    const step = await runStep(shop, { 'fail-on': 'never' });
    expect(step.outputs).toMatchObject({ unsafe: '1', conclusion: 'neutral' });
    expect(step.exitCode, step.stdout + step.stderr).toBe(0);
    expect(shop.state.checkRuns[0]).toMatchObject({ status: 'completed', conclusion: 'neutral' });
  });

  it('passes a function safe by accident under fail-on: unsafe, and fails it under fail-on: safe_by_accident', async () => {
    const shop = await job({ onlyFiles: ['shop/refunds.py'] });
    const lenient = await runStep(shop, { 'fail-on': 'unsafe' });
    expect(lenient.outputs).toMatchObject({ unsafe: '0', 'safe-by-accident': '1', conclusion: 'success' });
    expect(lenient.exitCode, lenient.stdout + lenient.stderr).toBe(0);

    await shop.resetRunnerFiles();
    const strict = await runStep(shop, { 'fail-on': 'safe_by_accident' });
    expect(strict.outputs).toMatchObject({ 'safe-by-accident': '1', conclusion: 'failure' });
    expect(strict.exitCode, strict.stdout + strict.stderr).toBe(1);
    expect(strict.stdout).toMatch(/^::error::The review concluded failure under fail-on: safe_by_accident/m);
    expect(shop.state.checkRuns).toHaveLength(1);
    expect(shop.state.checkRuns[0]).toMatchObject({ status: 'completed', conclusion: 'failure' });
  });
});

/**
 * crashprobe's review of an earlier head, as the publisher posted it: one inline comment by
 * github-actions[bot] whose last line is its fingerprint marker, in an open thread. Its finding
 * is not in this head's review, so reconciling resolves the thread.
 */
function earlierReview(state: GitHubState): void {
  state.reviewComments.push({
    id: 1,
    body: withFingerprint('**A finding fixed since**: the write is in a transaction now.', 'shop/billing.py:mark_paid:fixed-since'),
    path: 'shop/billing.py',
    line: 9,
    user: ACTIONS_BOT_USER,
    in_reply_to_id: null,
  });
  state.threads.push({ id: 'PRRT_1', isResolved: false, resolvedBy: null, commentId: 1 });
}
