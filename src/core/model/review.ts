// The value the review pipeline produces (the core's vocabulary: functions, findings, the Review). Adapters only render or post it.
import type { Failure, ScenarioClass } from '../crash/protocol.ts';
import type { Severity, SourceRange, TxStyle } from '../python/model.ts';

export type FunctionClass = ScenarioClass | 'untested';

/** One touched function that writes, with its verdicts. */
export interface FunctionVerdict {
  path: string;
  qualname: string;
  range: SourceRange;
  txStyle: TxStyle;
  /** Short effect list for the summary, e.g. ["db-write orders", "send"]. */
  effects: string[];
  class: FunctionClass;
  /** Per mode: works / half-updated, from the crash harness; absent when untested. */
  modes?: { default: string; autocommit: string };
  doubleApplies?: boolean;
  fullyCrashSafe?: boolean;
  /** The worst failing crash scenario, shown as the paper's Figure 1. */
  worst?: Failure;
  /** How many crash scenarios were run (both modes, both crash kinds). */
  scenariosRun: number;
  /** True when the verdict came from the cache (the function and its scenario did not change). */
  cached?: boolean;
  findingIds: string[];
  /** A ready scenario file for a writing function with none, for the maintainer to fill in. */
  scenarioTemplate?: string;
  /** Why a function that has a scenario was not crash-tested: `fork`, `harness off`, `budget`, the harness's error, or that its file gave no verdict for it. */
  notRunBecause?: string;
  /** True when the function is not touched itself but its scenario's run executes code the change touches. */
  affected?: boolean;
  /** The same function judged at the base commit, and what the change did to it. */
  base?: BaseComparison;
}

/** What a change did to a function's crash safety: its class at the base and at the head. */
export interface BaseComparison {
  /** The class at the base; 'absent' when the function does not exist there. */
  class: FunctionClass | 'absent';
  fullyCrashSafe?: boolean;
  doubleApplies?: boolean;
  /** regression: worse at the head; improvement: better; unchanged; new: not at the base. */
  change: 'regression' | 'improvement' | 'unchanged' | 'new';
  /** One line for the review, e.g. "safe by design at base → unsafe at this head". */
  text: string;
  cached?: boolean;
}

export interface ReviewFinding {
  /** Stable fingerprint: rule or class, path and normalized code, not the line number. */
  fingerprint: string;
  ruleId: string;
  source: 'static' | 'crash' | 'audit';
  severity: Severity;
  path: string;
  function?: string;
  range: SourceRange;
  title: string;
  message: string;
  hint?: string;
  /** A crash scenario that confirms the finding. */
  confirmedBy?: Failure;
  /** A repair as a suggestion (lines replaced, new text), when one was verified. */
  suggestion?: {
    startLine: number;
    endLine: number;
    text: string;
    verified: string;
    /** Set when the replaced lines are not all inside one hunk of the diff: a unified diff shown collapsed instead. */
    diff?: string;
  };
}

export interface InlineComment {
  path: string;
  /** New-side line; checked to be inside a hunk of the diff before posting. */
  line: number;
  startLine?: number;
  body: string;
  fingerprint: string;
  severity: Severity;
}

export interface Annotation {
  path: string;
  startLine: number;
  endLine: number;
  level: 'failure' | 'warning' | 'notice';
  title: string;
  message: string;
}

export type Conclusion = 'success' | 'failure' | 'neutral' | 'action_required';

export interface Review {
  repository: string;
  headSha: string;
  functions: FunctionVerdict[];
  findings: ReviewFinding[];
  /** Markdown of the one sticky summary comment. */
  summary: string;
  comments: InlineComment[];
  conclusion: Conclusion;
  checkTitle: string;
  /** Markdown for the check run's output (at most 65,535 characters). */
  checkSummary: string;
  annotations: Annotation[];
  counts: Record<FunctionClass, number>;
  notes: string[];
  /** Verified repairs as whole files, for `crashprobe review --fix` (one per module). */
  repairs?: { path: string; qualname: string; original: string; source: string; verified: string }[];
}
