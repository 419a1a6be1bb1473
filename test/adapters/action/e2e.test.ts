// The Action's runner end to end, in process: a real pull_request payload, the
// checkout of examples/shop's change, the real core with the crash harness, the
// github adapter posting to a fake GitHub API on 127.0.0.1, and @actions/core
// writing the runner's output and summary files.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { actionDeps } from '../../../src/adapters/action/deps.ts';
import { READ_ONLY_NOTICE, runAction } from '../../../src/adapters/action/runner.ts';
import { readSettings, type InputName } from '../../../src/adapters/action/settings.ts';
import { sarifLogSchema } from '../../../src/core/render/sarif.ts';
import { parseOutputs, removeRunnerTemp, REPOSITORY, SHOP_OUTPUTS, startJob, type Job, type JobOptions } from './fixture.ts';

interface Run {
  job: Job;
  exitCode: number;
  outputs: Record<string, string>;
  summary: string;
  /** What the step printed: workflow commands (::error file=...::) among the log lines. */
  stdout: string;
}

const jobs: Job[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await Promise.all(jobs.splice(0).map((job) => job.cleanUp()));
});
afterAll(removeRunnerTemp);

async function runJob(inputs: Partial<Record<InputName, string>>, options: JobOptions = {}): Promise<Run> {
  const job = await startJob(options);
  jobs.push(job);
  // @actions/core finds the runner's files through these two variables itself.
  vi.stubEnv('GITHUB_OUTPUT', job.outputPath);
  vi.stubEnv('GITHUB_STEP_SUMMARY', job.summaryPath);
  const printed: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed.push(String(chunk));
    return true;
  });
  const settings = readSettings((name) => inputs[name] ?? (name === 'github-token' ? 'ghs_e2e' : ''), { ...job.env, PATH: process.env.PATH });
  const exitCode = await runAction(settings, actionDeps());
  vi.restoreAllMocks();
  return {
    job,
    exitCode,
    outputs: parseOutputs(await readFile(job.outputPath, 'utf8')),
    summary: await readFile(job.summaryPath, 'utf8'),
    stdout: printed.join(''),
  };
}

const repo = `/repos/${REPOSITORY}`;

// Each job runs the crash harness (and verifies repairs with it): minutes on a busy machine, not seconds.
describe('the Action on examples/shop against a fake GitHub', { timeout: 240_000 }, () => {
  it('posts the review, the sticky summary and the check run, sets the outputs and fails on unsafe', async () => {
    const { job, exitCode, outputs, summary } = await runJob({ 'fail-on': 'unsafe', sarif: 'reports/crashprobe.sarif' });
    expect(exitCode).toBe(1);
    expect(outputs).toEqual(SHOP_OUTPUTS);
    expect(summary).toContain('shop/billing.py');
    expect(summary).toContain('| emails sent | 0 | 1 | 2 | 1 |');

    const calls = job.github.requests.map((r) => `${r.method} ${r.path}`);
    expect(job.github.unanswered).toEqual([]);
    expect(calls).toEqual(
      expect.arrayContaining([
        `GET ${repo}/pulls/2/files`,
        `POST ${repo}/pulls/2/reviews`,
        `POST ${repo}/issues/2/comments`,
        `POST ${repo}/check-runs`,
        `PATCH ${repo}/check-runs/82`,
      ]),
    );
    // The head files came from the workspace, not the contents API or a tarball.
    expect(calls.filter((c) => /\/contents\/|\/tarball\/|\/git\/trees\//.test(c))).toEqual([]);
    expect(job.github.requests.every((r) => r.authorization === 'token ghs_e2e')).toBe(true);

    const review = job.github.requests.find((r) => r.method === 'POST' && r.path.endsWith('/reviews'))?.body as {
      commit_id: string;
      event: string;
      comments: { path: string; line: number; body: string }[];
    };
    expect(review.commit_id).toBe(job.headSha);
    expect(review.event).toBe('COMMENT');
    expect(review.comments.length).toBeGreaterThan(0);
    for (const comment of review.comments) expect(comment.body).toMatch(/<!-- crashprobe:fp=[^ ]+ -->/);
    const sarif = sarifLogSchema.parse(JSON.parse(await readFile(path.join(job.workspace, 'reports/crashprobe.sarif'), 'utf8')));
    expect(sarif.runs[0]?.results.map((r) => r.locations[0]?.physicalLocation.artifactLocation.uri)).toContain('shop/billing.py');
    const check = job.github.requests.find((r) => r.method === 'PATCH')?.body as { conclusion: string; output: { annotations?: unknown[] } };
    expect(check.conclusion).toBe('failure');
    expect(check.output.annotations?.length).toBeGreaterThan(0);
  });

  it('exits 0 with fail-on: never, though a function is unsafe', async () => {
    const { exitCode, outputs } = await runJob({ 'fail-on': 'never' });
    expect(outputs).toMatchObject({ unsafe: '1', conclusion: 'neutral' });
    expect(exitCode).toBe(0);
  });

  it('passes a function safe by accident under fail-on: unsafe', async () => {
    const { exitCode, outputs } = await runJob({ 'fail-on': 'unsafe' }, { onlyFiles: ['shop/refunds.py'] });
    expect(outputs).toMatchObject({ unsafe: '0', 'safe-by-accident': '1', conclusion: 'success' });
    expect(exitCode).toBe(0);
  });

  it('fails it under fail-on: safe_by_accident', async () => {
    const { exitCode, outputs } = await runJob({ 'fail-on': 'safe_by_accident' }, { onlyFiles: ['shop/refunds.py'] });
    expect(outputs).toMatchObject({ 'safe-by-accident': '1', conclusion: 'failure' });
    expect(exitCode).toBe(1);
  });

  it("degrades on a fork's read-only token to annotations and the job summary, with a notice", async () => {
    const { job, exitCode, outputs, summary, stdout } = await runJob({ 'fail-on': 'never' }, { readOnlyToken: true });
    expect(job.github.requests.some((r) => r.method === 'POST' && r.path.endsWith('/reviews'))).toBe(true);
    expect(exitCode).toBe(0);
    expect(outputs.conclusion).toBe('neutral');
    expect(stdout).toContain(`::notice::${READ_ONLY_NOTICE}`);
    expect(stdout).toMatch(/^::error title=[^,]+,file=shop\/billing\.py,line=\d+,endLine=\d+::/m);
    expect(summary).toContain(READ_ONLY_NOTICE);
    expect(summary).toContain('shop/billing.py');
  });

  it("does not run a fork's code: the static review still goes out, saying why the harness stayed off", async () => {
    const { job, exitCode, outputs, summary } = await runJob({ 'fail-on': 'unsafe' }, { fromFork: true, readOnlyToken: true });
    expect(outputs).toMatchObject({ unsafe: '0', 'safe-by-accident': '0', 'safe-by-design': '0', untested: '3', conclusion: 'success' });
    expect(exitCode).toBe(0);
    expect(summary).toContain('comes from a fork');
    expect(job.github.requests.some((r) => r.path.endsWith('/pulls/2/files'))).toBe(true);
  });
});
