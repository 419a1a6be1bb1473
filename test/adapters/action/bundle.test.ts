// The committed bundle run as GitHub runs it: `node action/dist/index.js` with the
// inputs as INPUT_* variables and the runner's variables, against the fake API.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { parseOutputs, removeRunnerTemp, SHOP_OUTPUTS, startJob } from './fixture.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const dist = path.join(root, 'action/dist');

/**
 * tree-sitter's prebuilt linux binary needs libstdc++ from GCC 13 (ubuntu-24.04 has
 * it; Debian 12, where this project's machines run, does not, so npm built one from
 * source into node_modules). node-gyp-build's TREE_SITTER_PREBUILD points the
 * bundle at that build only where the shipped binary cannot load: everything else
 * the bundle ships is still what runs.
 */
async function nativeOverride(): Promise<Record<string, string>> {
  const probe = await execa(process.execPath, ['-e', `require(${JSON.stringify(path.join(dist, 'node_modules/tree-sitter'))})`], { reject: false });
  if (probe.exitCode === 0) return {};
  expect(probe.stderr, 'the shipped tree-sitter binary fails for another reason than an old libstdc++').toMatch(/GLIBCXX/);
  const localBuild = path.join(root, 'node_modules/tree-sitter');
  expect(existsSync(path.join(localBuild, 'build/Release'))).toBe(true);
  return { TREE_SITTER_PREBUILD: localBuild };
}

afterAll(removeRunnerTemp);

describe('node action/dist/index.js', { timeout: 240_000 }, () => {
  it('reviews the pull request, posts to the API it is given, writes outputs and summary, and exits per fail-on', async () => {
    const job = await startJob();
    try {
      const result = await execa(process.execPath, [path.join(dist, 'index.js')], {
        cwd: job.workspace,
        reject: false,
        extendEnv: false,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? '/tmp',
          ...job.env,
          ...(await nativeOverride()),
          // As the runner passes them: action.yml's defaults filled in, names upper-cased, dashes kept.
          'INPUT_GITHUB-TOKEN': 'ghs_bundle',
          'INPUT_FAIL-ON': 'unsafe',
          INPUT_CONFIG: '.github/crashprobe.yml',
          INPUT_HARNESS: 'true',
          INPUT_SARIF: 'crashprobe.sarif',
        },
      });
      expect(result.stdout).not.toMatch(/cannot load on this runner/);
      expect(result.exitCode, result.stdout + result.stderr).toBe(1);
      expect(result.stdout).toMatch(/^::error::The review concluded failure under fail-on: unsafe \(1 unsafe, 1 safe by accident\)/m);
      // The verdicts need the harness: the bundle ran its own copy of it (the repository's is not beside dist/).
      expect(parseOutputs(await readFile(job.outputPath, 'utf8'))).toEqual(SHOP_OUTPUTS);
      expect(await readFile(job.summaryPath, 'utf8')).toContain('shop/billing.py');
      expect(JSON.parse(await readFile(path.join(job.workspace, 'crashprobe.sarif'), 'utf8'))).toMatchObject({ version: '2.1.0' });
      const calls = job.github.requests.map((r) => `${r.method} ${r.path}`);
      expect(calls).toContain('POST /repos/Codertocat/Hello-World/pulls/2/reviews');
      expect(calls).toContain('PATCH /repos/Codertocat/Hello-World/check-runs/82');
      expect(job.github.requests.every((r) => r.authorization === 'token ghs_bundle')).toBe(true);
    } finally {
      await job.cleanUp();
    }
  });
});
