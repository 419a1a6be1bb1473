// Checkouts of a pull request that are safe to read (issue 9, requirement 5).
//
// A pull request controls every entry of its tree, symlinks included. A symlink,
// or a chain of them where each one looks inside the tree when its text is read,
// can resolve to a host file (the App's key, /proc/self/environ, the state DB);
// whatever Node reads through it would reach the LLM prompt or a posted comment.
// So:
// - at extraction, hard links, devices and FIFOs are never created, and after it
//   every symlink whose REAL path (fs.realpath, the kernel's resolution) leaves
//   the tree, or that resolves to nothing, is removed; what was removed is reported;
// - every read goes through readInside: the real path of the file must be inside
//   the real path of the tree, and the file must be a regular file (no FIFO that
//   blocks, no device) under a size cap;
// - a tarball has limits on its download size, extracted size, entry count and time.
import { constants, createReadStream, createWriteStream } from 'node:fs';
import { lstat, open, readdir, realpath, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';

export interface TarballLimits {
  /** Bytes of the (compressed) archive as downloaded. */
  maxDownloadBytes: number;
  /** Bytes of file data extracted. */
  maxExtractedBytes: number;
  /** Entries in the archive (files, folders, links). */
  maxEntries: number;
  /** Milliseconds for download and extraction together. */
  timeoutMs: number;
}

export const DEFAULT_TARBALL_LIMITS: TarballLimits = {
  maxDownloadBytes: 256 * 1024 * 1024,
  maxExtractedBytes: 1024 * 1024 * 1024,
  maxEntries: 100_000,
  timeoutMs: 120_000,
};

/** Bytes readInside returns at most; a larger file is treated as absent (it is no Python source to review). */
export const MAX_READ_BYTES = 8 * 1024 * 1024;

export class TarballLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TarballLimitError';
  }
}

/** Whether `full` (a real path) is `root` (a real path) or inside it. */
export function isInside(root: string, full: string): boolean {
  return full === root || full.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/**
 * The text of `file` (a path relative to `root`) when its real path is inside the real
 * path of `root` and it is a regular file of at most `maxBytes`; otherwise undefined.
 * Symlinks inside the tree that stay inside are followed; nothing else is.
 */
export async function readInside(root: string, file: string, maxBytes = MAX_READ_BYTES): Promise<string | undefined> {
  if (file.includes('\0')) return undefined;
  const realRoot = await realpath(root).catch(() => undefined);
  if (!realRoot) return undefined;
  const lexical = path.resolve(realRoot, file);
  if (!isInside(realRoot, lexical) || lexical === realRoot) return undefined;
  const real = await realpath(lexical).catch(() => undefined);
  if (!real || !isInside(realRoot, real) || real === realRoot) return undefined;
  // Open the resolved path without following a link its last component may have become
  // since (O_NOFOLLOW), then check what was opened: a regular file of bounded size.
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return undefined;
    // Where the opened descriptor really is (Linux): closes the window between realpath and
    // open in which code run in the checkout (the crash harness) could swap a folder for a link.
    const opened = await realpath(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (opened !== undefined && !isInside(realRoot, opened)) return undefined;
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Removes every symlink under `dir` whose real path leaves `dir` or resolves to nothing
 * (a chain is judged by where it really ends, never by its text). Returns the removed
 * links, relative to `dir`, sorted. Repeats until a pass removes nothing, so a link
 * that led to a removed link is removed too.
 */
export async function dropEscapingLinks(dir: string): Promise<string[]> {
  const root = await realpath(dir);
  const removed: string[] = [];
  for (;;) {
    let pass = 0;
    for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
      if (!entry.isSymbolicLink()) continue;
      const full = path.join(entry.parentPath, entry.name);
      const target = await realpath(full).catch(() => undefined);
      if (target && isInside(root, target)) continue;
      await unlink(full).catch(() => undefined);
      removed.push(path.relative(root, full).split(path.sep).join('/'));
      pass++;
    }
    if (pass === 0) break;
  }
  return [...new Set(removed)].sort();
}

/** Every regular file under `dir` (relative, `/`-separated, sorted); symlinks are not followed. */
export async function listRegularFiles(dir: string, skipDirs: ReadonlySet<string> = new Set()): Promise<string[]> {
  const files: string[] = [];
  const visit = async (at: string): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) {
        if (!skipDirs.has(entry.name)) await visit(full);
      } else if (entry.isFile()) {
        files.push(path.relative(dir, full).split(path.sep).join('/'));
      }
    }
  };
  await visit(dir);
  return files.sort();
}

/** What a checkout left out, for the review's notes. */
export function skippedNote(what: string, removed: readonly string[], kinds: readonly string[] = []): string[] {
  const notes: string[] = [];
  if (removed.length) {
    const shown = removed.slice(0, 10).join(', ');
    notes.push(`${what}: ${removed.length} symlink(s) that lead out of the repository (or nowhere) were removed and not read: ${shown}${removed.length > 10 ? `, and ${removed.length - 10} more` : ''}.`);
  }
  if (kinds.length) {
    const shown = kinds.slice(0, 10).join(', ');
    notes.push(`${what}: ${kinds.length} entr(ies) that are hard links, devices or FIFOs were not extracted: ${shown}${kinds.length > 10 ? `, and ${kinds.length - 10} more` : ''}.`);
  }
  return notes;
}

function duration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

function counter(limit: number, what: () => string): Transform {
  let total = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.length;
      if (total > limit) callback(new TarballLimitError(what()));
      else callback(null, chunk);
    },
  });
}

/**
 * Writes `body` to `file`, failing with TarballLimitError once it passes `maxBytes` or
 * `timeoutMs` (when given) runs out; `signal` aborts it too.
 */
export async function downloadTo(body: Readable, file: string, maxBytes: number, signal?: AbortSignal, timeoutMs?: number): Promise<void> {
  const timeout = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
  const signals = [signal, timeout].filter((s): s is AbortSignal => s !== undefined);
  try {
    await pipeline(body, counter(maxBytes, () => `the tarball is larger than ${maxBytes.toLocaleString('en-US')} bytes`), createWriteStream(file, { mode: 0o600 }), signals.length ? { signal: AbortSignal.any(signals) } : {});
  } catch (error) {
    if (timeout?.aborted && !signal?.aborted) throw new TarballLimitError(`downloading the tarball took longer than ${duration(timeoutMs ?? 0)}`);
    throw error;
  }
}

export interface Extracted {
  /** Symlinks removed because their real path leaves the tree (relative to the tree). */
  droppedLinks: string[];
  /** Entries never created: hard links, devices, FIFOs (their paths in the archive, after the strip). */
  droppedEntries: string[];
}

/**
 * Extracts a gzipped tarball into `tree` with limits on extracted bytes, entries and
 * time (TarballLimitError past one), without hard links, devices or FIFOs, then drops
 * every symlink whose real path leaves the tree.
 */
export async function extractTarball(archive: string, tree: string, options: { strip?: number; limits?: Partial<TarballLimits>; signal?: AbortSignal } = {}): Promise<Extracted> {
  const limits = { ...DEFAULT_TARBALL_LIMITS, ...options.limits };
  const strip = options.strip ?? 0;
  const droppedEntries: string[] = [];
  let entries = 0;
  let bytes = 0;
  let failure: Error | undefined;
  const unpack = new tar.Unpack({
    cwd: tree,
    strip,
    // Never the archive's owners; modes are a best effort under the process umask (no `chmod`);
    // no absolute paths or `..` (node-tar's default, a text check: dropEscapingLinks does the real one).
    preserveOwner: false,
    filter: (entryPath, entry) => {
      if (failure) return false;
      entries++;
      if (entries > limits.maxEntries) {
        failure = new TarballLimitError(`the tarball has more than ${limits.maxEntries.toLocaleString('en-US')} entries`);
        return false;
      }
      const type = 'type' in entry ? entry.type : 'File';
      const size = 'size' in entry && typeof entry.size === 'number' ? entry.size : 0;
      if (type !== 'File' && type !== 'OldFile' && type !== 'ContiguousFile' && type !== 'Directory' && type !== 'SymbolicLink') {
        if (!/^(GlobalExtendedHeader|ExtendedHeader|NextFileHasLongPath|NextFileHasLongLinkpath|OldGnuLongPath)$/.test(type)) {
          droppedEntries.push(entryPath.split('/').slice(strip).join('/') || entryPath);
        }
        return false;
      }
      bytes += size;
      if (bytes > limits.maxExtractedBytes) {
        failure = new TarballLimitError(`the tarball extracts to more than ${limits.maxExtractedBytes.toLocaleString('en-US')} bytes`);
        return false;
      }
      return true;
    },
  });
  // Past a limit nothing more is extracted, but the archive is read to its end, so every file
  // already under way is written and closed before this returns (and the caller removes the tree).
  // Past the time limit likewise; should reading the rest take as long again, the stream is torn down.
  const late = setTimeout(() => {
    failure ??= new TarballLimitError(`extracting the tarball took longer than ${duration(limits.timeoutMs)}`);
  }, limits.timeoutMs);
  const hardStop = AbortSignal.timeout(limits.timeoutMs + Math.min(limits.timeoutMs, 10_000));
  const signal = options.signal ? AbortSignal.any([options.signal, hardStop]) : hardStop;
  try {
    await pipeline(createReadStream(archive), unpack, { signal });
  } catch (error) {
    if (failure) throw failure;
    if (hardStop.aborted) throw new TarballLimitError(`extracting the tarball took longer than ${duration(limits.timeoutMs)}`);
    throw error;
  } finally {
    clearTimeout(late);
  }
  if (failure) throw failure;
  const droppedLinks = await dropEscapingLinks(tree);
  return { droppedLinks, droppedEntries };
}

/** Whether `p` exists as a symlink (lstat, not followed). */
export async function isSymlink(p: string): Promise<boolean> {
  return (await lstat(p).catch(() => undefined))?.isSymbolicLink() ?? false;
}
