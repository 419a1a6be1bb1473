// Fail closed: a review that could not be completed or posted never concludes
// neutral or success (a required check would pass). One wording for the App and
// the Action.
import type { Conclusion, Review } from '../../core/model/review.ts';
import type { CheckOutcome } from './check-run.ts';

/** The check run of a review that did not finish or did not get out: `failure`, with the reason and what to do. */
export function failedOutcome(reason: string, review?: Review): CheckOutcome {
  return {
    conclusion: 'failure',
    title: review ? 'crashprobe could not post its review' : 'crashprobe could not finish the review',
    summary: [reason, '', 'Re-run the check (or the workflow job) to try again.', ...(review ? ['', review.checkSummary] : [])].join('\n'),
    ...(review ? { annotations: review.annotations } : {}),
  };
}

/**
 * A review whose crash tests were refused because the sandbox could not start where it is required:
 * the static review stands, but it may not pass; the reason leads the check run and the summary.
 */
export function refusedReview(review: Review, reason: string): Review {
  const conclusion: Conclusion = review.conclusion === 'failure' ? 'failure' : 'action_required';
  return {
    ...review,
    conclusion,
    checkTitle: 'crashprobe: crash tests skipped (the sandbox could not start)',
    checkSummary: `${reason}\n\n${review.checkSummary}`,
    summary: `> [!WARNING]\n> ${reason.replace(/\n/g, '\n> ')}\n\n${review.summary}`,
  };
}
