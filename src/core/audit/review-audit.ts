// The audit as a step of the review: the changed files are the targets, the rest
// of the repository their context. Findings become ReviewFindings (source
// 'audit'); one in a function whose crash scenario fails is matched to it and
// shown with it. Notes carry the plan, the budget and the token accounting.
import { createHash } from 'node:crypto';
import type { AuditConfig } from '../config/schema.ts';
import type { LlmClient, Logger, PullRequestSource, Store } from '../ports.ts';
import type { RepoIndex } from '../python/callgraph.ts';
import type { FileChange } from '../python/diff.ts';
import type { Severity } from '../python/model.ts';
import type { FunctionVerdict, ReviewFinding } from '../model/review.ts';
import { runAudit, type MergedFinding } from './audit.ts';
import { contextDocument, gatherContextSources } from './context.ts';
import { describeUsage, emptyUsage, meteredClient } from './llm/wrappers.ts';
import { describePlan, planPasses } from './planner.ts';
import { llmJudge, type PairJudge } from './matching.ts';
import { likelyPair, signals, type MatchItem } from './similarity.ts';

export interface ChangeAuditInput {
  source: Pick<PullRequestSource, 'repository' | 'listFiles' | 'readFile'>;
  audit: AuditConfig;
  index: RepoIndex;
  changes: readonly FileChange[];
  functions: readonly FunctionVerdict[];
  /** The static and crash findings already made; an audit finding the judge says is one of them corroborates it instead of repeating it. */
  existing: readonly ReviewFinding[];
}

export interface ChangeAuditResult {
  /** The existing findings (some corroborated) followed by the new audit findings. */
  findings: ReviewFinding[];
  notes: string[];
}

const SEVERITY: Record<MergedFinding['severity'], Severity> = { critical: 'error', high: 'error', medium: 'warning', low: 'info' };

/** Stable across line moves: the category, place and normalized code, not the line number. */
export function auditFingerprint(f: Pick<MergedFinding, 'category' | 'file' | 'function' | 'snippet'>): string {
  const code = f.snippet.replace(/\s+/g, ' ').trim();
  return `audit-${createHash('sha256').update(`audit/${f.category}\0${f.file}\0${f.function}\0${code}`).digest('hex').slice(0, 16)}`;
}

export function toReviewFinding(f: MergedFinding): ReviewFinding {
  const seen = f.runs > 1 ? ` Found in ${f.recurrence} of ${f.runs} audit runs.` : '';
  return {
    fingerprint: auditFingerprint(f),
    ruleId: `audit/${f.category}`,
    source: 'audit',
    severity: SEVERITY[f.severity],
    path: f.file,
    function: f.function || undefined,
    range: { startLine: f.start_line, startColumn: 0, endLine: f.end_line, endColumn: 0 },
    title: f.title,
    message: `${f.description.trim()} **Trigger:** ${f.trigger.trim()}${seen} <sub>LLM audit, confidence ${f.confidence.toFixed(2)}</sub>`,
    hint: f.suggested_fix.trim() || undefined,
  };
}

/** A failing crash scenario of the function the finding lies in proves it: shown with it. */
export function matchToCrashScenarios(findings: readonly ReviewFinding[], functions: readonly FunctionVerdict[]): ReviewFinding[] {
  return findings.map((f) => {
    const fn = functions.find(
      (v) =>
        v.path === f.path &&
        v.worst &&
        (v.class === 'unsafe' || v.class === 'safe_by_accident' || v.doubleApplies) &&
        (v.qualname === f.function || (f.range.startLine >= v.range.startLine && f.range.endLine <= v.range.endLine)),
    );
    if (!fn) return f;
    return { ...f, function: fn.qualname, confirmedBy: fn.worst, message: `${f.message} **Crash-tested:** a crash scenario of \`${fn.qualname}\` fails (${fn.class.replace(/_/g, ' ')}).` };
  });
}

export async function auditChange(input: ChangeAuditInput, deps: { llm: LlmClient; store: Store; logger: Logger }): Promise<ChangeAuditResult> {
  const notes: string[] = [];
  const usage = emptyUsage();
  const targets = input.changes.filter((c) => c.status !== 'deleted').map((c) => c.path);
  const plan = planPasses(input.index, targets, { tokenBudget: input.audit.pass_token_budget });
  if (plan.passes.length === 0) return { findings: [...input.existing], notes: ['The LLM audit had no source file to audit in this change (tests and scenario files are left out).'] };
  const allPaths = await input.source.listFiles();
  const sources = await gatherContextSources(input.source.repository, allPaths, input.source.readFile, input.index);
  const metered = meteredClient(deps.llm, usage);
  const context = await contextDocument(sources, { store: deps.store, llm: metered, logger: deps.logger });
  deps.logger.info(`auditing: ${describePlan(plan)}`);
  const changedLines = new Map(input.changes.map((c) => [c.path, c.addedLines]));
  const result = await runAudit(
    plan,
    input.index,
    context.text,
    changedLines,
    { runs: input.audit.runs, minRecurrence: input.audit.min_recurrence, budget: { tokens: input.audit.token_budget, costUsd: input.audit.cost_budget_usd } },
    { llm: deps.llm, logger: deps.logger, usage },
  );
  notes.push(
    `LLM audit: ${describePlan(plan)}, ${input.audit.runs} run(s); context document ${context.reused ? 'reused' : 'written'} (${context.writer === 'deterministic' ? 'assembled without the LLM' : 'by the LLM'}); ${result.findings.length} finding(s).`,
    ...result.notes,
  );
  if (input.audit.cost_budget_usd !== undefined && !deps.llm.pricing) {
    notes.push(`audit.cost_budget_usd is set, but crashprobe knows no price for ${deps.llm.model}: only audit.token_budget limits this audit.`);
  }
  const audited = matchToCrashScenarios(result.findings.map(toReviewFinding), input.functions);
  const judge = llmJudge(meteredClient(deps.llm, usage), deps.logger, context.text);
  const merged = await mergeWithExisting(input.existing, audited, input.index, judge);
  if (merged.corroborated) notes.push(`${merged.corroborated} audit finding(s) matched a static or crash finding and are shown with it.`);
  notes.push(describeUsage(usage, deps.llm.model));
  return { findings: merged.findings, notes };
}

function asMatchItem(f: ReviewFinding, index: RepoIndex): MatchItem {
  const lines = index.summaries.get(f.path)?.source.split('\n') ?? [];
  return {
    title: f.title,
    description: `${f.message} ${f.hint ?? ''}`,
    file: f.path,
    start_line: f.range.startLine,
    end_line: Math.max(f.range.startLine, f.range.endLine),
    function: f.function,
    category: f.ruleId.replace(/^[^/]*\//, ''),
    snippet: lines.slice(f.range.startLine - 1, Math.max(f.range.startLine, f.range.endLine)).join('\n'),
  };
}

/**
 * An audit finding the judge matches to an existing (static or crash) finding is
 * folded into it: the existing one keeps its place and says the audit agrees.
 */
export async function mergeWithExisting(existing: readonly ReviewFinding[], audited: readonly ReviewFinding[], index: RepoIndex, judge: PairJudge): Promise<{ findings: ReviewFinding[]; corroborated: number }> {
  const candidates: [number, number][] = [];
  for (let e = 0; e < existing.length; e++) {
    for (let a = 0; a < audited.length; a++) if (likelyPair(signals(asMatchItem(existing[e]!, index), asMatchItem(audited[a]!, index)))) candidates.push([e, a]);
  }
  if (candidates.length === 0) return { findings: [...existing, ...audited], corroborated: 0 };
  const verdicts = await judge(candidates.map(([e, a]) => [asMatchItem(existing[e]!, index), asMatchItem(audited[a]!, index)] as const));
  const findings = existing.map((f) => ({ ...f }));
  const folded = new Set<number>();
  candidates.forEach(([e, a], k) => {
    if (!verdicts[k] || folded.has(a)) return;
    folded.add(a);
    findings[e]!.message = `${findings[e]!.message.replace(/[.\s]*$/, '.')} **The LLM audit agrees:** ${audited[a]!.title}.`;
  });
  return { findings: [...findings, ...audited.filter((_, a) => !folded.has(a))], corroborated: folded.size };
}
