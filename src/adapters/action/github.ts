// The Action's GitHub: an Octokit on the runner's API URL and token (restClient),
// the pull request as the github adapter reads it, with the head files taken from
// the workspace the job checked out, the config read at the base commit, and the
// one publisher the App uses too.
import { readdirSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { githubPullRequestSource, readFileAt, restClient, reviewPublisher, type Author, type GitHubClient } from '../github/index.ts';
import { dropEscapingLinks, readInside } from '../checkout/safe-tree.ts';
import type { PullRequestSource } from '../../core/ports.ts';
import type { PullRequestEvent } from './event.ts';
import type { GitHubConnection } from './runner.ts';
import type { ActionSettings } from './settings.ts';

/** Folders a workflow's earlier steps fill that are not the repository's code. */
const NOT_THE_REPOSITORY = new Set(['.git', 'node_modules', '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache', '.pytest_cache']);

/** Who `${{ github.token }}` posts as; a check run owned by another app (an app token) names its own bot instead. */
export const ACTIONS_BOT: Author = { login: 'github-actions[bot]', id: 41898282 };

export function connectGitHub(settings: ActionSettings, event: PullRequestEvent): GitHubConnection {
  const octokit = restClient({ token: settings.token, apiUrl: settings.github.apiUrl, userAgent: 'crashprobe-action' });
  return connectWith(octokit, settings, event);
}

export function connectWith(octokit: GitHubClient, settings: ActionSettings, event: PullRequestEvent): GitHubConnection {
  const pr = { owner: event.owner, repo: event.repo, number: event.number };
  const remote = githubPullRequestSource(octokit, { ...pr, baseSha: event.baseSha, headSha: event.headSha, fromFork: event.fromFork });
  // Without a checkout step the workspace is empty, and under pull_request_target it holds the base, not the head:
  // then the github adapter reads the head through the API and a tarball.
  const headOnDisk = settings.github.eventName !== 'pull_request_target' && readdirSync(settings.github.workspace).length > 0;
  const source = headOnDisk ? workspaceSource(remote, settings.github.workspace, event.baseSha) : remote;
  const publisher = reviewPublisher(octokit, { ...pr, headSha: event.headSha }, { author: ACTIONS_BOT, authorFromCheckRun: true });
  return {
    source,
    publisher: {
      start: () => publisher.start(),
      publish: async (review) => publisher.publish(review, await source.changedFiles()),
      conclude: (outcome) => publisher.conclude(outcome),
    },
    async readBaseFile(file) {
      // The base commit is in the checkout when the workflow fetched it; otherwise the contents API has it.
      const local = await gitShow(settings.github.workspace, event.baseSha, file);
      return local.found ? local.text : readFileAt(octokit, pr, file, event.baseSha);
    },
    dispose: async () => {
      await (source as DisposableSource).disposeLocal?.();
      await remote.dispose();
    },
  };
}

type DisposableSource = PullRequestSource & { disposeLocal?(): Promise<void> };

/**
 * A file at a commit of the checkout's git database, or `found: false` when the commit is not
 * there (a shallow checkout of the head). `cat-file` is plumbing: no textconv, filters or hooks
 * a pull request's `.gitattributes` could name.
 */
async function gitShow(workspace: string, commit: string, file: string): Promise<{ found: true; text: string | undefined } | { found: false }> {
  if (!(await hasCommit(workspace, commit))) return { found: false };
  const blob = await git(workspace, 'cat-file', 'blob', `${commit}:${file}`);
  return { found: true, text: blob.exitCode === 0 ? blob.stdout : undefined };
}

const git = (workspace: string, ...args: string[]) =>
  execa('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd: workspace, reject: false, stripFinalNewline: false });

/** Whether the checkout's git database has `commit` (a full hex id only: nothing a ref name could redirect). */
async function hasCommit(workspace: string, commit: string): Promise<boolean> {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) return false;
  const found = await git(workspace, 'cat-file', '-e', `${commit}^{commit}`).catch(() => undefined);
  return found?.exitCode === 0;
}

/**
 * The changed files from the API (their patches), every other read from the
 * checkout in the workspace: no tarball download, and the harness runs the
 * files that are on disk. The base is read from the checkout's git database when
 * the workflow fetched it (`fetch-depth: 0`, or the base commit fetched), else
 * from GitHub's tarball of it.
 */
function workspaceSource(remote: PullRequestSource, workspace: string, baseSha: string): DisposableSource {
  let baseDir: Promise<string> | undefined;
  let baseTemp: string | undefined;
  const baseIsLocal = hasCommit(workspace, baseSha);
  return {
    ...remote,
    changedFiles: () => remote.changedFiles(),
    // The real path, not the text: a symlink (or a chain of them) in the pull request must not lead out of the checkout.
    readFile: (file) => readInside(workspace, file),
    listFiles: () => listWorkspace(workspace),
    checkout: async () => workspace,
    async readBaseFile(file) {
      if (!(await baseIsLocal)) return remote.readBaseFile?.(file);
      const local = await gitShow(workspace, baseSha, file);
      return local.found ? local.text : undefined;
    },
    checkoutBase: remote.checkoutBase
      ? async () => {
          if (!(await baseIsLocal)) return remote.checkoutBase!();
          baseDir ??= (async () => {
            baseTemp = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-base-'));
            await archiveInto(workspace, baseSha, baseTemp);
            return baseTemp;
          })();
          return baseDir;
        }
      : undefined,
    async disposeLocal() {
      if (baseTemp) await rm(baseTemp, { recursive: true, force: true });
    },
  };
}

/** The tree of `commit` extracted into `dir` (plumbing: no hooks), with every symlink whose real path leaves `dir` removed. */
async function archiveInto(workspace: string, commit: string, dir: string): Promise<void> {
  const archive = await execa('git', ['-c', 'core.hooksPath=/dev/null', 'archive', '--format=tar', commit], {
    cwd: workspace,
    encoding: 'buffer',
    maxBuffer: 1024 * 1024 * 1024,
  });
  await execa('tar', ['-x', '--no-same-owner', '-C', dir], { input: archive.stdout });
  await dropEscapingLinks(dir);
}

async function listWorkspace(workspace: string): Promise<string[]> {
  const files: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && !NOT_THE_REPOSITORY.has(entry.name)) await visit(full);
      else if (entry.isFile()) files.push(path.relative(workspace, full).split(path.sep).join('/'));
    }
  };
  await visit(workspace);
  return files.sort();
}
