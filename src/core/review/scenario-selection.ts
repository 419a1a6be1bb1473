// Which scenario files a review runs. Every scenario whose target the change
// touches runs, whatever static analysis thinks of the target (a decorator-built
// statement, an alias or a helper can hide a write from it). So does every
// scenario whose target calls touched code: known from the functions its last
// run executed and the files it imported (kept with the cached verdict), or,
// for a scenario never run here, from the static call graph. A changed scenario
// file runs too.
import type { RepoIndex } from '../python/callgraph.ts';
import type { ScenarioFootprint } from './verdict-cache.ts';

export interface ScenarioPlan {
  path: string;
  text: string;
  targets: string[];
  /** Why it runs, for the log: `target touched`, `calls touched code`, `scenario changed`. */
  why: string;
}

export interface SelectionInput {
  scenarioFiles: readonly { path: string; text: string; targets: string[] }[];
  /** `path.py:Qualname` of every function the change touches. */
  touched: ReadonlySet<string>;
  /** Repository paths of the changed files. */
  changedPaths: ReadonlySet<string>;
  lastFootprint(scenarioPath: string): ScenarioFootprint | undefined;
  /** True when the static call graph sees the target reach a touched function. */
  reachesTouched(target: string): boolean;
}

export function selectScenarios(input: SelectionInput): ScenarioPlan[] {
  const plans: ScenarioPlan[] = [];
  for (const file of input.scenarioFiles) {
    if (file.targets.length === 0) continue;
    const why = reason(file, input);
    if (why) plans.push({ ...file, why });
  }
  return plans;
}

function reason(file: SelectionInput['scenarioFiles'][number], input: SelectionInput): string | undefined {
  if (file.targets.some((t) => input.touched.has(t))) return 'target touched';
  if (input.changedPaths.has(file.path)) return 'scenario changed';
  const footprint = input.lastFootprint(file.path);
  if (footprint) {
    if (footprint.executed.some((fn) => input.touched.has(fn))) return 'its last run executed touched code';
    if (footprint.imports.some((p) => input.changedPaths.has(p))) return 'its last run imported a changed file';
    return undefined;
  }
  if (file.targets.some((t) => input.reachesTouched(t))) return 'calls touched code (call graph)';
  return undefined;
}

/** Whether `target` reaches any of `touched` through resolved calls (breadth first, bounded). */
export function callGraphReach(index: RepoIndex, touched: ReadonlySet<string>, maxDepth = 8): (target: string) => boolean {
  const callees = new Map<string, string[]>();
  for (const edge of index.edges) {
    const from = `${edge.from.path}:${edge.from.qualname}`;
    const list = callees.get(from) ?? [];
    for (const t of edge.targets) list.push(`${t.path}:${t.qualname}`);
    callees.set(from, list);
  }
  return (target) => {
    const seen = new Set([target]);
    let frontier = [target];
    for (let depth = 0; depth < maxDepth && frontier.length; depth++) {
      const next: string[] = [];
      for (const fn of frontier) {
        for (const callee of callees.get(fn) ?? []) {
          if (touched.has(callee)) return true;
          if (!seen.has(callee)) {
            seen.add(callee);
            next.push(callee);
          }
        }
      }
      frontier = next;
    }
    return false;
  };
}
