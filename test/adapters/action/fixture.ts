// A workflow job as GitHub would set it up for examples/shop's pull request: the
// checkout in a workspace, the pull_request event payload, the runner's files,
// and a fake GitHub API that serves the pull request and records what is posted.
import { mkdtempSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { buildExampleRepository } from '../../../scripts/example.ts';
import { splitGitDiff } from '../../../src/adapters/cli/git-source.ts';
import { examplePayload } from './events.ts';
import { startFakeGitHub, type FakeGitHub, type Routes } from './fake-github.ts';

export const REPOSITORY = 'Codertocat/Hello-World';

/** The step outputs for examples/shop's whole change under fail-on: unsafe (one function of each class it shows). */
export const SHOP_OUTPUTS = {
  unsafe: '1',
  'safe-by-accident': '1',
  'safe-by-design': '1',
  'not-working': '0',
  untested: '0',
  conclusion: 'failure',
};

export interface Job {
  /** The checkout of the pull request's head. */
  workspace: string;
  baseSha: string;
  headSha: string;
  eventPath: string;
  outputPath: string;
  summaryPath: string;
  github: FakeGitHub;
  /** The runner's variables, pointing at the fake API. */
  env: Record<string, string>;
  cleanUp(): Promise<void>;
}

export interface JobOptions {
  /** Answer POST reviews (and check runs) with 403, as GitHub does to a fork's read-only token. */
  readOnlyToken?: boolean;
  /** The pull request's files as pulls/files lists them (default: all the change touches). */
  onlyFiles?: string[];
  /** The head is in another repository, as a fork's pull request. */
  fromFork?: boolean;
}

/**
 * The runner's own temp folder, one per test process: @actions/core remembers the
 * job summary's path after its first write (one Action, one process), so every job
 * here reuses the same files, emptied at its start.
 */
const runnerTemp = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-runner-'));

export function removeRunnerTemp(): Promise<void> {
  return rm(runnerTemp, { recursive: true, force: true });
}

const git = (cwd: string, ...args: string[]) => execa('git', args, { cwd }).then((r) => r.stdout.trim());

export async function startJob(options: JobOptions = {}): Promise<Job> {
  const workspace = await buildExampleRepository();
  const baseSha = await git(workspace, 'rev-parse', 'main');
  const headSha = await git(workspace, 'rev-parse', 'HEAD');
  const changed = splitGitDiff(await git(workspace, 'diff', '--no-color', '--find-renames', 'main', 'HEAD'))
    .filter((file) => !options.onlyFiles || options.onlyFiles.includes(file.path))
    .map((file) => ({ filename: file.path, status: file.status, patch: file.patch, previous_filename: file.previousPath }));

  const payload = examplePayload('pull_request', 'synchronize');
  payload.pull_request.base.sha = baseSha;
  payload.pull_request.head.sha = headSha;
  if (options.fromFork) payload.pull_request.head.repo = { full_name: 'forker/Hello-World' };
  const eventPath = path.join(runnerTemp, 'event.json');
  await writeFile(eventPath, JSON.stringify(payload));
  const outputPath = path.join(runnerTemp, 'output');
  const summaryPath = path.join(runnerTemp, 'step_summary.md');
  await writeFile(outputPath, '');
  await writeFile(summaryPath, '');

  const forbidden = { status: 403, body: { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com/rest' } };
  const repo = `/repos/${REPOSITORY}`;
  const number = payload.pull_request.number;
  const routes: Routes = {
    [`GET ${repo}/pulls/${number}/files`]: { status: 200, body: changed },
    [`GET ${repo}/pulls/${number}/comments`]: { status: 200, body: [] },
    [`POST ${repo}/pulls/${number}/reviews`]: options.readOnlyToken ? forbidden : { status: 200, body: { id: 80 } },
    [`GET ${repo}/issues/${number}/comments`]: { status: 200, body: [] },
    [`POST ${repo}/issues/${number}/comments`]: options.readOnlyToken ? forbidden : { status: 201, body: { id: 81 } },
    [`POST ${repo}/check-runs`]: options.readOnlyToken ? forbidden : { status: 201, body: { id: 82 } },
    [`PATCH ${repo}/check-runs/82`]: { status: 200, body: { id: 82 } },
  };
  const github = await startFakeGitHub(routes);
  return {
    workspace,
    baseSha,
    headSha,
    eventPath,
    outputPath,
    summaryPath,
    github,
    env: {
      GITHUB_API_URL: github.url,
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_REPOSITORY: REPOSITORY,
      GITHUB_WORKSPACE: workspace,
      GITHUB_OUTPUT: outputPath,
      GITHUB_STEP_SUMMARY: summaryPath,
    },
    async cleanUp() {
      await github.close();
      await rm(workspace, { recursive: true, force: true });
    },
  };
}

/** The step outputs as GitHub reads them from GITHUB_OUTPUT (`name<<delimiter` blocks). */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^<=]+)<<(.+)$/.exec(lines[i] ?? '');
    if (!heredoc) continue;
    const [, name = '', delimiter] = heredoc;
    const value: string[] = [];
    while (++i < lines.length && lines[i] !== delimiter) value.push(lines[i] ?? '');
    outputs[name] = value.join('\n');
  }
  return outputs;
}
