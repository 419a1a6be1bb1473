// Posting a Review to a pull request, reconciled with what crashprobe posted
// before (reviewdog's way): one review per head commit with only the new
// inline comments, threads of fixed findings resolved, and one sticky summary
// comment edited in place.
import type { ChangedFile, CommentSink, Logger, PullRequestSource } from '../../core/ports.ts';
import { silentLogger } from '../../core/ports.ts';
import type { InlineComment, Review } from '../../core/review/model.ts';
import { placeComments, MAX_INLINE_COMMENTS } from './anchors.ts';
import { MAX_SUMMARY_CHARS, truncateMarkdown } from './check-run.ts';
import type { GitHubClient, PullRequestRef } from './client.ts';
import { githubCall } from './errors.ts';
import { fingerprintOf, isSummary, SUMMARY_MARKER, withFingerprint } from './markers.ts';

/** Fingerprints posted before, kept outside GitHub (the App's SQLite state); optional. */
export interface FingerprintLedger {
  posted(repository: string, number: number): Set<string>;
  record(repository: string, number: number, headSha: string, fingerprints: readonly string[]): void;
}

export interface PublishOptions {
  /** Only comments by this login are crashprobe's (e.g. "crashprobe[bot]"); default: any bot account. */
  author?: string;
  ledger?: FingerprintLedger;
  logger?: Logger;
  maxInline?: number;
}

export interface PublishResult {
  /** The review posted for this head; undefined when there was nothing new to post. */
  reviewId?: number;
  posted: string[];
  unchanged: string[];
  resolved: string[];
  /** Comments that went to the summary: outside the diff, or past the cap. */
  outside: number;
  summary: 'created' | 'updated' | 'unchanged';
}

interface PostedComment {
  id: number;
  fingerprint: string;
}

interface Author {
  login: string;
  type?: string;
}

export async function publishReview(
  octokit: GitHubClient,
  pr: PullRequestRef,
  review: Review,
  files: readonly ChangedFile[],
  options: PublishOptions = {},
): Promise<PublishResult> {
  const logger = options.logger ?? silentLogger;
  const isMine = (user: Author | null | undefined) =>
    Boolean(user) && (options.author ? user!.login === options.author : user!.type === 'Bot' || user!.login.endsWith('[bot]'));
  const repository = `${pr.owner}/${pr.repo}`;

  const { inline, outside } = placeComments(review.comments, files, options.maxInline ?? MAX_INLINE_COMMENTS);
  const existing = await postedComments(octokit, pr, isMine);
  const known = new Set([...existing.map((c) => c.fingerprint), ...(options.ledger?.posted(repository, pr.number) ?? [])]);
  const fresh = inline.filter((c) => !known.has(c.fingerprint));
  const unchanged = inline.filter((c) => known.has(c.fingerprint)).map((c) => c.fingerprint);

  // A finding still present but no longer anchorable (its lines left the diff) is not fixed: only a vanished fingerprint is.
  const current = new Set([...review.comments.map((c) => c.fingerprint), ...review.findings.map((f) => f.fingerprint)]);
  const fixed = existing.filter((c) => !current.has(c.fingerprint));
  const resolved = fixed.length ? await resolveThreads(octokit, pr, fixed) : [];

  let reviewId: number | undefined;
  if (fresh.length) {
    const { data } = await githubCall(`POST /repos/${repository}/pulls/${pr.number}/reviews`, () =>
      octokit.rest.pulls.createReview({
        owner: pr.owner,
        repo: pr.repo,
        pull_number: pr.number,
        commit_id: review.headSha,
        event: 'COMMENT',
        body: reviewBody(fresh.length, review.headSha),
        comments: fresh.map(toReviewComment),
      }),
    );
    reviewId = data.id;
    options.ledger?.record(repository, pr.number, review.headSha, fresh.map((c) => c.fingerprint));
    logger.info(`${repository}#${pr.number}: review ${data.id} with ${fresh.length} new comment(s)`);
  }

  const summary = await upsertSummary(octokit, pr, summaryBody(review, outside), isMine);
  return { reviewId, posted: fresh.map((c) => c.fingerprint), unchanged, resolved, outside: outside.length, summary };
}

/** The core's CommentSink for one pull request: reads the changed files from the source to check anchors. */
export function githubCommentSink(octokit: GitHubClient, pr: PullRequestRef, source: Pick<PullRequestSource, 'changedFiles'>, options: PublishOptions = {}): CommentSink & { last?: PublishResult } {
  const sink: CommentSink & { last?: PublishResult } = {
    async publish(review) {
      sink.last = await publishReview(octokit, pr, review, await source.changedFiles(), options);
    },
  };
  return sink;
}

function reviewBody(count: number, headSha: string): string {
  return `crashprobe: ${count} new finding(s) on ${headSha.slice(0, 7)}; the summary comment has the whole picture.\n<!-- crashprobe:review head=${headSha} -->`;
}

function toReviewComment(comment: InlineComment) {
  const body = withFingerprint(comment.body, comment.fingerprint);
  return comment.startLine !== undefined
    ? { path: comment.path, line: comment.line, side: 'RIGHT' as const, start_line: comment.startLine, start_side: 'RIGHT' as const, body }
    : { path: comment.path, line: comment.line, side: 'RIGHT' as const, body };
}

export function summaryBody(review: Review, outside: readonly InlineComment[]): string {
  const base = review.summary.replace(SUMMARY_MARKER, '').trimEnd();
  const extra = outside.length
    ? ['\n\n### More findings (not placed inline)', '', ...outside.map((c) => `- \`${c.path}:${c.line}\` ${firstLine(c.body)}`)].join('\n')
    : '';
  const tail = `\n${SUMMARY_MARKER}\n`;
  return truncateMarkdown(`${base}${extra}`, MAX_SUMMARY_CHARS - tail.length) + tail;
}

function firstLine(body: string): string {
  return body.split('\n').find((line) => line.trim() && !line.startsWith('<!--'))?.trim() ?? '';
}

async function postedComments(octokit: GitHubClient, pr: PullRequestRef, isMine: (user: Author | null | undefined) => boolean): Promise<PostedComment[]> {
  const comments = await githubCall(`GET /repos/${pr.owner}/${pr.repo}/pulls/${pr.number}/comments`, () =>
    octokit.paginate(octokit.rest.pulls.listReviewComments, { owner: pr.owner, repo: pr.repo, pull_number: pr.number, per_page: 100 }),
  );
  const posted: PostedComment[] = [];
  for (const comment of comments) {
    const fingerprint = fingerprintOf(comment.body);
    // Replies in a thread carry no fingerprint; only the thread's first comment is crashprobe's.
    if (fingerprint && isMine(comment.user) && comment.in_reply_to_id == null) posted.push({ id: comment.id, fingerprint });
  }
  return posted;
}

const THREADS_QUERY = `query($owner: String!, $repo: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved comments(first: 1) { nodes { databaseId } } }
      }
    }
  }
}`;

const RESOLVE_MUTATION = `mutation($threadId: ID!) {
  resolveReviewThread(input: { threadId: $threadId }) { thread { id isResolved } }
}`;

interface ThreadsPage {
  repository: {
    pullRequest: {
      reviewThreads: {
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
        nodes: { id: string; isResolved: boolean; comments: { nodes: { databaseId: number | null }[] } }[];
      };
    } | null;
  } | null;
}

/** Resolves the threads that start with the given comments; returns the fingerprints whose threads were resolved now. */
async function resolveThreads(octokit: GitHubClient, pr: PullRequestRef, fixed: readonly PostedComment[]): Promise<string[]> {
  const byComment = new Map(fixed.map((c) => [c.id, c.fingerprint]));
  const toResolve: { threadId: string; fingerprint: string }[] = [];
  let cursor: string | null = null;
  do {
    const page: ThreadsPage = await githubCall('POST /graphql (pullRequest.reviewThreads)', () =>
      octokit.graphql<ThreadsPage>(THREADS_QUERY, { owner: pr.owner, repo: pr.repo, number: pr.number, cursor }),
    );
    const threads = page.repository?.pullRequest?.reviewThreads;
    if (!threads) break;
    for (const thread of threads.nodes) {
      const first = thread.comments.nodes[0]?.databaseId;
      const fingerprint = first == null ? undefined : byComment.get(first);
      if (fingerprint && !thread.isResolved) toResolve.push({ threadId: thread.id, fingerprint });
    }
    cursor = threads.pageInfo.hasNextPage ? threads.pageInfo.endCursor : null;
  } while (cursor);
  for (const { threadId } of toResolve) {
    await githubCall('POST /graphql (resolveReviewThread)', () => octokit.graphql(RESOLVE_MUTATION, { threadId }));
  }
  return toResolve.map((t) => t.fingerprint);
}

async function upsertSummary(
  octokit: GitHubClient,
  pr: PullRequestRef,
  body: string,
  isMine: (user: Author | null | undefined) => boolean,
): Promise<PublishResult['summary']> {
  const where = `/repos/${pr.owner}/${pr.repo}/issues`;
  const comments = await githubCall(`GET ${where}/${pr.number}/comments`, () =>
    octokit.paginate(octokit.rest.issues.listComments, { owner: pr.owner, repo: pr.repo, issue_number: pr.number, per_page: 100 }),
  );
  const sticky = comments.find((c) => isSummary(c.body) && isMine(c.user));
  if (sticky?.body === body) return 'unchanged';
  if (sticky) {
    await githubCall(`PATCH ${where}/comments/${sticky.id}`, () =>
      octokit.rest.issues.updateComment({ owner: pr.owner, repo: pr.repo, comment_id: sticky.id, body }),
    );
    return 'updated';
  }
  await githubCall(`POST ${where}/${pr.number}/comments`, () =>
    octokit.rest.issues.createComment({ owner: pr.owner, repo: pr.repo, issue_number: pr.number, body }),
  );
  return 'created';
}
