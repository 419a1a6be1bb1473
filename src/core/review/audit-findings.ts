// Stage 6: the LLM audit, when a model is configured: its findings join the
// static and crash findings (one it agrees with corroborates that finding).
// Without a model the findings pass through as they are.
import type { AuditConfig } from '../config/schema.ts';
import { auditChange } from '../audit/review-audit.ts';
import type { FunctionVerdict, ReviewFinding } from '../model/review.ts';
import type { LlmClient, Logger, PullRequestSource, Store } from '../ports.ts';
import type { TouchedWriters } from './touched-writers.ts';

export interface AuditStageInput {
  source: PullRequestSource;
  audit: AuditConfig;
  touched: Pick<TouchedWriters, 'index' | 'changes'>;
  functions: readonly FunctionVerdict[];
  /** The static and crash findings after matching. */
  findings: readonly ReviewFinding[];
}

export async function auditFindings(input: AuditStageInput, deps: { llm?: LlmClient; store: Store; logger: Logger }): Promise<{ findings: ReviewFinding[]; notes: string[] }> {
  if (!deps.llm) return { findings: [...input.findings], notes: [] };
  const { index, changes } = input.touched;
  return auditChange(
    { source: input.source, audit: input.audit, index, changes, functions: input.functions, existing: input.findings },
    { llm: deps.llm, store: deps.store, logger: deps.logger },
  );
}
