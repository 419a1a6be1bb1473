// The App's PullRequestSource against a hostile head and base tarball (issue 9, requirement 5):
// links whose real path leaves the tree are dropped and reported, every read stays inside.
import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TarballLimitError } from '../../../src/adapters/checkout/safe-tree.ts';
import { githubPullRequestSource } from '../../../src/adapters/github/pull-request-source.ts';
import { hostileTarball, type HostileTarball } from '../checkout/hostile-tarball.ts';
import { API, BASE, HEAD, PR, testOctokit } from './fixtures.ts';

const repo = `/repos/${PR.owner}/${PR.repo}`;
const head = { ...PR, baseSha: BASE, headSha: HEAD, fromFork: true };
let work: string;
let hostile: HostileTarball;

beforeAll(async () => {
  nock.disableNetConnect();
  work = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-source-links-test-'));
  hostile = await hostileTarball(work);
});
afterEach(() => nock.cleanAll());
afterAll(() => rm(work, { recursive: true, force: true }));

describe('githubPullRequestSource with a hostile tarball', () => {
  it('never returns a host file through a chain of links, lists regular files only, and says what it skipped', async () => {
    const scope = nock(API)
      .get(`${repo}/tarball/${HEAD}`).reply(200, hostile.buffer, { 'content-type': 'application/x-gzip' })
      .get(`${repo}/tarball/${BASE}`).reply(200, hostile.buffer, { 'content-type': 'application/x-gzip' })
      .get(`${repo}/git/trees/${HEAD}`).query({ recursive: 'true' })
      .reply(200, { truncated: true, tree: [] });
    const workRoot = path.join(work, 'checkouts');
    const source = githubPullRequestSource(testOctokit(), head, { workRoot, apiReadLimit: 0 });
    expect(await source.skipped!()).toEqual([]);

    const returned: unknown[] = [];
    const read = async (file: string) => {
      const text = await source.readFile(file);
      returned.push(text);
      return text;
    };
    expect(await read(hostile.leak)).toBeUndefined();
    expect(await read(hostile.throughChain)).toBeUndefined();
    expect(await read('abs.py')).toBeUndefined();
    expect(await read(`a/l${hostile.hops}/proc/self/environ`)).toBeUndefined();
    expect(await read(hostile.canaryFile)).toBeUndefined();
    expect(await read('pkg/hard.py')).toBeUndefined();
    expect(await read('fifo')).toBeUndefined();
    expect(await read('good.py')).toBe(hostile.module);
    expect(await read('pkgalias/mod.py')).toBe(hostile.module);

    // The git tree is truncated, so the listing comes from the checkout: regular files only.
    const files = await source.listFiles();
    returned.push(files);
    expect(files).toEqual(['pkg/mod.py']);
    for (const file of files) returned.push(await source.readFile(file));

    const tree = await source.checkout();
    expect(await lstat(path.join(tree, hostile.leak)).catch(() => undefined)).toBeUndefined();
    expect((await lstat(path.join(tree, 'good.py'))).isSymbolicLink()).toBe(true);

    expect(await source.readBaseFile!(hostile.leak)).toBeUndefined();
    expect(await source.readBaseFile!(hostile.throughChain)).toBeUndefined();
    expect(await source.readBaseFile!('good.py')).toBe(hostile.module);
    returned.push(await source.checkoutBase!());

    const notes = await source.skipped!();
    returned.push(notes);
    expect(notes).toHaveLength(4);
    expect(notes[0]).toMatch(/^head checkout: \d+ symlink\(s\) that lead out of the repository .* were removed and not read: a\/l1, /);
    expect(notes[1]).toBe('head checkout: 3 entr(ies) that are hard links, devices or FIFOs were not extracted: pkg/hard.py, fifo, null.');
    expect(notes[2]).toMatch(/^base checkout: /);

    expect(JSON.stringify(returned)).not.toContain(hostile.canary);
    expect(JSON.stringify(returned)).not.toContain(path.dirname(hostile.canaryFile));
    expect(scope.isDone()).toBe(true);
    await source.dispose();
    expect(await readdir(workRoot)).toEqual([]);
  });

  it('lists only regular files from the git tree (no symlinks)', async () => {
    const scope = nock(API)
      .get(`${repo}/git/trees/${HEAD}`).query({ recursive: 'true' })
      .reply(200, {
        truncated: false,
        tree: [
          { path: 'pkg', type: 'tree', mode: '040000' },
          { path: 'pkg/mod.py', type: 'blob', mode: '100644' },
          { path: 'run.py', type: 'blob', mode: '100755' },
          { path: 'a/leak.py', type: 'blob', mode: '120000' },
          { path: 'vendor/lib', type: 'commit', mode: '160000' },
        ],
      });
    const source = githubPullRequestSource(testOctokit(), head);
    expect(await source.listFiles()).toEqual(['pkg/mod.py', 'run.py']);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses a tarball over the size or entry limits, and leaves nothing behind', async () => {
    const workRoot = path.join(work, 'limits');
    nock(API).get(`${repo}/tarball/${HEAD}`).reply(200, hostile.buffer);
    const small = githubPullRequestSource(testOctokit(), head, { workRoot, tarballLimits: { maxDownloadBytes: 100 } });
    await expect(small.checkout()).rejects.toThrow(TarballLimitError);
    await expect(small.checkout()).rejects.toThrow('the tarball is larger than 100 bytes');

    nock(API).get(`${repo}/tarball/${HEAD}`).reply(200, hostile.buffer);
    const few = githubPullRequestSource(testOctokit(), head, { workRoot, tarballLimits: { maxEntries: 5 } });
    await expect(few.checkout()).rejects.toThrow('the tarball has more than 5 entries');
    expect(await readdir(workRoot)).toEqual([]);
    await small.dispose();
    await few.dispose();
  });
});
