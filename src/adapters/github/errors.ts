// Every call to GitHub goes through `githubCall`, so a failure names the call,
// the HTTP status and what to do, instead of surfacing Octokit's stack trace.
// A token that may not write is recognised however GitHub says it: REST answers
// 403, GraphQL answers HTTP 200 with an error of type FORBIDDEN.

export class GitHubApiError extends Error {
  constructor(
    readonly call: string,
    /** The HTTP status (403 for a GraphQL FORBIDDEN error); undefined when GitHub was never reached (network, DNS). */
    readonly status: number | undefined,
    readonly detail: string,
    /** How long GitHub asked to wait before trying again (Retry-After, or the primary rate limit's reset), when it said. */
    readonly retryAfterMs?: number,
  ) {
    super(`GitHub ${call} failed${status ? ` with ${status}` : ''}: ${detail}. ${adviceFor(status, detail)}`);
    this.name = 'GitHubApiError';
  }

  /** Worth trying again: GitHub's own errors, rate limits and network failures. */
  get retryable(): boolean {
    return this.status === undefined || this.status >= 500 || this.status === 429 || isRateLimit(this.detail);
  }

  /** The token may read but not write this (a fork's token, a workflow without the permission): not worth retrying. */
  get readOnly(): boolean {
    return this.status === 403 && !isRateLimit(this.detail);
  }
}

function isRateLimit(detail: string): boolean {
  return /rate limit/i.test(detail);
}

// Said to an App operator and an Action user alike: nothing here promises a retry the reader's mode does not make.
function adviceFor(status: number | undefined, detail: string): string {
  if (status === undefined) return 'GitHub could not be reached: check the network and the API URL (GITHUB_API_URL in an Action, GHE_HOST for the App).';
  if (status === 401) return 'The credentials were refused: check the token (or APP_ID and PRIVATE_KEY, and that the key belongs to this app).';
  if (status === 403 && isRateLimit(detail)) return 'Rate limited by GitHub: try again once the limit resets.';
  if (status === 403)
    return 'The token lacks a permission: crashprobe needs pull-requests: write, checks: write, contents: read and metadata: read.';
  if (status === 404) return 'The repository, pull request or file is not visible to this token or installation.';
  if (status === 409 || status === 422) return 'GitHub rejected the request as sent; this is a crashprobe bug worth reporting with this message.';
  if (status === 429) return 'Rate limited by GitHub: try again once the limit resets.';
  if (status >= 500) return 'GitHub had a server error: try again in a few minutes.';
  return 'See the status above.';
}

interface OctokitLikeError {
  status?: unknown;
  message?: unknown;
  response?: { data?: unknown; headers?: Record<string, unknown> };
  /** @octokit/graphql's GraphqlResponseError: the `errors` of an HTTP 200 answer. */
  errors?: unknown;
}

interface GraphqlError {
  type?: unknown;
  message?: unknown;
}

function graphqlErrors(error: OctokitLikeError): GraphqlError[] {
  return Array.isArray(error.errors) ? (error.errors as GraphqlError[]).filter((e) => typeof e === 'object' && e !== null) : [];
}

function detailOf(error: OctokitLikeError): string {
  const data = error.response?.data as { message?: unknown; errors?: unknown } | undefined;
  const parts: string[] = [];
  const graphql = graphqlErrors(error);
  if (graphql.length) parts.push(graphql.map((e) => `${String(e.type ?? 'ERROR')}: ${String(e.message ?? '')}`).join('; ').slice(0, 300));
  else if (data && typeof data.message === 'string') parts.push(data.message);
  else if (typeof error.message === 'string') parts.push(error.message.split('\n')[0] ?? '');
  if (!graphql.length && data && Array.isArray(data.errors) && data.errors.length) parts.push(JSON.stringify(data.errors).slice(0, 300));
  return parts.join(' ') || 'no message';
}

/** The HTTP status, or 403 for GraphQL's FORBIDDEN (answered with HTTP 200), 404 for NOT_FOUND. */
function statusOf(error: OctokitLikeError): number | undefined {
  const types = graphqlErrors(error).map((e) => e.type);
  if (types.includes('FORBIDDEN')) return 403;
  if (types.includes('RATE_LIMITED')) return 429;
  if (types.includes('NOT_FOUND')) return 404;
  if (typeof error.status === 'number' && error.status > 0) return error.status;
  // Some other GraphQL error in an HTTP 200 answer: GitHub was reached and refused the query as sent.
  return types.length ? 422 : undefined;
}

/** Runs one GitHub call; a failure becomes a GitHubApiError naming `call` (e.g. "POST /repos/o/r/pulls/1/reviews"). */
export async function githubCall<T>(call: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw asGitHubError(call, error);
  }
}

export function asGitHubError(call: string, error: unknown, now = Date.now()): GitHubApiError {
  if (error instanceof GitHubApiError) return error;
  const e = (error ?? {}) as OctokitLikeError;
  return new GitHubApiError(call, statusOf(e), detailOf(e), retryAfterOf(e.response?.headers, now));
}

/** `retry-after` (seconds), else, when the primary rate limit is used up, the time until `x-ratelimit-reset` (epoch seconds). */
export function retryAfterOf(headers: Record<string, unknown> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const retryAfter = Number(headers['retry-after']);
  if (headers['retry-after'] !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0) return retryAfter * 1000;
  const reset = Number(headers['x-ratelimit-reset']);
  if (String(headers['x-ratelimit-remaining']) === '0' && Number.isFinite(reset)) return Math.max(0, reset * 1000 - now);
  return undefined;
}

export function isNotFound(error: unknown): boolean {
  return error instanceof GitHubApiError && error.status === 404;
}

/** A 403 that is not a rate limit, from REST or GraphQL: the token may not write this. */
export function isReadOnly(error: unknown): boolean {
  return error instanceof GitHubApiError && error.readOnly;
}
