// The review pipeline: touched functions and their effects, scenarios and the
// crash harness (cached), static findings, matching, and the rendered Review.
import { createHash } from 'node:crypto';
import type { CrashprobeConfig } from '../config/schema.ts';
import type { Failure, ScenarioVerdict } from '../crash/protocol.ts';
import { worstFailureOf } from '../crash/worst-failure.ts';
import type { HarnessRunner, LlmClient, Logger, PullRequestSource, Store, ChangedFile } from '../ports.ts';
import { auditChange } from '../audit/review-audit.ts';
import { buildRepoIndex } from '../python/callgraph.ts';
import { analyzeModule } from '../python/analyze.ts';
import { parseUnifiedDiff, touchedFunctions, type FileChange } from '../python/diff.ts';
import { listFunctions } from '../python/functions.ts';
import type { FunctionReport, PyModule } from '../python/model.ts';
import { parseModule } from '../python/parse.ts';
import { ruleById } from '../python/rules/index.ts';
import { renderReview } from '../render/review-markdown.ts';
import { classRank, conclusionFor, worstClass } from './conclusion.ts';
import { matchFindings } from './match.ts';
import type { FunctionClass, FunctionVerdict, Review, ReviewFinding } from './model.ts';
import { scenarioTemplate } from './scenario-template.ts';
import { repairReviewedFunctions, type AppliedRepair, type ReviewRepairInput } from '../repair/review-repairs.ts';
import { needsRepair } from '../repair/repair.ts';
import { pathFilter, scenarioTargets } from './scenario-files.ts';
import { callGraphReach, selectScenarios, type ScenarioPlan } from './scenario-selection.ts';
import { judgeScenarios, scenarioFileIn } from './judge-scenarios.ts';
import { judgeBase } from './judge-base.ts';
import { baseChangeLead } from './base-change.ts';
import { lastFootprint } from './verdict-cache.ts';

export interface ReviewDeps {
  /** Absent: the crash harness does not run (no harness here, or a fork's untrusted code). */
  harness?: HarnessRunner;
  store: Store;
  logger: Logger;
  /** Why the harness is absent, said in the summary. */
  harnessOffReason?: string;
  /** Present: the multi-pass LLM audit runs on the changed files. Absent: the audit is the static checks. */
  llm?: LlmClient;
  /**
   * Trusted markdown said when `llm` is absent, naming how this adapter configures a model (the Action: its
   * `model` and `*-api-key` inputs). Absent: the default note (config file and environment variables).
   */
  noLlmNote?: string;
  /** False: no repairs are made (each one is crash-tested, which costs a harness run per candidate). */
  repairs?: boolean;
  /** Scenario files crash-tested per commit in one review, beyond the cached ones (default 40). */
  maxScenarioFiles?: number;
}

const MAX_INDEXED_FILES = 3000;
const MAX_SCENARIO_FILES = 40;

function splitTarget(target: string): [string, string] {
  const at = target.lastIndexOf(':');
  return [target.slice(0, at), target.slice(at + 1)];
}

/** GitHub's per-file patch as a unified diff with headers, which parse-diff expects. */
export function unifiedDiff(files: readonly ChangedFile[]): string {
  return files
    .filter((f) => f.patch !== undefined)
    .map((f) => {
      const from = f.status === 'added' ? '/dev/null' : `a/${f.previousPath ?? f.path}`;
      const to = f.status === 'removed' ? '/dev/null' : `b/${f.path}`;
      return `--- ${from}\n+++ ${to}\n${f.patch}\n`;
    })
    .join('');
}

function functionSource(module: PyModule, startLine: number, endLine: number): string {
  return module.source.split('\n').slice(startLine - 1, endLine).join('\n');
}

export async function reviewPullRequest(source: PullRequestSource, config: CrashprobeConfig, deps: ReviewDeps): Promise<Review> {
  const { logger } = deps;
  const notes: string[] = [];
  const inScope = pathFilter(config.paths.include, config.paths.exclude);
  const changed = (await source.changedFiles()).filter((f) => f.path.endsWith('.py') && inScope(f.path));
  const changes = parseUnifiedDiff(unifiedDiff(changed));
  const missingPatch = changed.filter((f) => f.patch === undefined && f.status !== 'removed');
  for (const f of missingPatch) notes.push(`${f.path}: GitHub sent no patch (too large?); its functions were not reviewed.`);

  // Parse the changed files, and the rest of the repository for the call graph (bounded).
  const allPaths = (await source.listFiles()).filter((p) => p.endsWith('.py'));
  const modules = new Map<string, PyModule>();
  const readModule = async (p: string) => {
    if (modules.has(p)) return modules.get(p);
    const text = await source.readFile(p);
    if (text === undefined) return undefined;
    const module = parseModule(p, text);
    modules.set(p, module);
    return module;
  };
  for (const change of changes) if (change.status !== 'deleted') await readModule(change.path);
  if (allPaths.length <= MAX_INDEXED_FILES) for (const p of allPaths) if (inScope(p)) await readModule(p);
  else notes.push(`The repository has ${allPaths.length} Python files; helpers in unchanged files were not followed.`);
  const index = buildRepoIndex([...modules.values()]);

  // Touched functions and their reports.
  const touched: { module: PyModule; change: FileChange; report: FunctionReport }[] = [];
  for (const change of changes) {
    if (change.status === 'deleted') continue;
    const module = modules.get(change.path);
    if (!module) continue;
    for (const note of module.notes) notes.push(`${module.path}: ${note}`);
    if (module.errors.length) notes.push(`${module.path}: ${module.errors.length} syntax error region(s); analysed around them.`);
    const fns = touchedFunctions(change, listFunctions(module));
    for (const report of analyzeModule(module, index, { only: fns })) touched.push({ module, change, report });
  }
  const writers = touched.filter((t) => t.report.writes);

  // Scenario files: every one whose target the change touches, or whose target calls touched code.
  const touchedSet = new Set(touched.map((t) => `${t.module.path}:${t.report.fn.qualname}`));
  const changedPaths = new Set(changed.flatMap((f) => [f.path, ...(f.previousPath ? [f.previousPath] : [])]));
  const isScenario = pathFilter(config.scenarios, []);
  const scenarioFiles: { path: string; text: string; targets: string[] }[] = [];
  for (const p of allPaths.filter((p) => isScenario(p))) {
    const text = (await source.readFile(p)) ?? '';
    scenarioFiles.push({ path: p, text, targets: scenarioTargets(text) });
  }
  const reachesTouched = callGraphReach(index, touchedSet);
  const plans = selectScenarios({
    scenarioFiles,
    touched: touchedSet,
    changedPaths,
    lastFootprint: (p) => lastFootprint(deps.store, p),
    reachesTouched,
  });
  for (const plan of plans) logger.info(`${plan.path}: runs (${plan.why})`);
  const headSourceOf = async (target: string) => {
    const [p, qualname] = splitTarget(target);
    const module = await readModule(p);
    const fn = module && listFunctions(module).find((f) => f.qualname === qualname);
    return module && fn ? functionSource(module, fn.range.startLine, fn.range.endLine) : undefined;
  };
  const maxRuns = deps.maxScenarioFiles ?? MAX_SCENARIO_FILES;
  const head = await judgeScenarios({
    plans,
    commit: { name: 'head', readFile: (p) => source.readFile(p), checkout: () => source.checkout() },
    headCheckout: () => source.checkout(),
    targetSource: headSourceOf,
    harness: deps.harness,
    store: deps.store,
    logger,
    maxRuns,
  });
  const verdicts = head.verdicts;
  if (head.notRun.size && !deps.harness) notes.push(deps.harnessOffReason ?? 'The crash harness did not run.');
  for (const error of head.errors) notes.push(`crash harness: ${error.file}: ${error.message}`);
  const [budgeted] = [...head.notRun.values()].filter((why) => why.startsWith('budget'));
  if (budgeted) notes.push(`Only ${maxRuns} scenario files are crash-tested per review; ${[...head.notRun.values()].filter((w) => w === budgeted).length} more were not run.`);

  // Functions shown: touched writers, and the target of every planned scenario (touched or calling touched code).
  type Row = { module: PyModule; report: FunctionReport; affected: boolean };
  const rows: Row[] = writers.map((w) => ({ module: w.module, report: w.report, affected: false }));
  const shown = new Set(rows.map((r) => `${r.module.path}:${r.report.fn.qualname}`));
  // A file that runs because one of its targets was touched may hold scenarios of unrelated
  // functions: those are not this change's business (their verdicts are not shown or counted).
  const relevant = (plan: ScenarioPlan, target: string) =>
    touchedSet.has(target) || plan.why !== 'target touched' || changedPaths.has(plan.path) || reachesTouched(target);
  for (const target of plans.flatMap((plan) => plan.targets.filter((t) => relevant(plan, t)))) {
    if (shown.has(target)) continue;
    const [p, qualname] = splitTarget(target);
    const module = await readModule(p);
    const fn = module && listFunctions(module).find((f) => f.qualname === qualname);
    if (!module || !fn) continue;
    const report = touched.find((t) => t.module.path === p && t.report.fn.qualname === qualname)?.report ?? analyzeModule(module, index, { only: [fn] })[0];
    if (!report) continue;
    shown.add(target);
    rows.push({ module, report, affected: !touchedSet.has(target) });
  }
  const scenarioOf = new Map<string, string>();
  for (const file of scenarioFiles) for (const t of file.targets) if (!scenarioOf.has(t)) scenarioOf.set(t, file.path);
  const plannedOf = new Map<string, string>();
  for (const plan of plans) for (const t of plan.targets) if (!plannedOf.has(t)) plannedOf.set(t, plan.path);
  const offWhy = source.fromFork ? 'fork' : 'harness off';

  // Per function: class, worst scenario, static findings.
  const findings: ReviewFinding[] = [];
  const functions: FunctionVerdict[] = [];
  const toRepair: ReviewRepairInput['functions'] = [];
  for (const { module, report, affected } of rows) {
    const target = `${module.path}:${report.fn.qualname}`;
    const mine = verdicts.filter((v) => v.target === target);
    const classes = mine.map((v): FunctionClass => v.class);
    const klass = classes.length ? worstClass(classes) : 'untested';
    const worstVerdict = [...mine].sort((a, b) => classRank(b.class) - classRank(a.class))[0];
    const worst = worstVerdict ? worstFailureOf(worstVerdict) : undefined;
    const staticFindings: ReviewFinding[] = affected
      ? []
      : report.findings.map((f) => ({
          fingerprint: f.id,
          ruleId: f.ruleId,
          source: 'static',
          severity: f.severity,
          path: f.path,
          function: f.function ?? report.fn.qualname,
          range: f.range,
          title: ruleById(f.ruleId)?.meta.description.replace(/[.:].*$/s, '') ?? f.ruleId,
          message: f.message,
          hint: f.hint,
        }));
    findings.push(...staticFindings);
    if (worst && worstVerdict && (klass === 'unsafe' || klass === 'safe_by_accident' || worst.outcome === 'double-applied')) {
      findings.push(crashFinding(module, report, worstVerdict, worst));
    }
    if (mine.length && !affected) toRepair.push({ module, report, verdicts: mine, failure: worst });
    const scenarioPath = plannedOf.get(target) ?? scenarioOf.get(target);
    const notRun = scenarioPath && mine.length === 0 ? (head.notRun.get(scenarioPath) === 'harness off' ? offWhy : head.notRun.get(scenarioPath)) : undefined;
    functions.push({
      path: module.path,
      qualname: report.fn.qualname,
      range: report.fn.range,
      txStyle: report.txStyle.style,
      effects: summarizeEffects(report),
      class: klass,
      modes: worstVerdict ? { default: modeLabel(worstVerdict, 'default'), autocommit: modeLabel(worstVerdict, 'autocommit') } : undefined,
      doubleApplies: worstVerdict ? mine.some((v) => v.double_applies) : undefined,
      fullyCrashSafe: worstVerdict ? mine.every((v) => v.fully_crash_safe) : undefined,
      worst,
      scenariosRun: mine.reduce((n, v) => n + 2 * (v.modes.default.crash_points + v.modes.autocommit.crash_points), 0),
      cached: mine.length > 0 && mine.every((v) => head.cached.has(v.file)),
      findingIds: staticFindings.map((f) => f.fingerprint),
      // Offered only when no scenario file names the target, and never for a closure the harness cannot load.
      scenarioTemplate: scenarioPath === undefined ? scenarioTemplate(module, report) : undefined,
      ...(notRun ? { notRunBecause: notRun } : {}),
      ...(affected ? { affected: true } : {}),
    });
  }

  // Head against base: the same scenarios, run against the base's tree, for every function judged at the head.
  const base = await judgeBase({ source, plans, functions, changed, harness: deps.harness, store: deps.store, logger, maxRuns });
  notes.push(...base.notes);
  for (const f of functions) {
    const comparison = base.comparisons.get(`${f.path}:${f.qualname}`);
    if (comparison) f.base = comparison;
  }
  const staticAndCrash = matchFindings(findings);
  const audit = deps.llm ? await auditChange({ source, audit: config.audit, index, changes, functions, existing: staticAndCrash }, { llm: deps.llm, store: deps.store, logger }) : undefined;
  notes.push(...(audit?.notes ?? []));
  const matched = audit?.findings ?? staticAndCrash;
  const counts = { unsafe: 0, safe_by_accident: 0, safe_by_design: 0, not_working: 0, untested: 0 } as Record<FunctionClass, number>;
  for (const f of functions) counts[f.class] += 1;
  functions.sort((a, b) => classRank(b.class) - classRank(a.class) || a.path.localeCompare(b.path));
  const conclusion = conclusionFor(functions.map((f) => f.class), config.fail_on, functions.map((f) => f.base));
  const lead = baseChangeLead(functions, conclusion === 'failure');
  const hunkLines = new Map(changes.map((c) => [c.path, c.hunkLines]));
  const sources = new Map([...modules].map(([p, m]) => [p, m.source.split('\n')]));
  let repairs: AppliedRepair[] | undefined;
  if (deps.harness && deps.repairs !== false && toRepair.some((f) => needsRepair(f.verdicts))) {
    const checkout = await source.checkout();
    const { harness, llm } = deps;
    const scenarioFile = (p: string) => scenarioFileIn(checkout, checkout, p);
    repairs = (await repairReviewedFunctions({ functions: toRepair, checkout, scenarioFile, harness, cache: deps.store, llm, logger, findings: matched, hunkLines, notes })).applicable;
  }
  notes.push(...((await source.skipped?.()) ?? [])); // what the checkouts left out (links leading out of the tree, …)
  const review = renderReview({
    repository: source.repository,
    headSha: source.headSha,
    functions,
    findings: matched,
    counts,
    conclusion,
    notes,
    hunkLines,
    sources,
    maxInline: config.max_inline_comments,
    auditConfigured: Boolean(deps.llm),
    ...(deps.noLlmNote !== undefined ? { noLlmNote: deps.noLlmNote } : {}),
    lead,
  });
  return repairs ? { ...review, repairs } : review;
}

function modeLabel(verdict: ScenarioVerdict, mode: 'default' | 'autocommit'): string {
  const result = verdict.modes[mode];
  if (!result.works) return 'fails';
  return result.half_updated ? 'half-updated' : 'safe';
}

function summarizeEffects(report: FunctionReport): string[] {
  const seen = new Set<string>();
  for (const e of report.effects) {
    if (e.kind === 'db-read') continue;
    const tables = e.sql?.tables.length ? ` ${e.sql.tables.join(', ')}` : '';
    seen.add(`${e.kind}${tables}`);
  }
  return [...seen];
}

function normalizedLine(module: PyModule, line: number): string {
  return (module.source.split('\n')[line - 1] ?? '').replace(/\s+/g, ' ').trim();
}

function crashFinding(module: PyModule, report: FunctionReport, verdict: ScenarioVerdict, worst: Failure): ReviewFinding {
  const line = worst.point && worst.point.path === module.path ? worst.point.line : report.fn.range.startLine;
  const fingerprint = createHash('sha256')
    .update(`crash/${verdict.class}\0${module.path}\0${report.fn.qualname}\0${normalizedLine(module, line)}`)
    .digest('hex')
    .slice(0, 16);
  const what =
    verdict.class === 'unsafe'
      ? "A crash leaves the data half-updated, even in Python's default mode."
      : verdict.class === 'safe_by_accident'
        ? 'Safe only by accident: in autocommit mode a crash leaves the data half-updated.'
        : 'A re-run applies the work twice.';
  return {
    fingerprint,
    ruleId: `crash/${verdict.class}`,
    source: 'crash',
    severity: verdict.class === 'unsafe' ? 'error' : 'warning',
    path: module.path,
    function: report.fn.qualname,
    range: { startLine: line, startColumn: 0, endLine: line, endColumn: 0 },
    title: verdict.class === 'unsafe' ? 'Unsafe under a crash' : verdict.class === 'safe_by_accident' ? 'Safe by accident' : 'Double-applies',
    message: what,
    confirmedBy: worst,
  };
}
