// The Action's GitHub: an Octokit on the runner's API URL and token, the pull
// request as the github adapter reads it, with the head files taken from the
// workspace the job checked out, and the review posted by the github adapter.
import { readdirSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Octokit } from '@octokit/rest';
import {
  completeCheckRun,
  githubPullRequestSource,
  publishReview,
  reviewOutcome,
  startCheckRun,
  type GitHubClient,
} from '../github/index.ts';
import type { PullRequestSource } from '../../core/ports.ts';
import type { PullRequestEvent } from './event.ts';
import type { GitHubConnection } from './runner.ts';
import type { ActionSettings } from './settings.ts';

/** Folders a workflow's earlier steps fill that are not the repository's code. */
const NOT_THE_REPOSITORY = new Set(['.git', 'node_modules', '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache', '.pytest_cache']);

export function connectGitHub(settings: ActionSettings, event: PullRequestEvent): GitHubConnection {
  const octokit = new Octokit({ auth: settings.token, baseUrl: settings.github.apiUrl, userAgent: 'crashprobe-action' });
  return connectWith(octokit, settings, event);
}

export function connectWith(octokit: GitHubClient, settings: ActionSettings, event: PullRequestEvent): GitHubConnection {
  const pr = { owner: event.owner, repo: event.repo, number: event.number };
  const remote = githubPullRequestSource(octokit, { ...pr, baseSha: event.baseSha, headSha: event.headSha, fromFork: event.fromFork });
  // Without a checkout step the workspace is empty, and under pull_request_target it holds the base, not the head:
  // then the github adapter reads the head through the API and a tarball.
  const headOnDisk = settings.github.eventName !== 'pull_request_target' && readdirSync(settings.github.workspace).length > 0;
  const source = headOnDisk ? workspaceSource(remote, settings.github.workspace) : remote;
  return {
    source,
    async publish(review) {
      try {
        await publishReview(octokit, pr, review, await source.changedFiles());
        // The job is a check of its own; this one carries the conclusion and the annotations on the diff, as the App's does.
        const checkRunId = await startCheckRun(octokit, pr, event.headSha);
        await completeCheckRun(octokit, pr, checkRunId, reviewOutcome(review));
      } finally {
        await remote.dispose();
      }
    },
  };
}

/**
 * The changed files from the API (their patches), every other read from the
 * checkout in the workspace: no tarball download, and the harness runs the
 * files that are on disk.
 */
function workspaceSource(remote: PullRequestSource, workspace: string): PullRequestSource {
  return {
    ...remote,
    changedFiles: () => remote.changedFiles(),
    async readFile(file) {
      const full = path.resolve(workspace, file);
      if (!full.startsWith(workspace + path.sep)) return undefined;
      return readFile(full, 'utf8').catch(() => undefined);
    },
    listFiles: () => listWorkspace(workspace),
    checkout: async () => workspace,
  };
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
