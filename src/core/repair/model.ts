// What a repair is, from the first candidate to the verdict on it. A repair
// rewrites one function (and, when it must, its module's imports and helpers);
// it is suggested only once the crash harness says it holds.
import type { ScenarioVerdict } from '../crash/protocol.ts';

export type RepairOrigin = 'deterministic' | 'llm';

export interface RepairCandidate {
  origin: RepairOrigin;
  /** The strategies applied, e.g. ["record-before-delete", "own-transaction"], or ["llm round 2"]. */
  strategies: string[];
  /** Module path relative to the repository root. */
  path: string;
  qualname: string;
  /** The whole module's new text. */
  source: string;
  /** One line a reviewer reads: what the repair does. */
  summary: string;
}

export interface RepairVerification {
  holds: boolean;
  /** Why it did not hold, in the words of the failing scenario. */
  reason?: string;
  /** Crash scenarios run (crash points × 2 crash kinds, both modes). */
  scenarios: number;
  verdicts: ScenarioVerdict[];
}

export interface RepairAttempt {
  candidate: RepairCandidate;
  verification: RepairVerification;
}

export interface RepairResult {
  path: string;
  qualname: string;
  /** The module text the repair started from. */
  original: string;
  /** The first candidate that held, if any. */
  verified?: RepairAttempt;
  /** Every candidate tried, in order (the verified one last when there is one). */
  attempts: RepairAttempt[];
  /** Why no candidate was even made (no strategy applies and no LLM configured, ...). */
  skipped?: string;
}
