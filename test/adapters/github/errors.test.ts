import { describe, expect, it } from 'vitest';
import { asGitHubError, retryAfterOf } from '../../../src/adapters/github/errors.ts';
import { retryDelayOf } from '../../../src/adapters/probot/worker-pool.ts';

// What Octokit throws (a RequestError): status, the response with its headers.
const requestError = (status: number, message: string, headers: Record<string, string>) => ({ status, message, response: { data: { message }, headers } });

describe('GitHubApiError', () => {
  it('keeps the wait GitHub asked for (Retry-After), and the worker waits that long', () => {
    const error = asGitHubError('POST /repos/o/r/pulls/1/reviews', requestError(403, 'You have exceeded a secondary rate limit', { 'retry-after': '120' }));
    expect(error.retryAfterMs).toBe(120_000);
    expect(error.retryable).toBe(true);
    expect(retryDelayOf(error)).toBe(120_000);
  });

  it('waits for the primary rate limit to reset when it is used up', () => {
    const now = 1_700_000_000_000;
    const error = asGitHubError('GET /repos/o/r/pulls/1', requestError(403, 'API rate limit exceeded', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 90) }), now);
    expect(error.retryAfterMs).toBe(90_000);
  });

  it('names no wait when GitHub named none (a 502), so the worker backs off on its own schedule', () => {
    const error = asGitHubError('POST /repos/o/r/check-runs', requestError(502, 'Bad Gateway', { 'x-ratelimit-remaining': '4000' }));
    expect(error.retryAfterMs).toBeUndefined();
    expect(retryDelayOf(error)).toBeUndefined();
    expect(retryAfterOf(undefined)).toBeUndefined();
  });
});
