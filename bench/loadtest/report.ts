// What the load test measured and what it checks, from the fake GitHub's record.
import type { LoadGitHub } from './fake-github.ts';
import type { Plan } from './plan.ts';

export interface Figures {
  deliveries: number;
  webhookMs: { p50: number; p95: number; max: number };
  /** From the first delivery of a live head to its posted review. */
  reviewSeconds: { p50: number; p95: number; max: number };
  reviewsPerMinute: number;
  reviews: number;
  checkRuns: number;
  liveHeads: number;
  supersededHeads: number;
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function figures(run: { answers: number[]; firstSent: Map<string, number>; github: LoadGitHub; plan: Plan }): Figures {
  const { github, plan } = run;
  const latencies: number[] = [];
  for (const sha of plan.liveHeads.keys()) {
    const review = github.reviews.find((r) => r.sha === sha);
    const sent = run.firstSent.get(sha);
    if (review && sent) latencies.push((review.at - sent) / 1000);
  }
  const firstDelivery = Math.min(...run.firstSent.values());
  const lastReview = Math.max(...github.reviews.map((r) => r.at));
  const minutes = (lastReview - firstDelivery) / 60_000;
  return {
    deliveries: run.answers.length,
    webhookMs: { p50: percentile(run.answers, 50), p95: percentile(run.answers, 95), max: Math.max(...run.answers) },
    reviewSeconds: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: Math.max(...latencies) },
    reviewsPerMinute: github.reviews.length / minutes,
    reviews: github.reviews.length,
    checkRuns: github.checkRuns.length,
    liveHeads: plan.liveHeads.size,
    supersededHeads: plan.supersededHeads.size,
  };
}

/** Every promise the App makes under load, each broken one as a line. */
export function checkOutcome(github: LoadGitHub, plan: Plan): string[] {
  const problems: string[] = [];
  const reviewsOf = (sha: string) => github.reviews.filter((r) => r.sha === sha);
  const checkRunsOf = (sha: string) => github.checkRuns.filter((r) => r.head_sha === sha);
  for (const [sha, pull] of plan.liveHeads) {
    const reviews = reviewsOf(sha).length;
    const runs = checkRunsOf(sha);
    if (reviews !== 1) problems.push(`#${pull} head ${sha.slice(0, 8)}: ${reviews} reviews, expected exactly 1`);
    if (runs.length !== 1) problems.push(`#${pull} head ${sha.slice(0, 8)}: ${runs.length} check runs, expected exactly 1`);
    else if (runs[0]!.status !== 'completed') problems.push(`#${pull} head ${sha.slice(0, 8)}: its check run is ${runs[0]!.status}, not completed`);
  }
  for (const [sha, pull] of plan.supersededHeads) {
    const reviews = reviewsOf(sha).length;
    const runs = checkRunsOf(sha).length;
    if (reviews || runs) problems.push(`#${pull} superseded head ${sha.slice(0, 8)}: ${reviews} review(s) and ${runs} check run(s), expected none`);
  }
  const summaries = new Map<number, number>();
  for (const comment of github.issueComments) summaries.set(comment.pull, (summaries.get(comment.pull) ?? 0) + 1);
  for (const [pull, count] of summaries) if (count > 1) problems.push(`#${pull}: the summary comment was posted ${count} times`);
  const unknown = new Set(github.reviews.map((r) => r.sha).filter((sha) => !plan.liveHeads.has(sha) && !plan.supersededHeads.has(sha)));
  if (unknown.size) problems.push(`reviews on heads the load test never sent: ${[...unknown].join(', ')}`);
  if (github.unanswered.length) problems.push(`requests the fake GitHub does not know: ${[...new Set(github.unanswered)].slice(0, 5).join('; ')}`);
  return problems;
}

/**
 * The processes' logs: every line JSON, and every line about a pull request naming its delivery
 * (`deliveryId`, or Probot's `id`) and, on a worker, its job (`jobId`).
 */
export function checkLogs(logs: { name: string; role: string; text: string }[]): { lines: number; problems: string[] } {
  const problems: string[] = [];
  let lines = 0;
  for (const log of logs) {
    for (const line of log.text.split('\n')) {
      if (!line.trim()) continue;
      lines += 1;
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line);
      } catch {
        problems.push(`${log.name}: a log line is not JSON: ${line.slice(0, 160)}`);
        continue;
      }
      const text = JSON.stringify(entry);
      if (!/octo\/shop#\d+/.test(text)) continue;
      if (entry.deliveryId === undefined && entry.id === undefined) problems.push(`${log.name}: a line about a pull request has no delivery id: ${text.slice(0, 200)}`);
      if (log.role === 'worker' && entry.jobId === undefined) problems.push(`${log.name}: a worker line about a pull request has no job id: ${text.slice(0, 200)}`);
    }
  }
  return { lines, problems: [...new Set(problems)].slice(0, 10) };
}
