// Issue 10's "done when", on a real library: a change that breaks litequeue's crash safety (its
// `put`, one INSERT in autocommit, now inserts each message twice in two statements) reviewed
// from a git history with the real harness. The review must say so and lead with the regression
// against the base; the unchanged `_pop_returning` is not this change's business.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, expect, it } from 'vitest';
import { runScenarioFiles } from '../../src/adapters/harness/campaign.ts';
import { gitSource } from '../../src/adapters/cli/git-source.ts';
import { DEFAULT_CONFIG } from '../../src/core/config/schema.ts';
import { silentLogger, type HarnessRunner } from '../../src/core/ports.ts';
import { reviewPullRequest } from '../../src/core/review/review.ts';
import { memoryStore } from '../../src/core/review/verdict-cache.ts';
import { harnessOptions } from '../core/crash/helpers.ts';

const LITEQUEUE = path.resolve(import.meta.dirname, '../../harness/corpus/litequeue');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** litequeue as it is on `main`; on HEAD, `put` inserts the message twice, in two statements. */
async function brokenPut(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cp-litequeue-'));
  dirs.push(dir);
  const git = (...args: string[]) => execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir });
  await git('init', '--quiet', '--initial-branch=main');
  cpSync(LITEQUEUE, dir, { recursive: true });
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'litequeue as pinned');
  await git('checkout', '--quiet', '-b', 'double-put');
  const file = path.join(dir, 'litequeue.py');
  const source = readFileSync(file, 'utf8');
  const insert = /( {8}_cursor = self\.conn\.execute\(  # noqa\n[\s\S]*?\n {8}\)\n)/.exec(source)?.[1];
  if (!insert) throw new Error('litequeue.py: the INSERT of put() was not found; the pinned copy changed');
  writeFileSync(file, source.replace(insert, `${insert}${insert}`));
  await git('commit', '--quiet', '-am', 'put: write the message twice');
  return dir;
}

it('says a real library change made `put` unsafe, as a regression from safe by design at the base', async () => {
  const dir = await brokenPut();
  const options = await harnessOptions();
  const harness: HarnessRunner = { run: (files) => runScenarioFiles(files, options) };
  const source = gitSource({ top: dir, base: 'main', head: 'HEAD' });
  try {
    const review = await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store: memoryStore(), logger: silentLogger });
    const put = review.functions.find((f) => f.qualname === 'LiteQueue.put');
    expect(put).toMatchObject({ path: 'litequeue.py', class: 'unsafe' });
    expect(put?.base).toMatchObject({ class: 'safe_by_design', change: 'regression' });
    expect(review.summary).toMatch(/\*\*regression\*\* `LiteQueue.put`: safe by design[^\n]* at base → unsafe[^\n]* at this head/);
    expect(review.functions.map((f) => f.qualname)).not.toContain('LiteQueue._pop_returning');
    expect(review.conclusion).toBe('failure');
  } finally {
    await source.dispose();
  }
}, 240_000);
