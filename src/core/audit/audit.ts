// The multi-pass audit: plan, keep the passes the budget allows, run each pass
// `runs` times, validate every answer, then deduplicate across runs and keep
// findings by recurrence (PROBE's intersection of runs, as a count).
import type { LlmClient, Logger } from '../ports.ts';
import type { RepoIndex } from '../python/callgraph.ts';
import { FINDINGS_JSON_SCHEMA, validateFindings, type AuditFinding, type DroppedFinding } from './findings.ts';
import { components, duplicatePairs, llmJudge, signalsOnlyJudge, type PairJudge } from './matching.ts';
import { estimateTokens, type AuditPass, type AuditPlan } from './planner.ts';
import { passPrompt } from './prompt.ts';
import { meteredClient, type Usage } from './llm/wrappers.ts';

export interface AuditBudget {
  /** Input plus output tokens for the whole audit of one pull request. */
  tokens: number;
  costUsd?: number;
}

export interface AuditOptions {
  runs: number;
  minRecurrence: number;
  budget: AuditBudget;
  /** Passes in flight at once. */
  concurrency?: number;
  maxOutputTokens?: number;
}

export interface MergedFinding extends AuditFinding {
  /** In how many runs it was found. */
  recurrence: number;
  runs: number;
  /** How many raw findings were merged into it. */
  members: number;
}

export interface AuditResult {
  findings: MergedFinding[];
  dropped: DroppedFinding[];
  /** Passes left out because the budget would have been exceeded. */
  skippedPasses: string[];
  belowRecurrence: number;
  usage: Usage;
  notes: string[];
}

const PROMPT_OVERHEAD_TOKENS = 1200;
const DEFAULT_MAX_OUTPUT_TOKENS = 4000;
/** What a pass's answer usually costs; the budget plans with it. */
const EXPECTED_OUTPUT_TOKENS = 1500;

export function estimatePass(pass: AuditPass, contextTokens: number): { input: number; output: number } {
  return { input: pass.tokens + contextTokens + PROMPT_OVERHEAD_TOKENS, output: EXPECTED_OUTPUT_TOKENS };
}

/** The passes, in plan order, whose estimated tokens (and cost, when priced) for every run fit what is left of the budget. */
export function fitBudget(plan: AuditPlan, budget: AuditBudget, spent: Usage, runs: number, contextTokens: number, llm: Pick<LlmClient, 'pricing'>): { kept: AuditPass[]; skipped: AuditPass[] } {
  let tokens = spent.inputTokens + spent.outputTokens;
  let cost = spent.costUsd ?? 0;
  const kept: AuditPass[] = [];
  const skipped: AuditPass[] = [];
  for (const pass of plan.passes) {
    const { input, output } = estimatePass(pass, contextTokens);
    const passTokens = (input + output) * runs;
    const passCost = llm.pricing ? ((input * llm.pricing.inputPerMillion + output * llm.pricing.outputPerMillion) * runs) / 1_000_000 : 0;
    if (skipped.length || tokens + passTokens > budget.tokens || (budget.costUsd !== undefined && cost + passCost > budget.costUsd)) {
      skipped.push(pass);
      continue;
    }
    tokens += passTokens;
    cost += passCost;
    kept.push(pass);
  }
  return { kept, skipped };
}

function overBudget(usage: Usage, budget: AuditBudget): boolean {
  return usage.inputTokens + usage.outputTokens >= budget.tokens || (budget.costUsd !== undefined && (usage.costUsd ?? 0) >= budget.costUsd);
}

/** Runs tasks with at most `limit` at once, results in task order. */
async function pool<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker));
  return results;
}

export async function runAudit(
  plan: AuditPlan,
  index: RepoIndex,
  context: string,
  changedLines: ReadonlyMap<string, readonly number[]>,
  options: AuditOptions,
  deps: { llm: LlmClient; logger: Logger; usage?: Usage; judge?: PairJudge },
): Promise<AuditResult> {
  const llm = meteredClient(deps.llm, deps.usage);
  const notes: string[] = [];
  const { kept, skipped } = fitBudget(plan, options.budget, llm.usage, options.runs, estimateTokens(context), llm);
  if (skipped.length) {
    notes.push(
      `The audit budget (${options.budget.tokens.toLocaleString('en-US')} tokens${options.budget.costUsd !== undefined ? `, $${options.budget.costUsd}` : ''}) allowed ${kept.length} of ${plan.passes.length} pass(es) × ${options.runs} run(s); not audited: ${skipped.flatMap((p) => p.files.map((f) => f.path)).join(', ')}. Raise audit.token_budget or audit.cost_budget_usd to cover them.`,
    );
  }
  const lines = new Map<string, string[]>();
  for (const pass of kept) for (const f of pass.files) lines.set(f.path, (index.summaries.get(f.path)?.source ?? '').split('\n'));
  const prompts = new Map(kept.map((pass) => [pass.id, passPrompt(pass, index, context, changedLines)]));
  const stoppedAtRuntime: string[] = [];
  const tasks = Array.from({ length: options.runs }, (_, run) => kept.map((pass) => ({ run, pass }))).flat().map(({ run, pass }) => async () => {
    if (overBudget(llm.usage, options.budget)) {
      stoppedAtRuntime.push(`${pass.id}#${run + 1}`);
      return { findings: [], dropped: [] };
    }
    try {
      const response = await llm.complete({
        // The run number keeps repeated runs from being answered by the cache.
        system: `You are a meticulous reviewer of Python code for crash safety and correctness. Audit run ${run + 1} of ${options.runs}.`,
        messages: [{ role: 'user', content: prompts.get(pass.id)! }],
        jsonSchema: { name: FINDINGS_JSON_SCHEMA.name, schema: FINDINGS_JSON_SCHEMA.schema },
        maxTokens: options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
      });
      const targets = new Map(pass.files.map((f) => [f.path, lines.get(f.path)!]));
      return validateFindings(response.text, targets, { run, passId: pass.id });
    } catch (error) {
      deps.logger.warn(`audit pass ${pass.id} (run ${run + 1}) failed: ${(error as Error).message}`);
      notes.push(`Audit pass ${pass.id} (run ${run + 1}) failed: ${(error as Error).message}`);
      return { findings: [], dropped: [] };
    }
  });
  const answers = await pool(tasks, options.concurrency ?? 4);
  if (stoppedAtRuntime.length) notes.push(`The audit budget ran out while auditing: ${stoppedAtRuntime.length} pass run(s) were not made (${stoppedAtRuntime.join(', ')}).`);
  const raw = answers.flatMap((a) => a.findings);
  const dropped = answers.flatMap((a) => a.dropped);
  for (const d of dropped) deps.logger.warn(`audit finding dropped (pass ${d.passId}${d.title ? `, "${d.title}"` : ''}): ${d.reason}`);
  if (dropped.length) notes.push(`${dropped.length} audit finding(s) were dropped as malformed or naming code that does not exist.`);

  const judge = deps.judge ?? (options.runs > 1 && !overBudget(llm.usage, options.budget) ? llmJudge(llm, deps.logger, context) : signalsOnlyJudge);
  const merged = await mergeRuns(raw, options.runs, judge);
  const findings = merged.filter((f) => f.recurrence >= options.minRecurrence);
  const belowRecurrence = merged.length - findings.length;
  if (belowRecurrence) notes.push(`${belowRecurrence} audit finding(s) appeared in fewer than ${options.minRecurrence} of ${options.runs} runs (audit.min_recurrence) and are not shown.`);
  return { findings, dropped, skippedPasses: skipped.map((p) => p.id), belowRecurrence, usage: llm.usage, notes };
}

/** Connected components of duplicate findings; each keeps its most confident member and counts its runs. */
export async function mergeRuns(raw: readonly AuditFinding[], runs: number, judge: PairJudge): Promise<MergedFinding[]> {
  const pairs = await duplicatePairs(raw, judge);
  return components(raw.length, pairs).map((members) => {
    const group = members.map((i) => raw[i]!);
    const best = [...group].sort((a, b) => b.confidence - a.confidence || a.run - b.run)[0]!;
    const fixes = [...new Set(group.map((f) => f.suggested_fix.trim()).filter(Boolean))];
    return {
      ...best,
      suggested_fix: fixes.length > 1 ? `${fixes[0]} (Other runs suggested: ${fixes.slice(1).join(' / ')})` : (fixes[0] ?? ''),
      recurrence: new Set(group.map((f) => f.run)).size,
      runs,
      members: group.length,
    };
  });
}
