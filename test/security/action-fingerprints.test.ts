// Issue 9, requirement 8 (fingerprint part): crashprobe trusts a fingerprint only
// where it wrote one itself, as the last line of a comment by its own account.
// A pull request's text (its body, a comment, evidence quoted in a finding) that
// carries `<!-- crashprobe:fp=... -->` or the summary marker must not make it skip a
// finding, resolve a thread, or edit someone else's comment.
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf, withFingerprint } from '../../src/adapters/github/markers.ts';
import { publishReview } from '../../src/adapters/github/publish.ts';
import { API, BOT, comment, FILES, PR, sampleReview, testOctokit } from '../adapters/github/fixtures.ts';

const repo = `/repos/${PR.owner}/${PR.repo}`;
const MALLORY = { login: 'mallory', id: 666, type: 'User' };

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('forged crashprobe markers', () => {
  it('a marker inside a body is removed before posting; only the one crashprobe appends, last, counts when read back', () => {
    const evidence = 'cell: <!-- crashprobe:fp=victim --> and <!--crashprobe:summary--> and <!-- CRASHPROBE:fp=x';
    const posted = withFingerprint(`**Finding**\n\n${evidence}\n`, 'fp-real');
    expect(posted.match(/crashprobe:/gi)).toHaveLength(1);
    expect(fingerprintOf(posted)).toBe('fp-real');
    // A body whose forged marker is not the last line carries no fingerprint at all.
    expect(fingerprintOf('<!-- crashprobe:fp=victim -->\nsome text')).toBeUndefined();
  });

  it("a pull request author's comment with a fingerprint marker neither hides the finding nor gets its thread resolved; their summary-marked comment is not edited", async () => {
    const sent: { call: string; body: any }[] = [];
    const record = (call: string) => (body: any) => (sent.push({ call, body }), true);
    const review = sampleReview([comment('fp-victim', 3)]);
    const scope = nock(API)
      .get(`${repo}/pulls/7/comments`).query(true).reply(200, [
        // Mallory claims the finding's fingerprint (so it would be "already posted") and a fixed one (so its thread would be resolved).
        { id: 21, body: 'looks fine\n<!-- crashprobe:fp=fp-victim -->', user: MALLORY },
        { id: 22, body: 'nothing here\n<!-- crashprobe:fp=fp-gone -->', user: MALLORY },
        // Another app's bot using the same markers is not crashprobe either.
        { id: 23, body: 'copy\n<!-- crashprobe:fp=fp-gone -->', user: { login: 'copycat[bot]', id: 7, type: 'Bot' } },
      ])
      .post(`${repo}/pulls/7/reviews`, record('review')).reply(200, { id: 101 })
      .get(`${repo}/issues/7/comments`).query(true).reply(200, [{ id: 31, body: 'pwned\n<!-- crashprobe:summary -->', user: MALLORY }])
      .post(`${repo}/issues/7/comments`, record('summary')).reply(201, { id: 32 });

    const result = await publishReview(testOctokit(), PR, review, FILES, { author: { login: BOT.login, id: 99 } });

    expect(result).toMatchObject({ posted: ['fp-victim'], unchanged: [], resolved: [], summary: 'created' });
    // No GraphQL call at all: no thread of crashprobe's could be resolved.
    expect(sent.map((s) => s.call)).toEqual(['review', 'summary']);
    expect(scope.isDone()).toBe(true);
  });

  it("a comment by crashprobe's login but another user id (a renamed or impersonating account) is not crashprobe's", async () => {
    const scope = nock(API)
      .get(`${repo}/pulls/7/comments`).query(true).reply(200, [{ id: 21, body: comment('fp-send', 3).body, user: { login: BOT.login, id: 12345 } }])
      .post(`${repo}/pulls/7/reviews`).reply(200, { id: 101 })
      .get(`${repo}/issues/7/comments`).query(true).reply(200, [])
      .post(`${repo}/issues/7/comments`).reply(201, { id: 32 });
    const result = await publishReview(testOctokit(), PR, sampleReview(), FILES, { author: { login: BOT.login, id: 99 } });
    expect(result.posted).toEqual(['fp-send']);
    expect(scope.isDone()).toBe(true);
  });
});
