// Stage 3: the functions the review shows, each with its class from the head's
// crash verdicts, its static findings and a crash finding when a crash showed it
// half-updated or double-applying. Shown: the touched writers, and the target of
// every planned scenario (touched itself, or calling touched code).
import type { ScenarioVerdict } from '../crash/protocol.ts';
import { worstFailureOf } from '../crash/worst-failure.ts';
import type { FunctionClass, FunctionVerdict, ReviewFinding } from '../model/review.ts';
import { analyzeModule } from '../python/analyze.ts';
import type { FunctionReport, PyModule } from '../python/model.ts';
import { ruleById } from '../python/rules/index.ts';
import type { ReviewRepairInput } from '../repair/review-repairs.ts';
import { classRank, worstClass } from './conclusion.ts';
import { crashFinding } from './crash-finding.ts';
import { postsDoubleAppliesInline } from './double-applies-inline.ts';
import type { CrashVerdicts } from './crash-verdicts.ts';
import { functionAt, splitTarget } from './repo-modules.ts';
import { scenarioTemplate } from './scenario-template.ts';
import type { ScenarioPlan } from './scenario-selection.ts';
import type { TouchedWriters } from './touched-writers.ts';

export interface FunctionVerdicts {
  functions: FunctionVerdict[];
  /** Static findings of the touched functions, and crash findings. */
  findings: ReviewFinding[];
  /** The touched functions with verdicts, for the repair stage. */
  toRepair: ReviewRepairInput['functions'];
}

interface Row {
  module: PyModule;
  report: FunctionReport;
  /** Not touched itself: shown because its scenario runs touched code. */
  affected: boolean;
}

export async function functionVerdicts(touched: TouchedWriters, crash: CrashVerdicts, fromFork: boolean): Promise<FunctionVerdicts> {
  const rows = await shownRows(touched, crash);
  const scenarioOf = firstFileByTarget(crash.scenarioFiles);
  const plannedOf = firstFileByTarget(crash.plans);
  // Never "no scenario" for a function that has one: when its file ran but gave no verdict for it
  // (that scenario failed to load, say), the harness's error is the reason.
  const notRunWhy = (scenarioPath: string): string => {
    const why = crash.head.notRun.get(scenarioPath);
    if (why === 'harness off') return fromFork ? 'fork' : 'harness off';
    return why ?? crash.head.errors.find((e) => e.file === scenarioPath)?.message ?? 'its scenario file gave no verdict for it';
  };
  const functions: FunctionVerdict[] = [];
  const findings: ReviewFinding[] = [];
  const toRepair: ReviewRepairInput['functions'] = [];
  for (const { module, report, affected } of rows) {
    const target = `${module.path}:${report.fn.qualname}`;
    const mine = crash.head.verdicts.filter((v) => v.target === target);
    const klass = mine.length ? worstClass(mine.map((v): FunctionClass => v.class)) : 'untested';
    const worstVerdict = [...mine].sort((a, b) => classRank(b.class) - classRank(a.class))[0];
    const worst = worstVerdict ? worstFailureOf(worstVerdict) : undefined;
    const staticFindings = affected ? [] : report.findings.map((f) => staticFinding(f, report));
    findings.push(...staticFindings);
    if (worst && worstVerdict && (klass === 'unsafe' || klass === 'safe_by_accident' || (worst.outcome === 'double-applied' && postsDoubleAppliesInline(report.fn, mine)))) {
      findings.push(crashFinding(module, report, worstVerdict, worst));
    }
    if (mine.length && !affected) toRepair.push({ module, report, verdicts: mine, failure: worst });
    const scenarioPath = plannedOf.get(target) ?? scenarioOf.get(target);
    const notRun = scenarioPath && mine.length === 0 ? notRunWhy(scenarioPath) : undefined;
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
      cached: mine.length > 0 && mine.every((v) => crash.head.cached.has(v.file)),
      findingIds: staticFindings.map((f) => f.fingerprint),
      // Offered only when no scenario file names the target, and never for a closure the harness cannot load.
      scenarioTemplate: scenarioPath === undefined ? scenarioTemplate(module, report) : undefined,
      ...(notRun ? { notRunBecause: notRun } : {}),
      ...(affected ? { affected: true } : {}),
    });
  }
  return { functions, findings, toRepair };
}

/** The touched writers, then every planned scenario's target that this change concerns. */
async function shownRows(touched: TouchedWriters, crash: CrashVerdicts): Promise<Row[]> {
  const rows: Row[] = touched.writers.map((w) => ({ module: w.module, report: w.report, affected: false }));
  const shown = new Set(rows.map((r) => `${r.module.path}:${r.report.fn.qualname}`));
  // A file that runs because one of its targets was touched may hold scenarios of unrelated
  // functions: those are not this change's business (their verdicts are not shown or counted).
  const relevant = (plan: ScenarioPlan, target: string) =>
    crash.touchedTargets.has(target) || plan.why !== 'target touched' || crash.changedPaths.has(plan.path) || crash.reachesTouched(target);
  for (const target of crash.plans.flatMap((plan) => plan.targets.filter((t) => relevant(plan, t)))) {
    if (shown.has(target)) continue;
    const found = await functionAt(touched.modules, target);
    if (!found) continue;
    const { module, fn } = found;
    const [p, qualname] = splitTarget(target);
    const report =
      touched.touched.find((t) => t.module.path === p && t.report.fn.qualname === qualname)?.report ??
      analyzeModule(module, touched.index, { only: [fn] })[0];
    if (!report) continue;
    shown.add(target);
    rows.push({ module, report, affected: !crash.touchedTargets.has(target) });
  }
  return rows;
}

function firstFileByTarget(files: readonly { path: string; targets: readonly string[] }[]): Map<string, string> {
  const first = new Map<string, string>();
  for (const file of files) for (const t of file.targets) if (!first.has(t)) first.set(t, file.path);
  return first;
}

function staticFinding(f: FunctionReport['findings'][number], report: FunctionReport): ReviewFinding {
  return {
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
  };
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
