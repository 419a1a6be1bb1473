// The Octokit surface the GitHub adapter uses. Probot's `context.octokit`, an
// `@octokit/rest` Octokit (the Action) and a test's Octokit all fit it.
import type { Octokit } from '@octokit/rest';

export type GitHubClient = Pick<Octokit, 'rest' | 'paginate' | 'graphql'>;

export interface RepoRef {
  owner: string;
  repo: string;
}

export interface PullRequestRef extends RepoRef {
  number: number;
}

/** `owner/name` → RepoRef; throws with the expected shape when it is not one. */
export function parseRepository(fullName: string): RepoRef {
  const [owner, repo, ...rest] = fullName.split('/');
  if (!owner || !repo || rest.length) throw new Error(`"${fullName}" is not a repository name: expected owner/name`);
  return { owner, repo };
}
