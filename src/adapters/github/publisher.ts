// The one publisher of a review, for the App and the Action alike:
//   start()   the head's `crashprobe` check run in_progress, created or taken up again;
//   publish() the review reconciled with what was posted before, then the check run completed;
//   conclude() the check run completed without a review (a broken config, a refusal, a failure).
// It degrades by what the token may do, learnt from GitHub's refusals (REST 403, or
// GraphQL FORBIDDEN at HTTP 200): without `pull-requests: write` the review stays off the
// pull request (the check run's annotations and the caller's job summary carry it); without
// `checks: write` a commit status carries the conclusion, or nothing does and the caller's
// job summary must. Any other failure (a 5xx, the network) is thrown for the caller to
// handle: the App retries the job, the Action keeps its outputs and concludes by fail-on.
import type { ChangedFile, Logger } from '../../core/ports.ts';
import { silentLogger } from '../../core/ports.ts';
import type { Review } from '../../core/model/review.ts';
import { completeCheckRun, reviewOutcome, setCommitStatus, startCheckRun, type CheckOutcome } from './check-run.ts';
import type { GitHubClient, PullRequestRef } from './client.ts';
import { GitHubApiError, isReadOnly } from './errors.ts';
import { publishReview, type Author, type FingerprintLedger, type PublishResult } from './publish.ts';

export interface PublishTarget extends PullRequestRef {
  headSha: string;
}

export interface ReviewPublisherOptions {
  /** crashprobe's own account: only its comments are reconciled. */
  author: Author;
  /**
   * The account is the bot of whichever app owns the check run (an Action's token may be the
   * workflow's, github-actions[bot], or another app's): `author` then stands only when no check run tells.
   */
  authorFromCheckRun?: boolean;
  /** Only this app's check runs are taken up again (the App knows its id). */
  appId?: number;
  /** A check run this job started before (the App's queue remembers it across restarts). */
  checkRunId?: number;
  /** Told the check run's id once it exists, to remember it. */
  onCheckRun?(id: number): void;
  ledger?: FingerprintLedger;
  logger?: Logger;
  maxInline?: number;
  detailsUrl?: string;
}

/** What reached GitHub, for the caller's notice, job summary and annotations. */
export interface PublishReport {
  /** 'posted': inline comments and the sticky summary are on the pull request; 'read-only': the token may not write there. */
  pullRequest: 'posted' | 'read-only' | 'not-attempted';
  result?: PublishResult;
  /** Where the conclusion (and the annotations, for a check run) went; 'none': only the caller's own output has it. */
  check: 'check-run' | 'commit-status' | 'none';
  /** GitHub's read-only refusals, one line each, for the log. */
  refusals: string[];
}

export interface ReviewPublisher {
  start(): Promise<void>;
  /** `maxInline`: the config's `max_inline_comments` (default: the option's, else 30). */
  publish(review: Review, files: readonly ChangedFile[], maxInline?: number): Promise<PublishReport>;
  conclude(outcome: CheckOutcome): Promise<PublishReport>;
}

export function reviewPublisher(octokit: GitHubClient, target: PublishTarget, options: ReviewPublisherOptions): ReviewPublisher {
  const logger = options.logger ?? silentLogger;
  const repo = { owner: target.owner, repo: target.repo };
  const pr: PullRequestRef = { ...repo, number: target.number };
  let checkRunId = options.checkRunId;
  let checkRunReused = false;
  let author = options.author;
  let checksWritable = true;
  let statusWritable = true;
  let started = false;
  const refusals: string[] = [];

  /** Runs a write; a read-only refusal is noted and answered with false, anything else is thrown. */
  const attempt = async (run: () => Promise<unknown>): Promise<boolean> => {
    try {
      await run();
      return true;
    } catch (error) {
      if (!isReadOnly(error)) throw error;
      refusals.push((error as GitHubApiError).message);
      logger.warn((error as GitHubApiError).message);
      return false;
    }
  };

  // Marked started only once it went through: a start that met a 5xx is tried again by publish().
  const start = async (): Promise<void> => {
    if (started) return;
    if (checkRunId === undefined) {
      checksWritable = await attempt(async () => {
        const run = await startCheckRun(octokit, repo, target.headSha, { appId: options.appId, detailsUrl: options.detailsUrl });
        checkRunId = run.id;
        checkRunReused = run.reused;
        const login = `${run.appSlug}[bot]`;
        if (options.authorFromCheckRun && run.appSlug && login !== author.login) author = { login };
        options.onCheckRun?.(run.id);
      });
    }
    if (!checksWritable) {
      statusWritable = await attempt(() => setCommitStatus(octokit, repo, target.headSha, 'pending', 'crashprobe is reviewing', options.detailsUrl));
    }
    started = true;
  };

  const finish = async (outcome: CheckOutcome): Promise<PublishReport['check']> => {
    if (checksWritable && checkRunId !== undefined) {
      const id = checkRunId;
      if (await attempt(() => completeCheckRun(octokit, repo, id, outcome, { reused: checkRunReused }))) return 'check-run';
      checksWritable = false;
    }
    if (statusWritable && (await attempt(() => setCommitStatus(octokit, repo, target.headSha, outcome.conclusion, outcome.title, options.detailsUrl)))) {
      return 'commit-status';
    }
    statusWritable = false;
    return 'none';
  };

  return {
    start,

    async publish(review, files, maxInline = options.maxInline) {
      await start();
      let result: PublishResult | undefined;
      const posted = await attempt(async () => {
        result = await publishReview(octokit, pr, review, files, { author, ledger: options.ledger, logger, maxInline });
      });
      const check = await finish(reviewOutcome(review));
      return { pullRequest: posted ? 'posted' : 'read-only', result, check, refusals: [...refusals] };
    },

    async conclude(outcome) {
      await start();
      return { pullRequest: 'not-attempted', check: await finish(outcome), refusals: [...refusals] };
    },
  };
}
