import type { CrashprobeConfig } from '../config/schema.ts';
import type { BaseComparison, Conclusion, FunctionClass } from '../model/review.ts';

/**
 * The check's conclusion. `fail_on` names the classes that fail it; a regression
 * against the base (a function the change made worse: a worse class, newly
 * double-applying, no longer fully crash-safe, no longer working) fails it under
 * any `fail_on` but `never`, which makes it neutral.
 */
export function conclusionFor(classes: readonly FunctionClass[], failOn: CrashprobeConfig['fail_on'], changes: readonly (BaseComparison | undefined)[] = []): Conclusion {
  const regressed = changes.some((c) => c?.change === 'regression');
  if (failOn === 'never') return regressed || classes.includes('unsafe') || classes.includes('safe_by_accident') ? 'neutral' : 'success';
  const failing: FunctionClass[] = failOn === 'unsafe' ? ['unsafe'] : ['unsafe', 'safe_by_accident'];
  return regressed || classes.some((c) => failing.includes(c)) ? 'failure' : 'success';
}

const RANK: Record<FunctionClass, number> = { unsafe: 4, safe_by_accident: 3, not_working: 2, untested: 1, safe_by_design: 0 };

export function worstClass(classes: readonly FunctionClass[]): FunctionClass {
  return [...classes].sort((a, b) => RANK[b] - RANK[a])[0] ?? 'untested';
}

export function classRank(value: FunctionClass): number {
  return RANK[value];
}
