// Stage 8: the Review as it is shown. Functions counted and ranked worst first,
// the check's conclusion (fail_on, regressions against the base), the lead line
// of what the change did, and the rendered summary, comments and annotations.
import type { CrashprobeConfig } from '../config/schema.ts';
import type { FunctionClass, FunctionVerdict, Review, ReviewFinding } from '../model/review.ts';
import type { PullRequestSource } from '../ports.ts';
import type { AppliedRepair } from '../repair/review-repairs.ts';
import { renderReview } from '../render/review-markdown.ts';
import { baseChangeLead } from './base-change.ts';
import { classRank, conclusionFor } from './conclusion.ts';
import type { RepoModules } from './repo-modules.ts';

export interface RenderingInput {
  source: Pick<PullRequestSource, 'repository' | 'headSha'>;
  config: Pick<CrashprobeConfig, 'fail_on' | 'max_inline_comments'>;
  functions: readonly FunctionVerdict[];
  findings: ReviewFinding[];
  notes: string[];
  /** The diff's new-side lines per file: where inline comments may go. */
  hunkLines: ReadonlyMap<string, ReadonlySet<number>>;
  /** The parsed head modules, for the source lines the crash figures quote. */
  modules: RepoModules;
  auditConfigured: boolean;
  noLlmNote?: string;
  repairs?: AppliedRepair[];
}

export function countByClass(functions: readonly FunctionVerdict[]): Record<FunctionClass, number> {
  const counts: Record<FunctionClass, number> = { unsafe: 0, safe_by_accident: 0, safe_by_design: 0, not_working: 0, untested: 0 };
  for (const f of functions) counts[f.class] += 1;
  return counts;
}

export function rendering(input: RenderingInput): Review {
  const functions = [...input.functions].sort((a, b) => classRank(b.class) - classRank(a.class) || a.path.localeCompare(b.path));
  const conclusion = conclusionFor(functions.map((f) => f.class), input.config.fail_on, functions.map((f) => f.base));
  const review = renderReview({
    repository: input.source.repository,
    headSha: input.source.headSha,
    functions,
    findings: input.findings,
    counts: countByClass(functions),
    conclusion,
    notes: input.notes,
    hunkLines: input.hunkLines,
    sources: input.modules.sourceLines(),
    maxInline: input.config.max_inline_comments,
    auditConfigured: input.auditConfigured,
    ...(input.noLlmNote !== undefined ? { noLlmNote: input.noLlmNote } : {}),
    lead: baseChangeLead(functions, conclusion === 'failure'),
  });
  return input.repairs ? { ...review, repairs: input.repairs } : review;
}
