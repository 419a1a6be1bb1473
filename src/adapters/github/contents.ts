// One file at one commit through the contents API (the Action's config at the
// base commit, when the checkout does not hold the base).
import type { GitHubClient, RepoRef } from './client.ts';
import { githubCall, isNotFound } from './errors.ts';

/** The file's text at `ref`, or undefined when it does not exist there. */
export async function readFileAt(octokit: GitHubClient, ref: RepoRef, file: string, commit: string): Promise<string | undefined> {
  try {
    const response = await githubCall(`GET /repos/${ref.owner}/${ref.repo}/contents/${file}?ref=${commit}`, () =>
      octokit.rest.repos.getContent({ owner: ref.owner, repo: ref.repo, path: file, ref: commit, mediaType: { format: 'raw' } }),
    );
    const data: unknown = response.data;
    if (typeof data === 'string') return data;
    return data instanceof ArrayBuffer ? Buffer.from(data).toString('utf8') : undefined;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
