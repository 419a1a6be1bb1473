// What the Action tells the workflow about where its review went, after the one
// publisher (src/adapters/github/publisher.ts) reported what GitHub accepted:
// the notice (what could not be written, and where the findings are instead), and
// the findings as workflow-command annotations when no check run carries them.
import type { Review } from '../../core/model/review.ts';
import type { PublishReport } from '../github/publisher.ts';
import type { ActionIO } from './io.ts';

export const PULL_REQUEST_READ_ONLY =
  'The token may not write to this pull request (a fork\'s read-only token, or a workflow without `pull-requests: write`), ' +
  'so no inline comments or summary comment were posted: the review is in this job summary';

export const CHECKS_READ_ONLY = 'The token may not write check runs (a workflow without `checks: write`)';

/** Why a publish failed for another reason than a permission (a 5xx, the network): the findings are still all here. */
export function publishFailedNotice(reason: string): string {
  return (
    `crashprobe could not post its review to GitHub: ${reason} ` +
    'The findings are in this job summary, the annotations, the step outputs and the SARIF file (when asked for); ' +
    're-run the job to post them on the pull request.'
  );
}

/** One notice per thing the token could not write, or none when everything went out. */
export function deliveryNotices(report: PublishReport): string[] {
  const notices: string[] = [];
  if (report.pullRequest === 'read-only') {
    notices.push(
      `${PULL_REQUEST_READ_ONLY}${report.check === 'check-run' ? ' and the `crashprobe` check run (with its annotations)' : ' and the annotations of this step'}. ` +
        "To have it posted on a fork's pull requests, install crashprobe as a GitHub App.",
    );
  }
  if (report.check === 'commit-status') {
    notices.push(`${CHECKS_READ_ONLY}: the conclusion is the commit status \`crashprobe\` and the findings are annotations of this step.`);
  } else if (report.check === 'none') {
    notices.push(`${CHECKS_READ_ONLY} nor commit statuses: the conclusion is this step's outcome, and the findings are this job summary and the annotations of this step.`);
  }
  return notices;
}

/** The findings as workflow-command annotations: only when no check run carries them, so they are never shown twice. */
export function printAnnotations(review: Review, io: ActionIO): void {
  for (const annotation of review.annotations) {
    const where = { title: annotation.title, file: annotation.path, startLine: annotation.startLine, endLine: annotation.endLine };
    if (annotation.level === 'failure') io.error(annotation.message, where);
    else if (annotation.level === 'warning') io.warning(annotation.message, where);
    else io.notice(annotation.message, where);
  }
}
