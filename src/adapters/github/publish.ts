// Posting a Review to a pull request, reconciled with what crashprobe posted
// before (reviewdog's way): one review per head commit with only the new inline
// comments, threads of fixed findings resolved, the thread of a finding that
// came back reopened, and one sticky summary comment edited in place.
//
// Whose comment is whose: only top-level comments by crashprobe's own account
// (login, and user id when known) count, and only the fingerprint marker it wrote
// as the last line (markers.ts). Text a pull request controls (its body, a
// comment, evidence quoted in a finding) can therefore never claim a fingerprint.
import type { ChangedFile, Logger } from '../../core/ports.ts';
import type { FingerprintLedger } from '../../store/fingerprint-ledger.ts';
import { silentLogger } from '../../core/ports.ts';
import type { InlineComment, Review } from '../../core/model/review.ts';
import { placeComments, MAX_INLINE_COMMENTS } from './anchors.ts';
import { MAX_SUMMARY_CHARS, truncateMarkdown } from './check-run.ts';
import type { GitHubClient, PullRequestRef } from './client.ts';
import { githubCall } from './errors.ts';
import { fingerprintOf, isSummary, reviewBody, stripMarkers, SUMMARY_MARKER_LENGTH, withFingerprint, withSummaryMarker } from './markers.ts';

/** Fingerprints posted before, kept outside GitHub (the App's SQLite state); optional. */
export type { FingerprintLedger };

/** The account crashprobe posts as: `slug[bot]` of the App, `github-actions[bot]` for an Action's token. */
export interface Author {
  login: string;
  /** The account's numeric id, checked as well when known (a login can be renamed, an id cannot). */
  id?: number;
}

export interface PublishOptions {
  /** Only comments by this account are crashprobe's. */
  author: Author;
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
  /** Fingerprints whose resolved thread was reopened: the finding came back. */
  reopened: string[];
  /** Comments that went to the summary: outside the diff, or past the cap. */
  outside: number;
  summary: 'created' | 'updated' | 'unchanged';
}

interface PostedComment {
  id: number;
  fingerprint: string;
}

interface User {
  login: string;
  id?: number;
  type?: string;
}

/** The comment GitHub would count as the author's: same login, and same id when both are known. */
export function isBy(author: Author): (user: User | null | undefined) => boolean {
  return (user) => Boolean(user) && user!.login === author.login && (author.id === undefined || user!.id === undefined || user!.id === author.id);
}

const MAX_COMMENT_CHARS = 60_000;

export async function publishReview(
  octokit: GitHubClient,
  pr: PullRequestRef,
  review: Review,
  files: readonly ChangedFile[],
  options: PublishOptions,
): Promise<PublishResult> {
  const logger = options.logger ?? silentLogger;
  const isMine = isBy(options.author);
  const repository = `${pr.owner}/${pr.repo}`;

  const { inline, outside } = placeComments(review.comments, files, options.maxInline ?? MAX_INLINE_COMMENTS);
  const existing = await postedComments(octokit, pr, isMine);
  const known = new Set([...existing.map((c) => c.fingerprint), ...(options.ledger?.posted(repository, pr.number) ?? [])]);
  const fresh = inline.filter((c) => !known.has(c.fingerprint));
  const unchanged = inline.filter((c) => known.has(c.fingerprint)).map((c) => c.fingerprint);

  // A finding still present but no longer anchorable (its lines left the diff) is not fixed: only a vanished fingerprint is.
  const current = new Set([...review.comments.map((c) => c.fingerprint), ...review.findings.map((f) => f.fingerprint)]);
  const threads = existing.length ? await reconcileThreads(octokit, pr, existing, current, options.author) : { resolved: [], reopened: [] };

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
  return { reviewId, posted: fresh.map((c) => c.fingerprint), unchanged, ...threads, outside: outside.length, summary };
}

function toReviewComment(comment: InlineComment) {
  const body = withFingerprint(truncateMarkdown(stripMarkers(comment.body), MAX_COMMENT_CHARS), comment.fingerprint);
  return comment.startLine !== undefined
    ? { path: comment.path, line: comment.line, side: 'RIGHT' as const, start_line: comment.startLine, start_side: 'RIGHT' as const, body }
    : { path: comment.path, line: comment.line, side: 'RIGHT' as const, body };
}

/** The sticky summary: the review's summary, the comments not placed inline, and the summary marker last. */
export function summaryBody(review: Review, outside: readonly InlineComment[]): string {
  const base = stripMarkers(review.summary).trimEnd();
  const extra = outside.length
    ? ['\n\n### More findings (not placed inline)', '', ...outside.map((c) => `- \`${c.path}:${c.line}\` ${firstLine(c.body)}`)].join('\n')
    : '';
  return withSummaryMarker(truncateMarkdown(`${base}${extra}`, MAX_SUMMARY_CHARS - SUMMARY_MARKER_LENGTH - 1));
}

function firstLine(body: string): string {
  return stripMarkers(body).split('\n').find((line) => line.trim())?.trim() ?? '';
}

async function postedComments(octokit: GitHubClient, pr: PullRequestRef, isMine: (user: User | null | undefined) => boolean): Promise<PostedComment[]> {
  const comments = await githubCall(`GET /repos/${pr.owner}/${pr.repo}/pulls/${pr.number}/comments`, () =>
    octokit.paginate(octokit.rest.pulls.listReviewComments, { owner: pr.owner, repo: pr.repo, pull_number: pr.number, per_page: 100 }),
  );
  const posted: PostedComment[] = [];
  for (const comment of comments) {
    // Replies in a thread are not crashprobe's findings; only the first comment of a thread, by crashprobe, is.
    if (comment.in_reply_to_id != null || !isMine(comment.user)) continue;
    const fingerprint = fingerprintOf(comment.body);
    if (fingerprint) posted.push({ id: comment.id, fingerprint });
  }
  return posted;
}

const THREADS_QUERY = `query($owner: String!, $repo: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved resolvedBy { login } comments(first: 1) { nodes { databaseId } } }
      }
    }
  }
}`;

const RESOLVE_MUTATION = `mutation($threadId: ID!) {
  resolveReviewThread(input: { threadId: $threadId }) { thread { id isResolved } }
}`;

const REOPEN_MUTATION = `mutation($threadId: ID!) {
  unresolveReviewThread(input: { threadId: $threadId }) { thread { id isResolved } }
}`;

interface ThreadsPage {
  repository: {
    pullRequest: {
      reviewThreads: {
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
        nodes: { id: string; isResolved: boolean; resolvedBy?: { login: string } | null; comments: { nodes: { databaseId: number | null }[] } }[];
      };
    } | null;
  } | null;
}

/**
 * Resolves the open threads of fixed findings, and reopens the threads crashprobe itself
 * resolved whose finding is back (a thread a person resolved stays resolved: they dismissed it).
 */
async function reconcileThreads(
  octokit: GitHubClient,
  pr: PullRequestRef,
  existing: readonly PostedComment[],
  current: ReadonlySet<string>,
  author: Author,
): Promise<{ resolved: string[]; reopened: string[] }> {
  const byComment = new Map(existing.map((c) => [c.id, c.fingerprint]));
  const toResolve: { threadId: string; fingerprint: string }[] = [];
  const toReopen: { threadId: string; fingerprint: string }[] = [];
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
      if (!fingerprint) continue;
      if (!current.has(fingerprint) && !thread.isResolved) toResolve.push({ threadId: thread.id, fingerprint });
      if (current.has(fingerprint) && thread.isResolved && thread.resolvedBy?.login === author.login) toReopen.push({ threadId: thread.id, fingerprint });
    }
    cursor = threads.pageInfo.hasNextPage ? threads.pageInfo.endCursor : null;
  } while (cursor);
  for (const { threadId } of toResolve) {
    await githubCall('POST /graphql (resolveReviewThread)', () => octokit.graphql(RESOLVE_MUTATION, { threadId }));
  }
  for (const { threadId } of toReopen) {
    await githubCall('POST /graphql (unresolveReviewThread)', () => octokit.graphql(REOPEN_MUTATION, { threadId }));
  }
  return { resolved: toResolve.map((t) => t.fingerprint), reopened: toReopen.map((t) => t.fingerprint) };
}

async function upsertSummary(
  octokit: GitHubClient,
  pr: PullRequestRef,
  body: string,
  isMine: (user: User | null | undefined) => boolean,
): Promise<PublishResult['summary']> {
  const where = `/repos/${pr.owner}/${pr.repo}/issues`;
  const comments = await githubCall(`GET ${where}/${pr.number}/comments`, () =>
    octokit.paginate(octokit.rest.issues.listComments, { owner: pr.owner, repo: pr.repo, issue_number: pr.number, per_page: 100 }),
  );
  const sticky = comments.find((c) => isMine(c.user) && isSummary(c.body));
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
