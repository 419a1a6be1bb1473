import { lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TarballLimitError,
  downloadTo,
  extractTarball,
  listRegularFiles,
  readInside,
  skippedNote,
} from '../../../src/adapters/checkout/safe-tree.ts';
import { hostileTarball, type HostileTarball } from './hostile-tarball.ts';

let work: string;
let hostile: HostileTarball;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-safe-tree-test-'));
  hostile = await hostileTarball(work);
});
afterAll(() => rm(work, { recursive: true, force: true }));

const freshTree = async () => {
  const tree = path.join(await mkdtemp(path.join(work, 'checkout-')), 'tree');
  await mkdir(tree);
  return tree;
};

describe('the hostile tarball', () => {
  it('does leak the canary through a plain tar.x and a text path check (what is being blocked)', async () => {
    const tree = await freshTree();
    await tar.x({ file: hostile.archive, cwd: tree, strip: 1 });
    const leak = path.resolve(tree, hostile.leak);
    expect(leak.startsWith(tree + path.sep)).toBe(true);
    expect(await readFile(leak, 'utf8')).toContain(hostile.canary);
  });
});

describe('extractTarball', () => {
  it('drops the links that leave the tree, keeps the good ones, never makes hard links or FIFOs', async () => {
    const tree = await freshTree();
    const { droppedLinks, droppedEntries } = await extractTarball(hostile.archive, tree, { strip: 1 });

    expect(droppedLinks).toContain('a/leak.py');
    expect(droppedLinks).toContain('abs.py');
    for (let i = 1; i <= hostile.hops; i++) expect(droppedLinks).toContain(`a/l${i}`);
    expect(droppedLinks).not.toContain('good.py');
    expect(droppedLinks).not.toContain('pkgalias');
    for (const gone of [...droppedLinks, 'pkg/hard.py', 'fifo', 'null']) {
      expect(await lstat(path.join(tree, gone)).catch(() => undefined), gone).toBeUndefined();
    }
    expect(droppedEntries.sort()).toEqual(['fifo', 'null', 'pkg/hard.py']);
    expect((await lstat(path.join(tree, 'good.py'))).isSymbolicLink()).toBe(true);

    expect(await readInside(tree, 'pkg/mod.py')).toBe(hostile.module);
    expect(await readInside(tree, 'good.py')).toBe(hostile.module);
    expect(await readInside(tree, 'pkgalias/mod.py')).toBe(hostile.module);
    expect(await readInside(tree, hostile.leak)).toBeUndefined();
    expect(await readInside(tree, hostile.throughChain)).toBeUndefined();
    expect(await listRegularFiles(tree)).toEqual(['pkg/mod.py']);

    const notes = skippedNote('head checkout', droppedLinks, droppedEntries);
    expect(notes).toHaveLength(2);
    expect(notes[0]).toContain(`${droppedLinks.length} symlink(s) that lead out of the repository`);
    expect(notes[0]).toContain(`and ${droppedLinks.length - 10} more`);
    expect(notes[1]).toContain('fifo');
    expect(notes[1]).toContain('pkg/hard.py');
    expect(notes.join('\n')).not.toContain(hostile.canary);
  });

  it('raises TarballLimitError past the entry count or the extracted bytes, and stops extracting', async () => {
    const entries = extractTarball(hostile.archive, await freshTree(), { strip: 1, limits: { maxEntries: 3 } });
    await expect(entries).rejects.toBeInstanceOf(TarballLimitError);
    await expect(entries).rejects.toThrow('the tarball has more than 3 entries');

    const big = path.join(await mkdtemp(path.join(work, 'big-')), 'big.tar.gz');
    const staging = await mkdtemp(path.join(work, 'big-staging-'));
    await mkdir(path.join(staging, 'top'));
    for (const name of ['one.py', 'two.py', 'three.py']) await writeFile(path.join(staging, 'top', name), 'x'.repeat(4000));
    await tar.c({ gzip: true, file: big, cwd: staging }, ['top']);
    const tree = await freshTree();
    const bytes = extractTarball(big, tree, { strip: 1, limits: { maxExtractedBytes: 6000 } });
    await expect(bytes).rejects.toBeInstanceOf(TarballLimitError);
    await expect(bytes).rejects.toThrow('the tarball extracts to more than 6,000 bytes');
    expect((await readdir(tree)).length).toBeLessThan(3);
    // Within the limits the same archive extracts.
    await expect(extractTarball(big, await freshTree(), { strip: 1, limits: { maxExtractedBytes: 12_000, maxEntries: 4 } })).resolves.toEqual({ droppedLinks: [], droppedEntries: [] });
  });

  it('raises TarballLimitError when the extraction runs out of time', async () => {
    const slow = extractTarball(hostile.archive, await freshTree(), { strip: 1, limits: { timeoutMs: 1 } });
    await expect(slow).rejects.toBeInstanceOf(TarballLimitError);
    await expect(slow).rejects.toThrow('extracting the tarball took longer than 1 ms');
  });
});

describe('downloadTo', () => {
  it('writes the body, and raises TarballLimitError past the size cap', async () => {
    const dir = await mkdtemp(path.join(work, 'download-'));
    await downloadTo(Readable.from([Buffer.alloc(60), Buffer.alloc(40)]), path.join(dir, 'ok.tar.gz'), 100);
    expect((await readFile(path.join(dir, 'ok.tar.gz'))).length).toBe(100);
    const over = downloadTo(Readable.from([Buffer.alloc(60), Buffer.alloc(41)]), path.join(dir, 'over.tar.gz'), 100);
    await expect(over).rejects.toBeInstanceOf(TarballLimitError);
    await expect(over).rejects.toThrow('the tarball is larger than 100 bytes');
  });

  it('raises TarballLimitError when the download runs out of time', async () => {
    const dir = await mkdtemp(path.join(work, 'download-slow-'));
    const never = new Readable({ read() {} });
    await expect(downloadTo(never, path.join(dir, 'slow.tar.gz'), 100, undefined, 20)).rejects.toThrow('downloading the tarball took longer than 20 ms');
  });
});

describe('readInside', () => {
  it('refuses links made after extraction whose real path leaves the tree, and what is no regular file', async () => {
    const tree = await freshTree();
    await extractTarball(hostile.archive, tree, { strip: 1 });
    // Links made later (by code run in the checkout, say): the same chain, and a direct one.
    await symlink('..', path.join(tree, 'a', 'm0'));
    for (let i = 1; i <= hostile.hops; i++) await symlink(`m${i - 1}/..`, path.join(tree, 'a', `m${i}`));
    await symlink(`m${hostile.hops}${hostile.canaryFile}`, path.join(tree, 'a', 'late.py'));
    await symlink(hostile.canaryFile, path.join(tree, 'direct.py'));
    await symlink(path.dirname(hostile.canaryFile), path.join(tree, 'hostdir'));
    for (const file of ['a/late.py', `a/m${hostile.hops}${hostile.canaryFile}`, 'direct.py', 'hostdir/secret.txt', hostile.canaryFile, path.relative(tree, hostile.canaryFile), '../../etc/hostname', '/proc/self/environ', 'x\0.py']) {
      expect(await readInside(tree, file), file).toBeUndefined();
    }
    // A FIFO (would block a plain read), a folder, the tree itself, a missing file, a file over the cap.
    execFileSync('mkfifo', [path.join(tree, 'late-fifo')]);
    expect(await readInside(tree, 'late-fifo')).toBeUndefined();
    expect(await readInside(tree, 'pkg')).toBeUndefined();
    expect(await readInside(tree, '.')).toBeUndefined();
    expect(await readInside(tree, 'missing.py')).toBeUndefined();
    expect(await readInside(tree, 'pkg/mod.py', 5)).toBeUndefined();
    expect(await readInside(tree, 'pkg/mod.py')).toBe(hostile.module);
    // A tree reached through a link of its own is judged by its real path.
    const alias = path.join(path.dirname(tree), 'alias');
    await symlink(tree, alias);
    expect(await readInside(alias, 'good.py')).toBe(hostile.module);
    expect(await readInside(alias, 'direct.py')).toBeUndefined();
  });
});
