// A real gzipped tarball shaped like GitHub's (one top folder), holding what a hostile
// pull request can put in a tree: a chain of symlinks where each hop looks inside the
// tree when its text is read but the chain really ends at a host file (the canary), a
// symlink to an absolute host path, a good in-tree symlink (file and folder), a hard
// link, a FIFO and a character device. Written entry by entry with node-tar's Header,
// so the order (and the entry types) are the test's to choose.
import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as tar from 'tar';

export interface TarEntry {
  path: string;
  type: 'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'FIFO' | 'CharacterDevice';
  linkpath?: string;
  body?: string;
}

/** A gzipped tarball of `entries`, in that order. */
export function tarball(entries: readonly TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? '');
    const header = new tar.Header({
      path: entry.path,
      type: entry.type,
      linkpath: entry.linkpath ?? '',
      size: body.length,
      mode: entry.type === 'Directory' ? 0o755 : 0o644,
      uid: 0,
      gid: 0,
      mtime: new Date('2024-01-01T00:00:00Z'),
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

export interface HostileTarball {
  archive: string;
  buffer: Buffer;
  /** A host file outside every tree, and the text no read may return. */
  canaryFile: string;
  canary: string;
  /** Links in the chain a/l1 … a/l<hops> (a/l0 -> `..` is the tree itself). */
  hops: number;
  /** The chain's end: a link that names the canary through a/l<hops>. */
  leak: string;
  /** The canary reached through the chain's links, as a path in the tree. */
  throughChain: string;
  /** Contents of the regular file pkg/mod.py. */
  module: string;
}

export async function hostileTarball(work: string, top = 'octo-shop-abc1234'): Promise<HostileTarball> {
  const canary = `CANARY-${randomUUID()}`;
  const hostDir = await mkdtemp(path.join(work, 'host-'));
  const canaryFile = path.join(hostDir, 'secret.txt');
  await writeFile(canaryFile, `${canary}\n`);
  // Enough `..` to climb from any tree made under `work` to `/` (more stay at `/`),
  // and few enough for the kernel's 40 links per resolution.
  const hops = work.split(path.sep).length + 6;
  const module = 'def refund(order):\n    return order\n';
  const at = (p: string) => `${top}/${p}`;
  const entries: TarEntry[] = [
    { path: at(''), type: 'Directory' },
    { path: at('a/'), type: 'Directory' },
    { path: at('pkg/'), type: 'Directory' },
    // First, so node-tar's own check (no link through an existing link) finds nothing to refuse.
    // As text a/l<hops>/tmp/…/secret.txt, inside the tree; really the canary.
    { path: at('a/leak.py'), type: 'SymbolicLink', linkpath: `l${hops}${canaryFile}` },
    { path: at('abs.py'), type: 'SymbolicLink', linkpath: canaryFile },
    { path: at('pkg/mod.py'), type: 'File', body: module },
    { path: at('pkg/hard.py'), type: 'Link', linkpath: at('pkg/mod.py') },
    { path: at('good.py'), type: 'SymbolicLink', linkpath: 'pkg/mod.py' },
    { path: at('pkgalias'), type: 'SymbolicLink', linkpath: 'pkg' },
    { path: at('fifo'), type: 'FIFO' },
    { path: at('null'), type: 'CharacterDevice' },
    // The chain: a/l0 -> .. (the tree), a/l1 -> l0/.. , … : as text each is `a`, really each climbs one folder.
    { path: at('a/l0'), type: 'SymbolicLink', linkpath: '..' },
    ...Array.from({ length: hops }, (_, i): TarEntry => ({ path: at(`a/l${i + 1}`), type: 'SymbolicLink', linkpath: `l${i}/..` })),
  ];
  const buffer = tarball(entries);
  const archive = path.join(await mkdtemp(path.join(work, 'archive-')), 'pr.tar.gz');
  await writeFile(archive, buffer);
  return { archive, buffer, canaryFile, canary, hops, leak: 'a/leak.py', throughChain: `a/l${hops}${canaryFile}`, module };
}
