import { mkdtemp, mkdir, readdir, rm, writeFile, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import * as tar from 'tar';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { githubPullRequestSource } from '../../../src/adapters/github/pull-request-source.ts';
import { API, BASE, HEAD, ORDERS_PATCH, PR, testOctokit } from './fixtures.ts';

const repo = `/repos/${PR.owner}/${PR.repo}`;
const head = { ...PR, baseSha: BASE, headSha: HEAD, fromFork: false };
let work: string;

beforeAll(async () => {
  nock.disableNetConnect();
  work = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-source-test-'));
});
afterEach(() => nock.cleanAll());
afterAll(() => rm(work, { recursive: true, force: true }));

/** A tarball shaped like GitHub's: one top folder named after the commit. */
async function githubTarball(files: Record<string, string>): Promise<Buffer> {
  const staging = await mkdtemp(path.join(work, 'staging-'));
  const top = `octo-shop-${HEAD.slice(0, 7)}`;
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(staging, top, name)), { recursive: true });
    await writeFile(path.join(staging, top, name), text);
  }
  const archive = path.join(staging, 'head.tar.gz');
  await tar.c({ gzip: true, file: archive, cwd: staging }, [top]);
  return readFile(archive);
}

describe('githubPullRequestSource', () => {
  it('lists changed files across pages, with status and previous name', async () => {
    const scope = nock(API)
      .get(`${repo}/pulls/7/files`)
      .query({ per_page: '100' })
      .reply(200, [{ filename: 'shop/orders.py', status: 'modified', patch: ORDERS_PATCH }], {
        link: `<${API}${repo}/pulls/7/files?per_page=100&page=2>; rel="next"`,
      })
      .get(`${repo}/pulls/7/files`)
      .query({ per_page: '100', page: '2' })
      .reply(200, [
        { filename: 'shop/refunds.py', status: 'renamed', previous_filename: 'shop/old.py' },
        { filename: 'README.md', status: 'changed' },
      ]);
    const source = githubPullRequestSource(testOctokit(), head);
    expect(await source.changedFiles()).toEqual([
      { path: 'shop/orders.py', status: 'modified', patch: ORDERS_PATCH },
      { path: 'shop/refunds.py', status: 'renamed', previousPath: 'shop/old.py' },
      { path: 'README.md', status: 'modified' },
    ]);
    expect(scope.isDone()).toBe(true);
  });

  it('reads a file at the head commit, undefined when missing, and lists the tree', async () => {
    const scope = nock(API)
      .get(`${repo}/contents/shop%2Forders.py`)
      .query({ ref: HEAD })
      .matchHeader('accept', 'application/vnd.github.v3.raw')
      .reply(200, 'def refund(): pass\n', { 'content-type': 'application/vnd.github.v3.raw' })
      .get(`${repo}/contents/nope.py`)
      .query({ ref: HEAD })
      .reply(404, { message: 'Not Found' })
      .get(`${repo}/git/trees/${HEAD}`)
      .query({ recursive: 'true' })
      .reply(200, { truncated: false, tree: [{ path: 'shop', type: 'tree' }, { path: 'shop/orders.py', type: 'blob' }] });
    const source = githubPullRequestSource(testOctokit(), head);
    expect(await source.readFile('shop/orders.py')).toBe('def refund(): pass\n');
    expect(await source.readFile('nope.py')).toBeUndefined();
    expect(await source.listFiles()).toEqual(['shop/orders.py']);
    expect(scope.isDone()).toBe(true);
  });

  it('checks out the head tarball once, then reads from it; dispose removes it', async () => {
    const tarball = await githubTarball({ 'shop/orders.py': 'def refund(): pass\n', 'crash_scenarios.py': '# scenarios\n' });
    const scope = nock(API)
      .get(`${repo}/tarball/${HEAD}`)
      .reply(200, tarball, { 'content-type': 'application/x-gzip' });
    const workRoot = path.join(work, 'checkouts');
    const source = githubPullRequestSource(testOctokit(), head, { workRoot });
    const tree = await source.checkout();
    expect(await source.checkout()).toBe(tree);
    expect((await readdir(tree)).sort()).toEqual(['crash_scenarios.py', 'shop']);
    // Once checked out, files come from disk: no contents API call is mocked.
    expect(await source.readFile('shop/orders.py')).toBe('def refund(): pass\n');
    expect(await source.readFile('../../etc/passwd')).toBeUndefined();
    expect(scope.isDone()).toBe(true);
    await source.dispose();
    expect(await readdir(workRoot)).toEqual([]);
  });

  it('switches to the tarball after the API read limit', async () => {
    const tarball = await githubTarball({ 'a.py': 'a\n', 'b.py': 'b\n' });
    const scope = nock(API)
      .get(`${repo}/contents/a.py`).query(true).reply(200, 'a\n')
      .get(`${repo}/tarball/${HEAD}`).reply(200, tarball);
    const source = githubPullRequestSource(testOctokit(), head, { workRoot: path.join(work, 'limit'), apiReadLimit: 1 });
    expect(await source.readFile('a.py')).toBe('a\n');
    expect(await source.readFile('b.py')).toBe('b\n');
    expect(scope.isDone()).toBe(true);
    await source.dispose();
  });
});
