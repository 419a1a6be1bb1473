// Stage 4, judgement, head against base: every function judged at the head is judged
// at the base too, where it exists there, by the same scenario files run against the
// base's tree (cached by content like the head's), and compared: a regression, an
// improvement, unchanged, or new in this change.
import type { ChangedFile, HarnessRunner, Logger, PullRequestSource, Store } from '../ports.ts';
import { listFunctions } from '../python/functions.ts';
import { parseModule } from '../python/parse.ts';
import type { PyModule } from '../python/model.ts';
import { compareWithBase } from './base-change.ts';
import { worstClass } from './conclusion.ts';
import { judgeScenarios } from './judge-scenarios.ts';
import type { BaseComparison, FunctionClass, FunctionVerdict } from '../model/review.ts';
import type { ScenarioPlan } from './scenario-selection.ts';

export interface BaseInput {
  source: PullRequestSource;
  plans: readonly ScenarioPlan[];
  functions: readonly FunctionVerdict[];
  changed: readonly ChangedFile[];
  harness?: HarnessRunner;
  store: Store;
  logger: Logger;
  maxRuns: number;
}

/** The functions, each with what the change did to it (`base`) as a new value; with the notes to add to the review. */
export async function judgeAgainstBase(input: BaseInput): Promise<{ functions: FunctionVerdict[]; notes: string[] }> {
  const { comparisons, notes } = await judgeBase(input);
  const functions = input.functions.map((f) => {
    const comparison = comparisons.get(`${f.path}:${f.qualname}`);
    return comparison ? { ...f, base: comparison } : f;
  });
  return { functions, notes };
}

/** Target → what the change did to it; with the notes to add to the review. */
async function judgeBase(input: BaseInput): Promise<{ comparisons: Map<string, BaseComparison>; notes: string[] }> {
  const comparisons = new Map<string, BaseComparison>();
  const notes: string[] = [];
  const { source } = input;
  const judgedAtHead = input.functions.filter((f) => f.class !== 'untested');
  if (judgedAtHead.length === 0) return { comparisons, notes };
  const readBase = source.readBaseFile?.bind(source);
  const checkoutBase = source.checkoutBase?.bind(source);
  if (!readBase || !checkoutBase) {
    notes.push('The base commit was not judged: this source cannot read it.');
    return { comparisons, notes };
  }
  const renamed = new Set(input.changed.filter((f) => f.status === 'renamed').map((f) => f.path));
  const baseModules = new Map<string, PyModule | undefined>();
  const baseModule = async (p: string) => {
    if (!baseModules.has(p)) {
      const text = await readBase(p);
      baseModules.set(p, text === undefined ? undefined : parseModule(p, text));
    }
    return baseModules.get(p);
  };
  const baseSourceOf = async (target: string) => {
    const at = target.lastIndexOf(':');
    const module = await baseModule(target.slice(0, at));
    const fn = module && listFunctions(module).find((f) => f.qualname === target.slice(at + 1));
    return module && fn ? module.source.split('\n').slice(fn.range.startLine - 1, fn.range.endLine).join('\n') : undefined;
  };
  const atBase = new Set<string>();
  for (const f of judgedAtHead) {
    const target = `${f.path}:${f.qualname}`;
    if (renamed.has(f.path)) {
      notes.push(`${target}: its file was renamed in this change; it was not judged at the base.`);
      continue;
    }
    if ((await baseSourceOf(target)) === undefined) comparisons.set(target, compareWithBase(f, 'absent'));
    else atBase.add(target);
  }
  // Only scenario files all of whose targets exist at the base (a target missing there cannot be loaded).
  const plans: ScenarioPlan[] = [];
  for (const plan of input.plans) {
    if (!plan.targets.some((t) => atBase.has(t))) continue;
    const present = await Promise.all(plan.targets.map(async (t) => (await baseSourceOf(t)) !== undefined));
    if (present.every(Boolean)) plans.push(plan);
  }
  if (plans.length === 0) return { comparisons, notes };
  const base = await judgeScenarios({
    plans,
    commit: { name: 'base', readFile: readBase, checkout: checkoutBase },
    headCheckout: () => source.checkout(),
    targetSource: baseSourceOf,
    harness: input.harness,
    store: input.store,
    logger: input.logger,
    maxRuns: input.maxRuns,
  });
  for (const [file, why] of base.notRun) notes.push(`${file} was not judged at the base (${why}).`);
  for (const f of judgedAtHead) {
    const target = `${f.path}:${f.qualname}`;
    const mine = base.verdicts.filter((v) => v.target === target);
    if (!atBase.has(target) || mine.length === 0) continue;
    const judged = {
      class: worstClass(mine.map((v): FunctionClass => v.class)),
      fullyCrashSafe: mine.every((v) => v.fully_crash_safe),
      doubleApplies: mine.some((v) => v.double_applies),
    };
    const comparison = compareWithBase(f, judged);
    comparisons.set(target, mine.every((v) => base.cached.has(v.file)) ? { ...comparison, cached: true } : comparison);
  }
  return { comparisons, notes };
}
