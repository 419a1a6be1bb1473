// The `crashprobe` check run of a head commit: started (or taken up again)
// in_progress as soon as the work begins, completed with the review's conclusion,
// its summary and its annotations (GitHub takes 50 per request, so the rest are
// appended). Without `checks: write`, a commit status carries the conclusion.
import type { Annotation, Conclusion, Review } from '../../core/model/review.ts';
import type { GitHubClient, RepoRef } from './client.ts';
import { githubCall } from './errors.ts';

export const CHECK_NAME = 'crashprobe';
/**
 * Set on every check run crashprobe creates, so a re-run finds its own and not a
 * workflow job that happens to be called `crashprobe` (its check run has the same name).
 */
export const CHECK_EXTERNAL_ID = 'crashprobe-review';
/** GitHub's limit for a check run's output.summary (and an issue comment's body). */
export const MAX_SUMMARY_CHARS = 65_535;
export const ANNOTATIONS_PER_REQUEST = 50;

export interface StartCheckRunOptions {
  /** Only check runs of this app count when reusing (Probot knows its app id). */
  appId?: number;
  detailsUrl?: string;
}

export interface StartedCheckRun {
  id: number;
  /** True when the head already had crashprobe's check run (a re-run): it was set back to in_progress. */
  reused: boolean;
  /** The app that owns it (`github-actions` for an Action's token): its bot posts the comments. */
  appSlug?: string;
}

const STARTED_OUTPUT = { title: 'crashprobe is reviewing', summary: 'Crash-testing the touched functions in both sqlite3 transaction modes.' };

/** Only the owner and name: a request body built from a pull request ref must not carry its `number`. */
function repoOf(ref: RepoRef): RepoRef {
  return { owner: ref.owner, repo: ref.repo };
}

/** Creates the head's in_progress `crashprobe` check run, or takes up the one crashprobe made before on this head. */
export async function startCheckRun(octokit: GitHubClient, ref: RepoRef, headSha: string, options: StartCheckRunOptions = {}): Promise<StartedCheckRun> {
  const repo = repoOf(ref);
  const where = `/repos/${repo.owner}/${repo.repo}`;
  const { data: listed } = await githubCall(`GET ${where}/commits/${headSha}/check-runs`, () =>
    octokit.rest.checks.listForRef({ ...repo, ref: headSha, check_name: CHECK_NAME, filter: 'all', ...(options.appId ? { app_id: options.appId } : {}) }),
  );
  const mine = listed.check_runs.find((run) => run.name === CHECK_NAME && run.head_sha === headSha && run.external_id === CHECK_EXTERNAL_ID);
  if (mine) {
    await githubCall(`PATCH ${where}/check-runs/${mine.id}`, () =>
      octokit.rest.checks.update({ ...repo, check_run_id: mine.id, status: 'in_progress', started_at: new Date().toISOString(), output: STARTED_OUTPUT }),
    );
    return { id: mine.id, reused: true, appSlug: mine.app?.slug };
  }
  const { data } = await githubCall(`POST ${where}/check-runs`, () =>
    octokit.rest.checks.create({
      ...repo,
      name: CHECK_NAME,
      head_sha: headSha,
      external_id: CHECK_EXTERNAL_ID,
      status: 'in_progress',
      started_at: new Date().toISOString(),
      output: STARTED_OUTPUT,
      ...(options.detailsUrl ? { details_url: options.detailsUrl } : {}),
    }),
  );
  return { id: data.id, reused: false, appSlug: data.app?.slug };
}

export interface CheckOutcome {
  conclusion: Conclusion;
  title: string;
  summary: string;
  annotations?: readonly Annotation[];
}

/**
 * Completes the check run; annotations past the first 50 are appended with further updates.
 * GitHub appends the annotations of every update, so on a check run taken up again (`reused`)
 * the ones it already carries are not sent twice.
 */
export async function completeCheckRun(
  octokit: GitHubClient,
  ref: RepoRef,
  checkRunId: number,
  outcome: CheckOutcome,
  options: { reused?: boolean } = {},
): Promise<void> {
  const repo = repoOf(ref);
  const call = `PATCH /repos/${repo.owner}/${repo.repo}/check-runs/${checkRunId}`;
  const title = outcome.title.slice(0, 250);
  const summary = truncateMarkdown(outcome.summary, MAX_SUMMARY_CHARS);
  const carried = options.reused ? await existingAnnotations(octokit, repo, checkRunId) : new Set<string>();
  const annotations = (outcome.annotations ?? []).map(toGitHubAnnotation).filter((a) => !carried.has(annotationKey(a)));
  const batches = chunk(annotations, ANNOTATIONS_PER_REQUEST);
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

type AnnotationFields = { path: string; start_line: number; end_line: number; annotation_level?: string | null; title?: string | null; message?: string | null };

const annotationKey = (a: AnnotationFields): string =>
  JSON.stringify([a.path, a.start_line, a.end_line, a.annotation_level ?? '', a.title ?? '', a.message ?? '']);

async function existingAnnotations(octokit: GitHubClient, repo: RepoRef, checkRunId: number): Promise<Set<string>> {
  const listed = await githubCall(`GET /repos/${repo.owner}/${repo.repo}/check-runs/${checkRunId}/annotations`, () =>
    octokit.paginate(octokit.rest.checks.listAnnotations, { ...repo, check_run_id: checkRunId, per_page: 100 }),
  );
  return new Set(listed.map(annotationKey));
}

/** The commit status `crashprobe` (for a token without `checks: write`): pending while reviewing, then the conclusion. */
export async function setCommitStatus(
  octokit: GitHubClient,
  ref: RepoRef,
  headSha: string,
  state: Conclusion | 'pending',
  description: string,
  targetUrl?: string,
): Promise<void> {
  const repo = repoOf(ref);
  // A status has no neutral: neutral passes, as a neutral check run does.
  const statusState = state === 'pending' ? 'pending' : state === 'success' || state === 'neutral' ? 'success' : 'failure';
  await githubCall(`POST /repos/${repo.owner}/${repo.repo}/statuses/${headSha}`, () =>
    octokit.rest.repos.createCommitStatus({
      ...repo,
      sha: headSha,
      state: statusState,
      context: CHECK_NAME,
      description: description.length > 140 ? `${description.slice(0, 139)}…` : description,
      ...(targetUrl ? { target_url: targetUrl } : {}),
    }),
  );
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
