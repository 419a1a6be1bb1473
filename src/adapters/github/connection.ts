// One pull request on GitHub as a source to review and a place to post the
// review, for an adapter that reviews first and posts after (the Action).
import type { Review } from '../../core/review/model.ts';
import { completeCheckRun, reviewOutcome, startCheckRun } from './check-run.ts';
import type { GitHubClient } from './client.ts';
import { githubPullRequestSource, type DisposablePullRequestSource, type GitHubSourceOptions, type PullRequestHead } from './pull-request-source.ts';
import { publishReview, type PublishOptions, type PublishResult } from './publish.ts';

export interface PullRequestConnection {
  source: DisposablePullRequestSource;
  /**
   * Posts the review (new inline comments, resolved threads, sticky summary) and the completed
   * `crashprobe` check run of the head. Rejects with a GitHubApiError whose `status` is 403 on a read-only token.
   */
  publish(review: Review): Promise<PublishResult>;
}

export function connectPullRequest(
  octokit: GitHubClient,
  head: PullRequestHead,
  options: PublishOptions & GitHubSourceOptions & { appId?: number } = {},
): PullRequestConnection {
  const source = githubPullRequestSource(octokit, head, options);
  const repo = { owner: head.owner, repo: head.repo };
  return {
    source,
    async publish(review) {
      const checkRunId = await startCheckRun(octokit, repo, head.headSha, { reuseExisting: true, appId: options.appId });
      const result = await publishReview(octokit, head, review, await source.changedFiles(), options);
      await completeCheckRun(octokit, repo, checkRunId, reviewOutcome(review));
      return result;
    },
  };
}
