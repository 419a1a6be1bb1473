// Stage 2: the crash verdicts at the head. Every scenario file whose target the
// change touches, or whose target calls touched code, is crash-tested (or read
// from the cache); the notes say what did not run and why.
import type { CrashprobeConfig } from '../config/schema.ts';
import type { HarnessRunner, Logger, PullRequestSource, Store } from '../ports.ts';
import { judgeScenarios, type Judged } from './judge-scenarios.ts';
import { functionAt, functionSource } from './repo-modules.ts';
import { pathFilter, scenarioTargets, type ScenarioFileTargets } from './scenario-files.ts';
import { callGraphReach, selectScenarios, type ScenarioPlan } from './scenario-selection.ts';
import type { TouchedWriters } from './touched-writers.ts';
import { lastFootprint } from './verdict-cache.ts';

export interface CrashVerdictDeps {
  harness?: HarnessRunner;
  /** Why the harness is absent, said in the summary. */
  harnessOffReason?: string;
  store: Store;
  logger: Logger;
  /** Scenario files crash-tested per commit, beyond the cached ones. */
  maxRuns: number;
}

export interface CrashVerdicts {
  scenarioFiles: ScenarioFileTargets[];
  plans: ScenarioPlan[];
  /** `path.py:Qualname` of every touched function. */
  touchedTargets: ReadonlySet<string>;
  /** Changed paths, old names of renamed files included. */
  changedPaths: ReadonlySet<string>;
  reachesTouched: (target: string) => boolean;
  head: Judged;
  notes: string[];
}

export async function crashVerdicts(source: PullRequestSource, config: CrashprobeConfig, touched: TouchedWriters, deps: CrashVerdictDeps): Promise<CrashVerdicts> {
  const touchedTargets = new Set(touched.touched.map((t) => `${t.module.path}:${t.report.fn.qualname}`));
  const changedPaths = new Set(touched.changed.flatMap((f) => [f.path, ...(f.previousPath ? [f.previousPath] : [])]));
  const isScenario = pathFilter(config.scenarios, []);
  const scenarioFiles: ScenarioFileTargets[] = [];
  for (const p of touched.allPaths.filter((p) => isScenario(p))) {
    const text = (await source.readFile(p)) ?? '';
    scenarioFiles.push({ path: p, text, targets: scenarioTargets(text) });
  }
  const reachesTouched = callGraphReach(touched.index, touchedTargets);
  const plans = selectScenarios({
    scenarioFiles,
    touched: touchedTargets,
    changedPaths,
    lastFootprint: (p) => lastFootprint(deps.store, p),
    reachesTouched,
  });
  for (const plan of plans) deps.logger.info(`${plan.path}: runs (${plan.why})`);
  const head = await judgeScenarios({
    plans,
    commit: { name: 'head', readFile: (p) => source.readFile(p), checkout: () => source.checkout() },
    headCheckout: () => source.checkout(),
    targetSource: async (target) => {
      const found = await functionAt(touched.modules, target);
      return found && functionSource(found.module, found.fn.range.startLine, found.fn.range.endLine);
    },
    harness: deps.harness,
    store: deps.store,
    logger: deps.logger,
    maxRuns: deps.maxRuns,
  });
  return { scenarioFiles, plans, touchedTargets, changedPaths, reachesTouched, head, notes: harnessNotes(head, deps) };
}

/** What the harness did not do: it was off, a file failed, or the budget ran out. */
function harnessNotes(head: Judged, deps: CrashVerdictDeps): string[] {
  const off = head.notRun.size && !deps.harness ? [deps.harnessOffReason ?? 'The crash harness did not run.'] : [];
  const errors = head.errors.map((error) => `crash harness: ${error.file}: ${error.message}`);
  const reasons = [...head.notRun.values()];
  const budgeted = reasons.find((why) => why.startsWith('budget'));
  const budget = budgeted
    ? [`Only ${deps.maxRuns} scenario files are crash-tested per review; ${reasons.filter((w) => w === budgeted).length} more were not run.`]
    : [];
  return [...off, ...errors, ...budget];
}
