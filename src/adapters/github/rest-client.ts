// An Octokit built from a token and an API URL, for callers no framework hands one to (the
// Action). Quiet: Octokit's own request log would print "POST …/reviews - 403 with id UNKNOWN"
// to stderr, and the adapter reports failures itself.
import { Octokit } from '@octokit/rest';
import type { GitHubClient } from './client.ts';

export interface RestClientOptions {
  token: string;
  /** e.g. https://api.github.com, or a GitHub Enterprise Server's /api/v3. */
  apiUrl: string;
  userAgent: string;
}

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

export function restClient(options: RestClientOptions): GitHubClient {
  return new Octokit({ auth: options.token, baseUrl: options.apiUrl, userAgent: options.userAgent, log: quiet });
}
