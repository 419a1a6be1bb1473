// A pull request on GitHub as the core's PullRequestSource: changed files from
// pulls/files, files at the head commit from the contents API, and the head
// tree as a tarball extracted to a temporary folder (for the crash harness,
// and for reading once a review needs more files than a few API calls).
// The tarball is the pull request's to shape: it is downloaded and extracted under
// limits, links that lead out of the tree are dropped, and every read from disk goes
// through readInside (real path inside the real tree) — see ../checkout/safe-tree.ts.
import { mkdtemp, rm, mkdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import os from 'node:os';
import path from 'node:path';
import {
  DEFAULT_TARBALL_LIMITS,
  downloadTo,
  extractTarball,
  listRegularFiles,
  readInside,
  skippedNote,
  type TarballLimits,
} from '../checkout/safe-tree.ts';
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
  /** Limits on the head and base tarballs (size, entries, time); default DEFAULT_TARBALL_LIMITS. */
  tarballLimits?: Partial<TarballLimits>;
}

interface Checkout {
  temp: string;
  tree: string;
  /** What the extraction left out, as notes for the review. */
  notes: string[];
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
  let checkoutDir: Promise<Checkout> | undefined;
  let baseDir: Promise<Checkout> | undefined;
  let apiReads = 0;

  const checkout = () => (checkoutDir ??= downloadTree(octokit, head, options));
  const checkoutBase = () => (baseDir ??= downloadTree(octokit, head, options, head.baseSha));

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
      if (checkoutDir || apiReads >= apiReadLimit) return readInside((await checkout()).tree, file);
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
      // A truncated tree (over 100,000 entries) lists only part of the repository: list the checkout instead.
      if (data.truncated) return listRegularFiles((await checkout()).tree);
      // Regular files only (mode 100644 or 100755): no symlinks (120000), as in the checkout.
      return data.tree.filter((entry) => entry.type === 'blob' && entry.path && entry.mode !== '120000').map((entry) => entry.path!);
    },

    checkout: async () => (await checkout()).tree,

    // The base: read from its tarball (one download, as a review that judges the base reads its targets and runs them).
    readBaseFile: async (file) => readInside((await checkoutBase()).tree, file),
    checkoutBase: async () => (await checkoutBase()).tree,

    // What the checkouts made so far left out (links leading out of the tree, hard links, devices, FIFOs).
    async skipped() {
      const notes: string[] = [];
      for (const dir of [checkoutDir, baseDir]) {
        const done = await dir?.catch(() => undefined);
        if (done) notes.push(...done.notes);
      }
      return notes;
    },

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

async function downloadTree(octokit: GitHubClient, head: PullRequestHead, options: GitHubSourceOptions, sha = head.headSha): Promise<Checkout> {
  const limits: TarballLimits = { ...DEFAULT_TARBALL_LIMITS, ...options.tarballLimits };
  const which = sha === head.headSha ? 'head' : 'base';
  const root = options.workRoot ?? os.tmpdir();
  await mkdir(root, { recursive: true });
  const temp = await mkdtemp(path.join(root, `crashprobe-${which}-`));
  try {
    const started = Date.now();
    // Unparsed, so the archive streams to disk whatever content type it comes with.
    const { data } = await githubCall(`GET /repos/${head.owner}/${head.repo}/tarball/${sha}`, () =>
      octokit.rest.repos.downloadTarballArchive({ owner: head.owner, repo: head.repo, ref: sha, request: { parseSuccessResponseBody: false } }),
    );
    const archive = path.join(temp, `${which}.tar.gz`);
    await downloadTo(Readable.fromWeb(data as unknown as WebReadableStream), archive, limits.maxDownloadBytes, undefined, limits.timeoutMs);
    const tree = path.join(temp, 'tree');
    await mkdir(tree);
    // GitHub's tarball holds one top folder (owner-repo-sha/); strip it. Download and extraction share the time limit.
    const { droppedLinks, droppedEntries } = await extractTarball(archive, tree, {
      strip: 1,
      limits: { ...limits, timeoutMs: Math.max(1, limits.timeoutMs - (Date.now() - started)) },
    });
    await rm(archive);
    return { temp, tree, notes: skippedNote(`${which} checkout`, droppedLinks, droppedEntries) };
  } catch (error) {
    await rm(temp, { recursive: true, force: true, maxRetries: 5 });
    throw error;
  }
}
