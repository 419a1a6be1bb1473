// Which failing crash scenario to show for a verdict: the one that best explains its
// class. The review's Figure-1 table and the terminal report both show this one.
import type { Failure, ScenarioVerdict } from './protocol.ts';

const OUTCOME_RANK = { 'double-applied': 3, 'rerun-hangs': 2.5, 'rerun-fails': 2, 'half-done': 1, recovered: 0 } as const;

/** A half-updating crash in the mode that decides the class first, a repeated normal run last. */
export function worstFailureOf(verdict: ScenarioVerdict): Failure | undefined {
  const explainsClass = (f: Failure) =>
    (verdict.class === 'unsafe' && f.mode === 'default') || (verdict.class === 'safe_by_accident' && f.mode === 'autocommit');
  const score = (f: Failure) =>
    (f.half_updated ? 100 : 0) + (f.crash !== 'none' ? 50 : 0) + (explainsClass(f) ? 20 : 0) + (f.mode === 'default' ? 5 : 0) +
    OUTCOME_RANK[f.outcome] + (f.crash === 'hard' ? 0.5 : 0);
  return [...verdict.failures].sort((a, b) => score(b) - score(a))[0];
}
