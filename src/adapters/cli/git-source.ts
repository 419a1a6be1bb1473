// A PullRequestSource over a local git repository: `git diff BASE [HEAD]`, files read
// at HEAD (or from the working tree when no head is given), no GitHub at all.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import type { ChangedFile, PullRequestSource } from '../../core/ports.ts';

async function git(cwd: string, args: string[]): Promise<string> {
  const result = await execa('git', args, { cwd, reject: false, stripFinalNewline: false, maxBuffer: 512 * 1024 * 1024 });
  if (result.exitCode !== 0) {
    throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${String(result.stderr).trim() || `exit code ${result.exitCode}`}`);
  }
  return String(result.stdout);
}

export async function repositoryTop(cwd: string): Promise<string> {
  return (await git(cwd, ['rev-parse', '--show-toplevel'])).trim();
}

/** The default base: where this branch left main (or master), or the previous commit on main itself. */
export async function defaultBase(top: string): Promise<string> {
  for (const branch of ['main', 'master', 'origin/main', 'origin/master']) {
    const exists = await execa('git', ['rev-parse', '--verify', '--quiet', branch], { cwd: top, reject: false });
    if (exists.exitCode !== 0) continue;
    const mergeBase = (await git(top, ['merge-base', 'HEAD', branch])).trim();
    const head = (await git(top, ['rev-parse', 'HEAD'])).trim();
    if (mergeBase !== head) return mergeBase;
  }
  return 'HEAD~1';
}

export function splitGitDiff(diff: string): ChangedFile[] {
  const files: ChangedFile[] = [];
  for (const block of diff.split(/^diff --git /m).slice(1)) {
    const header = block.slice(0, block.search(/^@@/m) === -1 ? block.length : block.search(/^@@/m));
    const minus = /^--- (?:a\/)?(.+)$/m.exec(header)?.[1];
    const plus = /^\+\+\+ (?:b\/)?(.+)$/m.exec(header)?.[1];
    const renameFrom = /^rename from (.+)$/m.exec(header)?.[1];
    const renameTo = /^rename to (.+)$/m.exec(header)?.[1];
    const firstLine = block.split('\n')[0] ?? '';
    const fallback = /^a\/(.+?) b\/(.+)$/.exec(firstLine);
    const added = /^new file mode/m.test(header);
    const removed = /^deleted file mode/m.test(header);
    const newPath = renameTo ?? (plus && plus !== '/dev/null' ? plus : undefined) ?? fallback?.[2];
    const oldPath = renameFrom ?? (minus && minus !== '/dev/null' ? minus : undefined) ?? fallback?.[1];
    const hunkStart = block.search(/^@@/m);
    const patch = hunkStart === -1 ? undefined : block.slice(hunkStart).replace(/\n$/, '');
    if (removed && oldPath) files.push({ path: oldPath, status: 'removed', patch });
    else if (newPath) {
      files.push({
        path: newPath,
        status: added ? 'added' : renameFrom ? 'renamed' : 'modified',
        previousPath: renameFrom ? oldPath : undefined,
        patch: patch ?? (renameFrom ? '' : undefined),
      });
    }
  }
  return files;
}

export interface GitSourceOptions {
  top: string;
  base: string;
  /** A commit; undefined reviews the working tree against the base. */
  head?: string;
}

export function gitSource({ top, base, head }: GitSourceOptions): PullRequestSource & { dispose(): Promise<void>; resolvedHead: string } {
  let checkoutDir: string | undefined;
  let baseDir: string | undefined;
  const source = {
    repository: path.basename(top),
    baseSha: base,
    headSha: head ?? 'working tree',
    resolvedHead: head ?? 'working tree',
    fromFork: false,
    async changedFiles() {
      const args = ['diff', '--no-color', '--no-ext-diff', '--find-renames', '--unified=3', base];
      if (head) args.push(head);
      return splitGitDiff(await git(top, args));
    },
    async readFile(p: string) {
      try {
        return head ? await git(top, ['show', `${head}:${p}`]) : await readFile(path.join(top, p), 'utf8');
      } catch {
        return undefined;
      }
    },
    async listFiles() {
      const out = head
        ? await git(top, ['ls-tree', '-r', '--name-only', head])
        : await git(top, ['ls-files', '--cached', '--others', '--exclude-standard']);
      return out.split('\n').filter(Boolean);
    },
    async checkout() {
      if (!head) return top;
      if (!checkoutDir) {
        checkoutDir = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-head-'));
        const archive = await execa('git', ['archive', '--format=tar', head], { cwd: top, encoding: 'buffer', maxBuffer: 1024 * 1024 * 1024 });
        await execa('tar', ['-x', '-C', checkoutDir], { input: archive.stdout });
      }
      return checkoutDir;
    },
    async readBaseFile(p: string) {
      try {
        return await git(top, ['show', `${base}:${p}`]);
      } catch {
        return undefined;
      }
    },
    async checkoutBase() {
      if (!baseDir) {
        baseDir = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-base-'));
        const archive = await execa('git', ['archive', '--format=tar', base], { cwd: top, encoding: 'buffer', maxBuffer: 1024 * 1024 * 1024 });
        await execa('tar', ['-x', '-C', baseDir], { input: archive.stdout });
      }
      return baseDir;
    },
    async dispose() {
      if (checkoutDir) await rm(checkoutDir, { recursive: true, force: true });
      if (baseDir) await rm(baseDir, { recursive: true, force: true });
    },
  };
  return source;
}
