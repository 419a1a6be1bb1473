import type { CrashprobeConfig } from '../config/schema.ts';
import type { Conclusion, FunctionClass } from './model.ts';

export function conclusionFor(classes: readonly FunctionClass[], failOn: CrashprobeConfig['fail_on']): Conclusion {
  if (failOn === 'never') return classes.includes('unsafe') || classes.includes('safe_by_accident') ? 'neutral' : 'success';
  const failing: FunctionClass[] = failOn === 'unsafe' ? ['unsafe'] : ['unsafe', 'safe_by_accident'];
  return classes.some((c) => failing.includes(c)) ? 'failure' : 'success';
}

const RANK: Record<FunctionClass, number> = { unsafe: 4, safe_by_accident: 3, not_working: 2, untested: 1, safe_by_design: 0 };

export function worstClass(classes: readonly FunctionClass[]): FunctionClass {
  return [...classes].sort((a, b) => RANK[b] - RANK[a])[0] ?? 'untested';
}

export function classRank(value: FunctionClass): number {
  return RANK[value];
}
