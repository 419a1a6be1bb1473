// Issue 10's "done when", on a real library: a change that breaks sqlitedict's crash safety,
// reviewed from a git history with the real harness. sqlitedict 2.1.0 (Debian's
// python3-sqlitedict, with our corpus scenarios) as `main`; on HEAD, `SqliteDict.__setitem__`
// writes a value as a DELETE and then an INSERT instead of one REPLACE. With autocommit=True
// the library's connection states isolation_level=None, so each is saved on its own: a crash
// between them loses the key's old value, and the new one is not there either (the corpus
// judges the base's single REPLACE safe by design: harness/corpus/sqlitedict/expected.json).
// The review must say so and lead with the regression against the base; the unchanged
// `SqliteDict.update` (which has a scenario too) is not this change's business.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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
import { assembleProject, debianPackage, expectVersion } from '../support/debian-corpus.ts';

const OUR_SCENARIOS = path.resolve(import.meta.dirname, '../../harness/corpus/sqlitedict');
/** The version whose `__setitem__` the edit below was written against. */
const READ_VERSION = '2.1.0-1';
const ONE_REPLACE = `        ADD_ITEM = 'REPLACE INTO "%s" (key, value) VALUES (?,?)' % self.tablename
        self.conn.execute(ADD_ITEM, (self.encode_key(key), self.encode(value)))
`;
const DELETE_THEN_INSERT = `        DEL_ITEM = 'DELETE FROM "%s" WHERE key = ?' % self.tablename
        INSERT_ITEM = 'INSERT INTO "%s" (key, value) VALUES (?,?)' % self.tablename
        self.conn.execute(DEL_ITEM, (self.encode_key(key),))
        self.conn.execute(INSERT_ITEM, (self.encode_key(key), self.encode(value)))
`;

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** sqlitedict as Debian ships it on `main`; on HEAD, `__setitem__` deletes the key, then inserts it. */
async function deleteThenInsert(): Promise<string> {
  const pkg = debianPackage('python3-sqlitedict');
  expectVersion(pkg, READ_VERSION);
  const dir = assembleProject(pkg, [OUR_SCENARIOS], ['sqlitedict.py']);
  dirs.push(dir);
  const git = (...args: string[]) => execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir });
  await git('init', '--quiet', '--initial-branch=main');
  await git('add', '-A');
  await git('commit', '--quiet', '-m', `sqlitedict ${pkg.version}`);
  await git('checkout', '--quiet', '-b', 'delete-then-insert');
  const file = path.join(dir, 'sqlitedict.py');
  const source = readFileSync(file, 'utf8');
  if (source.split(ONE_REPLACE).length !== 2) throw new Error(`sqlitedict.py ${pkg.version}: the one REPLACE of __setitem__ was not found once; read the new version and rewrite the edit`);
  writeFileSync(file, source.replace(ONE_REPLACE, DELETE_THEN_INSERT));
  await git('commit', '--quiet', '-am', '__setitem__: DELETE, then INSERT');
  return dir;
}

it('says a real library change made `__setitem__` unsafe, as a regression from safe by design at the base', async () => {
  const dir = await deleteThenInsert();
  const options = await harnessOptions();
  const harness: HarnessRunner = { run: (files) => runScenarioFiles(files, options) };
  const source = gitSource({ top: dir, base: 'main', head: 'HEAD' });
  try {
    const review = await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store: memoryStore(), logger: silentLogger });
    const setitem = review.functions.find((f) => f.qualname === 'SqliteDict.__setitem__');
    expect(setitem).toMatchObject({ path: 'sqlitedict.py', class: 'unsafe' });
    expect(setitem?.base).toMatchObject({ class: 'safe_by_design', change: 'regression' });
    expect(review.summary).toMatch(/\*\*regression\*\* `SqliteDict.__setitem__`: safe by design[^\n]* at base → unsafe[^\n]* at this head/);
    expect(review.functions.map((f) => f.qualname)).not.toContain('SqliteDict.update');
    expect(review.conclusion).toBe('failure');
  } finally {
    await source.dispose();
  }
}, 240_000);
