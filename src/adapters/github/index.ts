// The GitHub adapter's public surface, for the Probot app and the Action.
export type { GitHubClient, PullRequestRef, RepoRef } from './client.ts';
export { parseRepository } from './client.ts';
export { restClient, type RestClientOptions } from './rest-client.ts';
export { readFileAt } from './contents.ts';
export { GitHubApiError, githubCall, isReadOnly } from './errors.ts';
export { githubPullRequestSource, type PullRequestHead, type GitHubSourceOptions, type DisposablePullRequestSource } from './pull-request-source.ts';
export { publishReview, summaryBody, type Author, type FingerprintLedger, type PublishOptions, type PublishResult } from './publish.ts';
export { startCheckRun, completeCheckRun, setCommitStatus, reviewOutcome, CHECK_NAME, type CheckOutcome } from './check-run.ts';
export { placeComments, MAX_INLINE_COMMENTS } from './anchors.ts';
export { reviewPublisher, type PublishReport, type PublishTarget, type ReviewPublisher, type ReviewPublisherOptions } from './publisher.ts';
