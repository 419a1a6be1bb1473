// The `crashprobe` check run of a head commit: started in_progress as soon as
// the work begins, completed with the review's conclusion, its summary and
// its annotations (GitHub takes 50 per request, so the rest are appended).
import type { Annotation, Conclusion, Review } from '../../core/review/model.ts';
import type { GitHubClient, RepoRef } from './client.ts';
import { githubCall } from './errors.ts';

export const CHECK_NAME = 'crashprobe';
/** GitHub's limit for a check run's output.summary (and an issue comment's body). */
export const MAX_SUMMARY_CHARS = 65_535;
export const ANNOTATIONS_PER_REQUEST = 50;

export interface StartCheckRunOptions {
  /** Reuse the crashprobe check run already on this commit (a restarted job) instead of creating another. */
  reuseExisting?: boolean;
  /** Only check runs of this app count when reusing (Probot knows its app id). */
  appId?: number;
  detailsUrl?: string;
}

/** Returns the id of an in_progress `crashprobe` check run on `headSha`. */
export async function startCheckRun(octokit: GitHubClient, repo: RepoRef, headSha: string, options: StartCheckRunOptions = {}): Promise<number> {
  const where = `/repos/${repo.owner}/${repo.repo}`;
  if (options.reuseExisting) {
    const { data } = await githubCall(`GET ${where}/commits/${headSha}/check-runs`, () =>
      octokit.rest.checks.listForRef({ ...repo, ref: headSha, check_name: CHECK_NAME, filter: 'all', ...(options.appId ? { app_id: options.appId } : {}) }),
    );
    const mine = data.check_runs.find((run) => run.name === CHECK_NAME && run.head_sha === headSha);
    if (mine) return mine.id;
  }
  const { data } = await githubCall(`POST ${where}/check-runs`, () =>
    octokit.rest.checks.create({
      ...repo,
      name: CHECK_NAME,
      head_sha: headSha,
      status: 'in_progress',
      started_at: new Date().toISOString(),
      output: { title: 'crashprobe is reviewing', summary: 'Crash-testing the touched functions in both sqlite3 transaction modes.' },
      ...(options.detailsUrl ? { details_url: options.detailsUrl } : {}),
    }),
  );
  return data.id;
}

export interface CheckOutcome {
  conclusion: Conclusion;
  title: string;
  summary: string;
  annotations?: readonly Annotation[];
}

/** Completes the check run; annotations past the first 50 are appended with further updates. */
export async function completeCheckRun(octokit: GitHubClient, repo: RepoRef, checkRunId: number, outcome: CheckOutcome): Promise<void> {
  const call = `PATCH /repos/${repo.owner}/${repo.repo}/check-runs/${checkRunId}`;
  const title = outcome.title.slice(0, 250);
  const summary = truncateMarkdown(outcome.summary, MAX_SUMMARY_CHARS);
  const batches = chunk((outcome.annotations ?? []).map(toGitHubAnnotation), ANNOTATIONS_PER_REQUEST);
  await githubCall(call, () =>
    octokit.rest.checks.update({
      ...repo,
      check_run_id: checkRunId,
      status: 'completed',
      conclusion: outcome.conclusion,
      completed_at: new Date().toISOString(),
      output: { title, summary, ...(batches[0] ? { annotations: batches[0] } : {}) },
    }),
  );
  for (const batch of batches.slice(1)) {
    await githubCall(call, () => octokit.rest.checks.update({ ...repo, check_run_id: checkRunId, output: { title, summary, annotations: batch } }));
  }
}

export function reviewOutcome(review: Review): CheckOutcome {
  return { conclusion: review.conclusion, title: review.checkTitle, summary: review.checkSummary, annotations: review.annotations };
}

function toGitHubAnnotation(annotation: Annotation) {
  return {
    path: annotation.path,
    start_line: annotation.startLine,
    end_line: Math.max(annotation.startLine, annotation.endLine),
    annotation_level: annotation.level,
    title: annotation.title.slice(0, 255),
    message: annotation.message.slice(0, 64 * 1024 - 1),
  };
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

const TRUNCATED = '\n\n… (cut here: GitHub keeps at most 65,535 characters; the pull request\'s summary comment has the rest)';

/** The text cut to `max` characters, with a note saying so. */
export function truncateMarkdown(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, max - TRUNCATED.length) + TRUNCATED;
}
