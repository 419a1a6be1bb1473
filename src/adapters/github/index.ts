// The GitHub adapter's public surface, for the Probot app and the Action.
export type { GitHubClient, PullRequestRef, RepoRef } from './client.ts';
export { parseRepository } from './client.ts';
export { GitHubApiError, githubCall } from './errors.ts';
export { githubPullRequestSource, type PullRequestHead, type GitHubSourceOptions, type DisposablePullRequestSource } from './pull-request-source.ts';
export { publishReview, githubCommentSink, summaryBody, type FingerprintLedger, type PublishOptions, type PublishResult } from './publish.ts';
export { startCheckRun, completeCheckRun, reviewOutcome, CHECK_NAME, type CheckOutcome } from './check-run.ts';
export { placeComments, MAX_INLINE_COMMENTS } from './anchors.ts';
export { connectPullRequest, type PullRequestConnection } from './connection.ts';
