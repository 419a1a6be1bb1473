// Every call to GitHub goes through `githubCall`, so a failure names the call,
// the HTTP status and what to do, instead of surfacing Octokit's stack trace.

export class GitHubApiError extends Error {
  constructor(
    readonly call: string,
    /** The HTTP status; undefined when GitHub was never reached (network, DNS). */
    readonly status: number | undefined,
    readonly detail: string,
  ) {
    super(`GitHub ${call} failed${status ? ` with ${status}` : ''}: ${detail}. ${adviceFor(status)}`);
    this.name = 'GitHubApiError';
  }

  /** Worth trying again later: GitHub's own errors, rate limits and network failures. */
  get retryable(): boolean {
    return this.status === undefined || this.status >= 500 || this.status === 429 || /rate limit/i.test(this.detail);
  }
}

function adviceFor(status: number | undefined): string {
  if (status === undefined) return 'GitHub could not be reached; check the network and GHE_HOST, then retry.';
  if (status === 401) return 'The credentials were refused: check APP_ID and PRIVATE_KEY (or the token), and that the key belongs to this app.';
  if (status === 403)
    return 'The token lacks a permission or hit a rate limit: crashprobe needs pull_requests: write, checks: write, contents: read and metadata: read.';
  if (status === 404) return 'The repository, pull request or file is not visible to this installation: check that the app is installed on it.';
  if (status === 409 || status === 422) return 'GitHub rejected the request as sent; this is a crashprobe bug worth reporting with this message.';
  if (status === 429) return 'Rate limited: the job is retried later.';
  if (status >= 500) return 'GitHub had a server error: the job is retried later.';
  return 'See the status above.';
}

interface OctokitLikeError {
  status?: unknown;
  message?: unknown;
  response?: { data?: unknown };
}

function detailOf(error: OctokitLikeError): string {
  const data = error.response?.data as { message?: unknown; errors?: unknown } | undefined;
  const parts: string[] = [];
  if (data && typeof data.message === 'string') parts.push(data.message);
  else if (typeof error.message === 'string') parts.push(error.message.split('\n')[0] ?? '');
  if (data && Array.isArray(data.errors) && data.errors.length) parts.push(JSON.stringify(data.errors).slice(0, 300));
  return parts.join(' ') || 'no message';
}

/** Runs one GitHub call; a failure becomes a GitHubApiError naming `call` (e.g. "POST /repos/o/r/pulls/1/reviews"). */
export async function githubCall<T>(call: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof GitHubApiError) throw error;
    const e = (error ?? {}) as OctokitLikeError;
    const status = typeof e.status === 'number' && e.status > 0 ? e.status : undefined;
    throw new GitHubApiError(call, status, detailOf(e));
  }
}

export function isNotFound(error: unknown): boolean {
  return error instanceof GitHubApiError && error.status === 404;
}
