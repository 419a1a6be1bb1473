// One deterministic repair: a pattern the static checks name, rewritten on the
// tree-sitter tree. A strategy returns undefined when its pattern is not there
// in a shape it can rewrite safely; the LLM (if any) gets the function then.
import type { PyFunction, PyModule, SyntaxNode } from '../../python/model.ts';
import { callParts } from '../../python/body-walk.ts';

export interface StrategyInput {
  module: PyModule;
  fn: PyFunction;
  /** True when the function's scenario says the job is built to resume (per-item transactions then). */
  resumable: boolean;
  /** The strategies already applied to this candidate, in order. */
  applied?: readonly string[];
}

export interface StrategyOutput {
  source: string;
  summary: string;
}

export interface RepairStrategy {
  id: string;
  /** The static rules whose findings this strategy answers; empty: it looks for its own shape in any function. */
  answers: readonly string[];
  /** Also tried after one of these strategies changed the function (a move that leaves writes needing a transaction). */
  alsoWhen?: readonly string[];
  apply(input: StrategyInput): StrategyOutput | undefined;
}

/** `conn.commit()` written as a statement of its own: the receiver's text, or undefined. */
export function commitReceiver(statement: SyntaxNode): string | undefined {
  if (statement.type !== 'expression_statement') return undefined;
  const call = statement.namedChildren[0];
  if (call?.type !== 'call') return undefined;
  const parts = callParts(call);
  if (parts.method !== 'commit' || parts.positional.length || parts.keywords.size || !parts.receiver) return undefined;
  return parts.receiver.text;
}

/** The statements of a block, comments left out. */
export function statementsOf(block: SyntaxNode): SyntaxNode[] {
  return block.namedChildren.filter((n) => n.type !== 'comment');
}
