// The shape of a crash-safety rule, after ESLint's: `meta` says what the rule
// is and how it speaks; `create(context)` returns listeners keyed by
// tree-sitter node type, which the runner calls while it walks one function.
import type { Effect, PyFunction, PyModule, Severity, SourceRange, SyntaxNode, TxStyleResult } from '../model.ts';

/** Which guarantee a rule is about; the stdlib review holds the sqlite ones to zero false positives. */
export type RuleCategory = 'sqlite-transaction' | 'file' | 'outside-effect';

export interface RuleMeta<MessageId extends string = string> {
  id: string;
  description: string;
  category: RuleCategory;
  severity: Severity;
  /** One-line message templates; `{{name}}` is filled from the report's `data`. */
  messages: Record<MessageId, string>;
  /** A message that deserves another severity than the rule's (a milder variant, say). */
  messageSeverity?: Partial<Record<MessageId, Severity>>;
  /** The one-line repair a reviewer would give. */
  hint: string;
}

export interface ReportDescriptor<MessageId extends string = string> {
  /** The node the finding anchors to; its normalized text feeds the finding's id. */
  node: SyntaxNode;
  /** A narrower or wider range than the node's, when the node alone would mislead. */
  range?: SourceRange;
  messageId: MessageId;
  data?: Record<string, string | number>;
}

export interface RuleContext<MessageId extends string = string> {
  module: PyModule;
  fn: PyFunction;
  /** The function's effects in source order, nested functions' own effects left out. */
  effects: readonly Effect[];
  txStyle: TxStyleResult;
  report(descriptor: ReportDescriptor<MessageId>): void;
}

/** Called for each node of that type in the function's body, in source order. */
export type NodeListener = (node: SyntaxNode) => void;

export interface RuleListener {
  [nodeType: string]: NodeListener | (() => void) | undefined;
  /** Called once, after the walk: for rules that judge the function as a whole. */
  'function:exit'?: () => void;
}

export interface Rule<MessageId extends string = string> {
  meta: RuleMeta<MessageId>;
  create(context: RuleContext<MessageId>): RuleListener;
}

/** Keeps the message ids of a rule literal checked against its `messages`. */
export function defineRule<MessageId extends string>(rule: Rule<MessageId>): Rule<MessageId> {
  return rule;
}
