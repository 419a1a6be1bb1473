// A pull request on GitHub as the core's PullRequestSource: changed files from
// pulls/files, files at the head commit from the contents API, and the head
// tree as a tarball extracted to a temporary folder (for the crash harness,
// and for reading once a review needs more files than a few API calls).
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, mkdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import type { ChangedFile, PullRequestSource } from '../../core/ports.ts';
import type { GitHubClient, PullRequestRef } from './client.ts';
import { githubCall, isNotFound } from './errors.ts';

export interface PullRequestHead extends PullRequestRef {
  baseSha: string;
  headSha: string;
  fromFork: boolean;
}

export interface GitHubSourceOptions {
  /** Where the temporary checkout goes (default: the OS temp folder). */
  workRoot?: string;
  /** After this many single-file API reads, the head tarball is fetched once and read from disk instead. */
  apiReadLimit?: number;
}

export interface DisposablePullRequestSource extends PullRequestSource {
  /** Removes the temporary checkout, if one was made. */
  dispose(): Promise<void>;
}

const DEFAULT_API_READ_LIMIT = 25;

export function githubPullRequestSource(
  octokit: GitHubClient,
  head: PullRequestHead,
  options: GitHubSourceOptions = {},
): DisposablePullRequestSource {
  const { owner, repo, number, headSha } = head;
  const where = `/repos/${owner}/${repo}`;
  const apiReadLimit = options.apiReadLimit ?? DEFAULT_API_READ_LIMIT;
  let changed: Promise<ChangedFile[]> | undefined;
  let checkoutDir: Promise<{ temp: string; tree: string }> | undefined;
  let baseDir: Promise<{ temp: string; tree: string }> | undefined;
  let apiReads = 0;

  const checkout = () => (checkoutDir ??= downloadHead(octokit, head, options.workRoot));
  const checkoutBase = () => (baseDir ??= downloadHead(octokit, head, options.workRoot, head.baseSha));

  return {
    repository: `${owner}/${repo}`,
    number,
    baseSha: head.baseSha,
    headSha,
    fromFork: head.fromFork,

    changedFiles: () =>
      (changed ??= githubCall(`GET ${where}/pulls/${number}/files`, () =>
        octokit.paginate(octokit.rest.pulls.listFiles, { owner, repo, pull_number: number, per_page: 100 }),
      ).then((files) => files.map(toChangedFile))),

    async readFile(file) {
      if (checkoutDir || apiReads >= apiReadLimit) return readFromTree((await checkout()).tree, file);
      apiReads += 1;
      try {
        const response = await githubCall(`GET ${where}/contents/${file}`, () =>
          octokit.rest.repos.getContent({ owner, repo, path: file, ref: headSha, mediaType: { format: 'raw' } }),
        );
        // The raw media type answers a file with its bytes (text or binary by content type); a folder still comes back as a JSON listing.
        const data: unknown = response.data;
        if (typeof data === 'string') return data;
        return data instanceof ArrayBuffer ? Buffer.from(data).toString('utf8') : undefined;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },

    async listFiles() {
      const { data } = await githubCall(`GET ${where}/git/trees/${headSha}`, () =>
        octokit.rest.git.getTree({ owner, repo, tree_sha: headSha, recursive: 'true' }),
      );
      // A truncated tree (over 100,000 entries) lists only part of the repository: walk the checkout instead.
      if (data.truncated) return walk((await checkout()).tree);
      return data.tree.filter((entry) => entry.type === 'blob' && entry.path).map((entry) => entry.path!);
    },

    checkout: async () => (await checkout()).tree,

    // The base: read from its tarball (one download, as a review that judges the base reads its targets and runs them).
    readBaseFile: async (file) => readFromTree((await checkoutBase()).tree, file),
    checkoutBase: async () => (await checkoutBase()).tree,

    async dispose() {
      for (const dir of [checkoutDir, baseDir]) {
        if (!dir) continue;
        const { temp } = await dir.catch(() => ({ temp: undefined }));
        if (temp) await rm(temp, { recursive: true, force: true });
      }
    },
  };
}

function toChangedFile(file: { filename: string; status: string; previous_filename?: string; patch?: string }): ChangedFile {
  const status = file.status === 'added' || file.status === 'removed' || file.status === 'renamed' ? file.status : 'modified';
  const changed: ChangedFile = { path: file.filename, status };
  if (file.previous_filename) changed.previousPath = file.previous_filename;
  if (file.patch !== undefined) changed.patch = file.patch;
  return changed;
}

async function downloadHead(octokit: GitHubClient, head: PullRequestHead, workRoot?: string, sha = head.headSha): Promise<{ temp: string; tree: string }> {
  const root = workRoot ?? os.tmpdir();
  await mkdir(root, { recursive: true });
  const temp = await mkdtemp(path.join(root, sha === head.headSha ? 'crashprobe-head-' : 'crashprobe-base-'));
  try {
    // Unparsed, so the archive streams to disk whatever content type it comes with.
    const { data } = await githubCall(`GET /repos/${head.owner}/${head.repo}/tarball/${sha}`, () =>
      octokit.rest.repos.downloadTarballArchive({ owner: head.owner, repo: head.repo, ref: sha, request: { parseSuccessResponseBody: false } }),
    );
    const archive = path.join(temp, 'head.tar.gz');
    await pipeline(Readable.fromWeb(data as unknown as WebReadableStream), createWriteStream(archive));
    const tree = path.join(temp, 'tree');
    await mkdir(tree);
    // GitHub's tarball holds one top folder (owner-repo-sha/); strip it. tar refuses absolute paths and `..` by default.
    await tar.x({ file: archive, cwd: tree, strip: 1 });
    await rm(archive);
    return { temp, tree };
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}

async function readFromTree(tree: string, file: string): Promise<string | undefined> {
  const full = path.resolve(tree, file);
  if (!full.startsWith(tree + path.sep)) return undefined;
  try {
    return await readFile(full, 'utf8');
  } catch {
    return undefined;
  }
}

async function walk(tree: string): Promise<string[]> {
  const entries = await readdir(tree, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(tree, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}
