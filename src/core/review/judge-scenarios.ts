// Crash verdicts for planned scenario files at one commit (the head, or the base),
// from the cache when nothing that decides them changed, else from one harness
// campaign. At the base the head's scenario file is run against the base's tree
// (the same test of the old code), its root the same folder inside the base checkout.
import path from 'node:path';
import { findRoot, type ScenarioFile } from '../crash/discover.ts';
import type { CampaignError, ScenarioVerdict } from '../crash/protocol.ts';
import type { HarnessRunner, Logger, Store } from '../ports.ts';
import type { ScenarioPlan } from './scenario-selection.ts';
import { cachedRecord, footprintOf, recordVerdicts, saveFootprint, saveRecord, sha256, verdictKey, type VerdictRecord } from './verdict-cache.ts';

export interface Commit {
  name: 'head' | 'base';
  readFile(path: string): Promise<string | undefined>;
  /** The tree the targets load from. */
  checkout(): Promise<string>;
}

export interface JudgeInput {
  plans: readonly ScenarioPlan[];
  commit: Commit;
  /** The head's tree, where the scenario files are. */
  headCheckout(): Promise<string>;
  /** A target's own source at this commit (part of the cache key); undefined when it is not there. */
  targetSource(target: string): Promise<string | undefined>;
  harness?: HarnessRunner;
  store: Store;
  logger: Logger;
  /** At most this many files are run (not counting cache hits); the rest are `budget`. */
  maxRuns: number;
}

export interface Judged {
  /** Verdicts with `file` set to the scenario's repository path. */
  verdicts: ScenarioVerdict[];
  /** Scenario files whose verdicts came from the cache. */
  cached: Set<string>;
  /** Scenario files not run, and why (`harness off`, `budget`, or the harness's own error). */
  notRun: Map<string, string>;
  errors: CampaignError[];
}

export async function judgeScenarios(input: JudgeInput): Promise<Judged> {
  const { commit, store } = input;
  const out: Judged = { verdicts: [], cached: new Set(), notRun: new Map(), errors: [] };
  const hashOf = async (p: string) => {
    const text = await commit.readFile(p);
    return text === undefined ? undefined : sha256(text);
  };
  const toRun: { plan: ScenarioPlan; key: string }[] = [];
  for (const plan of input.plans) {
    const sources = await Promise.all(plan.targets.map(async (t) => (await input.targetSource(t)) ?? `absent ${t}`));
    const key = verdictKey(plan.text, sources);
    const record = await cachedRecord(store, key, hashOf);
    if (record) {
      out.verdicts.push(...recordVerdicts(record, plan.path));
      out.cached.add(plan.path);
    } else toRun.push({ plan, key });
  }
  if (toRun.length === 0) return out;
  if (!input.harness) {
    for (const { plan } of toRun) out.notRun.set(plan.path, 'harness off');
    return out;
  }
  const running = toRun.slice(0, input.maxRuns);
  for (const { plan } of toRun.slice(input.maxRuns)) out.notRun.set(plan.path, `budget (${input.maxRuns} scenario files per review)`);
  if (running.length === 0) return out;
  const headTree = await input.headCheckout();
  const tree = commit.name === 'head' ? headTree : await commit.checkout();
  const files = running.map(({ plan }) => scenarioFileIn(headTree, tree, plan.path));
  input.logger.info(`crash-testing ${files.length} scenario file(s) at the ${commit.name}`);
  const result = await input.harness.run(files);
  running.forEach(({ plan, key }, i) => {
    const { file, root } = files[i]!;
    const mine = result.scenarios.filter((v) => path.resolve(v.root, v.file) === file);
    const errors = result.errors.filter((e) => path.resolve(root, e.file) === file);
    out.errors.push(...errors.map((e) => ({ ...e, file: plan.path })));
    if (mine.length === 0) {
      out.notRun.set(plan.path, errors[0]?.message ?? 'the harness gave no verdict');
      return;
    }
    const prefix = path.relative(tree, root).split(path.sep).join('/');
    const record: VerdictRecord = { verdicts: mine.map((v) => ({ ...v, file: plan.path })), ...footprintOf(mine, prefix) };
    // A file with errors besides verdicts (one scenario of several failed to load) is not cached: it runs again.
    if (errors.length === 0) saveRecord(store, key, record);
    if (commit.name === 'head') saveFootprint(store, plan.path, record);
    out.verdicts.push(...record.verdicts);
  });
  const known = new Set(files.map((f) => f.file));
  for (const e of result.errors) if (!files.some(({ root, file }) => path.resolve(root, e.file) === file) && !known.has(e.file)) out.errors.push(e);
  return out;
}

/**
 * The scenario file in the head's tree, and the root it is judged in: its nearest
 * .git/pyproject.toml inside the head's tree (else the top), the same folder in `tree`.
 */
export function scenarioFileIn(headTree: string, tree: string, relativePath: string): ScenarioFile {
  const file = path.join(headTree, relativePath);
  let root = headTree;
  try {
    const found = findRoot(file);
    if (found === headTree || found.startsWith(headTree + path.sep)) root = found;
  } catch {
    // no .git or pyproject.toml inside the checkout: its top is the root
  }
  return { file, root: path.join(tree, path.relative(headTree, root)) };
}
