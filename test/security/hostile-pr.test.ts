// Issue 9's table, end to end: a hostile pull request (test/security/hostile-pr.ts) loots every
// secret it can name and writes it where a review shows evidence. Reviewed by the CLI and by
// the Action's bundle against a fake GitHub, no canary may appear in any output: terminal text,
// markdown, JSON, SARIF, the job summary, the step outputs, stderr, or any request body sent to
// GitHub. The same pull request reviewed with `--sandbox none` does show the canary: the channel
// is real, so the sandbox is what stops it.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJob } from '../adapters/action/fixture.ts';
import { runStep } from '../adapters/action/step.ts';
import { hostilePr, type HostilePr } from './hostile-pr.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/crashprobe.js');
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const hasBwrap = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'].some((p) => existsSync(p));

let pr: HostilePr;
beforeAll(() => {
  pr = hostilePr();
});
afterAll(() => pr.cleanUp());

/** The first review of a checkout runs the harness; later formats are served from its verdict cache (in .git, which the sandbox hides). */
async function cliReview(dir: string, sandbox: string, format: string, asUser?: number) {
  const review = [BIN, 'review', '--base', 'main', '--head', 'HEAD', '--sandbox', sandbox, '--format', format];
  // As another user: setpriv drops root for good (no groups, no capabilities) before node starts.
  const [command, args] = asUser === undefined
    ? [process.execPath, review]
    : ['setpriv', [`--reuid=${asUser}`, `--regid=${asUser}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', process.execPath, ...review]];
  const result = await execa(command, args, {
    cwd: dir,
    reject: false,
    env: { [pr.envName]: pr.token, ...(asUser === undefined ? {} : { HOME: '/tmp' }) },
  });
  return { ...result, all: `${result.stdout}\n${result.stderr}` };
}

describe('a hostile pull request gets nothing (issue 9)', { timeout: 240_000 }, () => {
  it('through the CLI with --sandbox none, the canary does reach the review: the channel is real', async () => {
    const dir = await pr.build();
    const result = await cliReview(dir, 'none', 'json');
    expect(result.exitCode, result.stderr).toBeLessThanOrEqual(1);
    expect(result.all).toContain(pr.token);
  });

  it.skipIf(!hasBwrap)('through the CLI in the sandbox: no canary in text, markdown, JSON or SARIF, and the function was judged', async () => {
    const dir = await pr.build();
    for (const format of ['json', 'markdown', 'text', 'sarif']) {
      const result = await cliReview(dir, 'bwrap', format);
      expect({ format, exitCode: result.exitCode }).toEqual({ format, exitCode: expect.any(Number) });
      expect(result.exitCode, result.all).toBeLessThanOrEqual(1);
      expect({ format, leaked: result.all.includes(pr.token) }).toEqual({ format, leaked: false });
      if (format === 'json') {
        const review = JSON.parse(result.stdout) as { functions: { qualname: string; class: string }[] };
        // The code ran (a verdict, not untested): the sandbox, not a skipped run, kept the canary out.
        expect(review.functions.find((f) => f.qualname === 'record')?.class).toMatch(/^(unsafe|safe_by_accident|safe_by_design)$/);
      }
    }
  });

  it.skipIf(!hasBwrap || !isRoot)('through the CLI as an unprivileged user (nobody), in the sandbox: no canary; without it the canary shows', async () => {
    const dir = await pr.build();
    await execa('chown', ['-R', String(NOBODY), dir]);
    const sandboxed = await cliReview(dir, 'bwrap', 'json', NOBODY);
    expect(sandboxed.exitCode, sandboxed.all).toBeLessThanOrEqual(1);
    expect((JSON.parse(sandboxed.stdout) as { functions: { class: string }[] }).functions[0]?.class).toMatch(/^(unsafe|safe_by_accident|safe_by_design)$/);
    expect(sandboxed.all.includes(pr.token)).toBe(false);
    const other = await pr.build();
    await execa('chown', ['-R', String(NOBODY), other]);
    const bare = await cliReview(other, 'none', 'json', NOBODY);
    expect(bare.all).toContain(pr.token);
  });

  it.skipIf(!hasBwrap)("through the Action's bundle: no canary in the summary, outputs, SARIF, log or any request body to GitHub", async () => {
    const job = await startJob({ repository: () => pr.build() });
    try {
      job.env[pr.envName] = pr.token;
      const step = await runStep(job, { 'fail-on': 'never', sarif: 'crashprobe.sarif' });
      expect(step.exitCode, step.stdout + step.stderr).toBe(0);
      const sarif = await readFile(path.join(job.workspace, 'crashprobe.sarif'), 'utf8');
      const bodies = JSON.stringify(job.github.requests.map((r) => r.body));
      expect(bodies).toContain('ledger/store.py'); // the review went out
      for (const [where, text] of Object.entries({ stdout: step.stdout, stderr: step.stderr, summary: step.summary, outputs: JSON.stringify(step.outputs), sarif, bodies })) {
        expect({ where, leaked: text.includes(pr.token) }).toEqual({ where, leaked: false });
      }
      expect(step.outputs.untested).toBe('0');
    } finally {
      await job.cleanUp();
    }
  });
});
