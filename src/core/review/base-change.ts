// Head against base: what a change did to each crash-tested function. The class at
// the base and at the head, compared on one scale (safe by design < safe by accident
// < unsafe < not working), then full crash safety and double-applying within a class.
// The lines lead the review: "`put`: safe by design at base → unsafe at this head".
import { inertCodeSpan } from '../render/inert.ts';
import { fill, raw } from '../render/template.ts';
import type { BaseComparison, FunctionClass, FunctionVerdict } from '../model/review.ts';

const WORDS: Record<FunctionClass, string> = {
  unsafe: 'unsafe',
  safe_by_accident: 'safe by accident',
  safe_by_design: 'safe by design',
  not_working: 'not working',
  untested: 'not crash-tested',
};

/** Worse is higher. A function that stops working is the worst a change can do to it. */
const SCALE: Record<Exclude<FunctionClass, 'untested'>, number> = { safe_by_design: 0, safe_by_accident: 1, unsafe: 2, not_working: 3 };

export interface Judged {
  class: FunctionClass;
  fullyCrashSafe?: boolean;
  doubleApplies?: boolean;
}

function describe(j: Judged): string {
  const extra: string[] = [];
  if (j.class !== 'not_working' && j.class !== 'untested') {
    if (j.doubleApplies) extra.push('double-applies');
    if (j.fullyCrashSafe === false && j.class === 'safe_by_design') extra.push('not fully crash-safe');
  }
  return extra.length ? `${WORDS[j.class]} (${extra.join(', ')})` : WORDS[j.class];
}

/** Compares one function's verdict at the head with its verdict at the base ('absent': not at the base). */
export function compareWithBase(head: Judged, base: Judged | 'absent'): BaseComparison {
  if (base === 'absent') return { class: 'absent', change: 'new', text: `new in this change: ${describe(head)}` };
  const comparison = { class: base.class, fullyCrashSafe: base.fullyCrashSafe, doubleApplies: base.doubleApplies };
  if (head.class === 'untested' || base.class === 'untested') return { ...comparison, change: 'unchanged', text: `${describe(base)} at base, ${describe(head)} at this head` };
  const step = SCALE[head.class] - SCALE[base.class];
  // Within one class: losing full crash safety or starting to double-apply is worse.
  const within = step !== 0 ? 0 : Number(Boolean(head.doubleApplies)) - Number(Boolean(base.doubleApplies)) || Number(base.fullyCrashSafe === true && head.fullyCrashSafe === false) - Number(base.fullyCrashSafe === false && head.fullyCrashSafe === true);
  const change = step > 0 || within > 0 ? 'regression' : step < 0 || within < 0 ? 'improvement' : 'unchanged';
  const after = change === 'improvement' && head.class === 'safe_by_design' && head.fullyCrashSafe !== false && !head.doubleApplies ? `fixed (${describe(head)})` : change === 'improvement' && base.class === 'not_working' ? `fixed, ${describe(head)}` : describe(head);
  return { ...comparison, change, text: change === 'regression' ? `${describe(base)} at base → ${describe(head)} at this head` : `${describe(base)} at base → ${after}` };
}

/** The markdown that leads the summary: regressions first, then improvements; '' when the change made no difference. */
export function baseChangeLead(functions: readonly FunctionVerdict[], failsCheck: boolean): string {
  const line = (fn: FunctionVerdict, kind: 'regression' | 'improvement') => {
    const base = fn.base!;
    const [before, after] = base.text.split(' → ');
    return fill(kind === 'regression' ? 'base-change-regression' : 'base-change-improvement', {
      target: raw(inertCodeSpan(fn.qualname)),
      before: (before ?? '').replace(/ at base$/, ''),
      after: (after ?? '').replace(/ at this head$/, ''),
    });
  };
  const regressions = functions.filter((f) => f.base?.change === 'regression');
  const improvements = functions.filter((f) => f.base?.change === 'improvement');
  if (regressions.length + improvements.length === 0) return '';
  const lines = [...regressions.map((f) => line(f, 'regression')), ...improvements.map((f) => line(f, 'improvement'))];
  const footer = regressions.length
    ? failsCheck
      ? 'A regression against the base fails this check (`fail_on`).'
      : 'A regression against the base; `fail_on: never` keeps this check from failing.'
    : '';
  return fill('base-changes', { lines: raw(lines.join('\n')), footer: raw(footer) });
}
