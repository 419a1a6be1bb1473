import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GitHubApiError } from '../../../src/adapters/github/errors.ts';
import { placeComments } from '../../../src/adapters/github/anchors.ts';
import { publishReview } from '../../../src/adapters/github/publish.ts';
import { API, BOT, comment, FILES, PR, sampleReview, testOctokit } from './fixtures.ts';

const repo = `/repos/${PR.owner}/${PR.repo}`;

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

function recorder() {
  const sent: { method: string; path: string; body: unknown }[] = [];
  const record = (method: string, path: string) => (body: unknown) => {
    sent.push({ method, path, body });
    return true;
  };
  return { sent, record };
}

describe('placeComments', () => {
  it("keeps comments on new-side hunk lines in the core's order (its one ranking), and moves the rest out", () => {
    const placed = placeComments(
      [comment('fp-err', 3), comment('fp-outside', 40), comment('fp-warn', 4, 'warning'), comment('fp-removed-file', 1, 'error', 'gone.py'), comment('fp-err', 5)],
      FILES,
    );
    expect(placed.inline.map((c) => c.fingerprint)).toEqual(['fp-err', 'fp-warn']);
    expect(placed.outside.map((c) => c.line)).toEqual([40, 1, 5]);
  });

  it('caps inline comments and drops a start line that is outside the hunk', () => {
    const many = Array.from({ length: 40 }, (_, i) => comment(`fp-${i}`, 1 + (i % 6)));
    const placed = placeComments(many, FILES);
    expect(placed.inline).toHaveLength(30);
    expect(placed.outside).toHaveLength(10);
    const ranged = placeComments([{ ...comment('fp-range', 3), startLine: 0 }, { ...comment('fp-ok', 4), startLine: 2 }], FILES);
    expect(ranged.inline.map((c) => c.startLine)).toEqual([undefined, 2]);
  });
});

describe('publishReview', () => {
  it('posts one COMMENT review pinned to the head, and creates the sticky summary', async () => {
    const { sent, record } = recorder();
    const review = sampleReview([comment('fp-send', 3), comment('fp-outside', 40, 'warning')]);
    const scope = nock(API)
      .get(`${repo}/pulls/7/comments`).query(true).reply(200, [])
      .post(`${repo}/pulls/7/reviews`, record('POST', 'reviews')).reply(200, { id: 101 })
      .get(`${repo}/issues/7/comments`).query(true).reply(200, [{ id: 5, body: 'LGTM', user: { login: 'alice', type: 'User' } }])
      .post(`${repo}/issues/7/comments`, record('POST', 'issue comment')).reply(201, { id: 6 });

    const result = await publishReview(testOctokit(), PR, review, FILES, { author: { login: BOT.login } });

    expect(result).toMatchObject({ reviewId: 101, posted: ['fp-send'], unchanged: [], resolved: [], outside: 1, summary: 'created' });
    expect(sent).toMatchInlineSnapshot(`
      [
        {
          "body": {
            "body": "crashprobe: 1 new finding(s) on abc1234; the summary comment has the whole picture.
      <!-- crashprobe:review head=abc1234567890abc1234567890abc1234567890a -->",
            "comments": [
              {
                "body": "**Sends before it records** · \`send-before-record\`

      The e-mail goes out before the refund is committed.
      <!-- crashprobe:fp=fp-send -->
      ",
                "line": 3,
                "path": "shop/orders.py",
                "side": "RIGHT",
              },
            ],
            "commit_id": "abc1234567890abc1234567890abc1234567890a",
            "event": "COMMENT",
          },
          "method": "POST",
          "path": "reviews",
        },
        {
          "body": {
            "body": "## crashprobe: 1 unsafe

      | function | class |
      |---|---|
      | \`shop/orders.py:refund\` | ❌ unsafe |

      ### More findings (not placed inline)

      - \`shop/orders.py:40\` **Sends before it records** · \`send-before-record\`
      <!-- crashprobe:summary -->
      ",
          },
          "method": "POST",
          "path": "issue comment",
        },
      ]
    `);
    expect(scope.isDone()).toBe(true);
  });

  it('posts nothing new when the same fingerprints are already there and the summary is the same', async () => {
    const review = sampleReview();
    const { summaryBody } = await import('../../../src/adapters/github/publish.ts');
    const scope = nock(API)
      .get(`${repo}/pulls/7/comments`).query(true)
      .reply(200, [{ id: 11, body: review.comments[0]!.body, user: BOT }])
      // Its thread is open: nothing to resolve or reopen.
      .post('/graphql')
      .reply(200, { data: { repository: { pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [{ id: 'T_send', isResolved: false, comments: { nodes: [{ databaseId: 11 }] } }] } } } } })
      .get(`${repo}/issues/7/comments`).query(true)
      .reply(200, [{ id: 6, body: summaryBody(review, []), user: BOT }]);

    const result = await publishReview(testOctokit(), PR, review, FILES, { author: { login: BOT.login } });

    expect(result).toMatchObject({ reviewId: undefined, posted: [], unchanged: ['fp-send'], resolved: [], summary: 'unchanged' });
    expect(scope.isDone()).toBe(true);
  });

  it('on a new push: resolves the thread of a fixed finding, posts only the new one, edits the summary in place', async () => {
    const { sent, record } = recorder();
    const review = sampleReview([comment('fp-send', 3), comment('fp-new', 5, 'warning')]);
    const scope = nock(API)
      .get(`${repo}/pulls/7/comments`).query(true)
      .reply(200, [
        { id: 11, body: comment('fp-send', 3).body, user: BOT },
        { id: 12, body: comment('fp-fixed', 2).body, user: BOT },
        { id: 13, body: 'thanks!', user: { login: 'alice', type: 'User' }, in_reply_to_id: 12 },
        // Someone else's bot using the same marker is not crashprobe.
        { id: 14, body: comment('fp-other-bot', 2).body, user: { login: 'copycat[bot]', type: 'Bot' } },
      ])
      .post('/graphql', record('POST', 'graphql threads'))
      .reply(200, {
        data: {
          repository: {
            pullRequest: {
              reviewThreads: {
                pageInfo: { hasNextPage: false, endCursor: null },
                nodes: [
                  { id: 'T_send', isResolved: false, comments: { nodes: [{ databaseId: 11 }] } },
                  { id: 'T_fixed', isResolved: false, comments: { nodes: [{ databaseId: 12 }] } },
                ],
              },
            },
          },
        },
      })
      .post('/graphql', record('POST', 'graphql resolve'))
      .reply(200, { data: { resolveReviewThread: { thread: { id: 'T_fixed', isResolved: true } } } })
      .post(`${repo}/pulls/7/reviews`, record('POST', 'reviews')).reply(200, { id: 102 })
      .get(`${repo}/issues/7/comments`).query(true)
      .reply(200, [{ id: 6, body: 'old summary\n<!-- crashprobe:summary -->', user: BOT }])
      .patch(`${repo}/issues/comments/6`, record('PATCH', 'summary')).reply(200, { id: 6 });

    const result = await publishReview(testOctokit(), PR, review, FILES, { author: { login: BOT.login } });

    expect(result).toMatchObject({ reviewId: 102, posted: ['fp-new'], unchanged: ['fp-send'], resolved: ['fp-fixed'], summary: 'updated' });
    expect(sent).toMatchInlineSnapshot(`
      [
        {
          "body": {
            "query": "query($owner: String!, $repo: String!, $number: Int!, $cursor: String) {
        repository(owner: $owner, name: $repo) {
          pullRequest(number: $number) {
            reviewThreads(first: 100, after: $cursor) {
              pageInfo { hasNextPage endCursor }
              nodes { id isResolved resolvedBy { login } comments(first: 1) { nodes { databaseId } } }
            }
          }
        }
      }",
            "variables": {
              "cursor": null,
              "number": 7,
              "owner": "octo",
              "repo": "shop",
            },
          },
          "method": "POST",
          "path": "graphql threads",
        },
        {
          "body": {
            "query": "mutation($threadId: ID!) {
        resolveReviewThread(input: { threadId: $threadId }) { thread { id isResolved } }
      }",
            "variables": {
              "threadId": "T_fixed",
            },
          },
          "method": "POST",
          "path": "graphql resolve",
        },
        {
          "body": {
            "body": "crashprobe: 1 new finding(s) on abc1234; the summary comment has the whole picture.
      <!-- crashprobe:review head=abc1234567890abc1234567890abc1234567890a -->",
            "comments": [
              {
                "body": "**Sends before it records** · \`send-before-record\`

      The e-mail goes out before the refund is committed.
      <!-- crashprobe:fp=fp-new -->
      ",
                "line": 5,
                "path": "shop/orders.py",
                "side": "RIGHT",
              },
            ],
            "commit_id": "abc1234567890abc1234567890abc1234567890a",
            "event": "COMMENT",
          },
          "method": "POST",
          "path": "reviews",
        },
        {
          "body": {
            "body": "## crashprobe: 1 unsafe

      | function | class |
      |---|---|
      | \`shop/orders.py:refund\` | ❌ unsafe |
      <!-- crashprobe:summary -->
      ",
          },
          "method": "PATCH",
          "path": "summary",
        },
      ]
    `);
    expect(scope.isDone()).toBe(true);
  });

  it('does not post again what the ledger says was posted', async () => {
    const scope = nock(API)
      .get(`${repo}/pulls/7/comments`).query(true).reply(200, [])
      .get(`${repo}/issues/7/comments`).query(true).reply(200, [])
      .post(`${repo}/issues/7/comments`).reply(201, { id: 6 });
    const ledger = { posted: () => new Set(['fp-send']), record: () => {} };
    const result = await publishReview(testOctokit(), PR, sampleReview(), FILES, { author: { login: BOT.login }, ledger });
    expect(result.posted).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it('turns a GitHub error into a message naming the call, the status and what to do', async () => {
    const scope = nock(API)
      .get(`${repo}/pulls/7/comments`).query(true).reply(200, [])
      .post(`${repo}/pulls/7/reviews`).reply(403, { message: 'Resource not accessible by integration' });
    const error = await publishReview(testOctokit(), PR, sampleReview(), FILES, { author: { login: BOT.login } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubApiError);
    expect((error as GitHubApiError).status).toBe(403);
    expect((error as Error).message).toMatchInlineSnapshot(`"GitHub POST /repos/octo/shop/pulls/7/reviews failed with 403: Resource not accessible by integration. The token lacks a permission: crashprobe needs pull-requests: write, checks: write, contents: read and metadata: read."`);
    expect((error as GitHubApiError).readOnly).toBe(true);
    expect(scope.isDone()).toBe(true);
  });
});
