// The data model of crashprobe's Python static analysis. Every module under
// src/core/python/ speaks these types; the review, the audit planner and the
// repairs consume them. Lines are 1-based, columns 0-based (tree-sitter's).
import type Parser from 'tree-sitter';

export type SyntaxNode = Parser.SyntaxNode;

export interface SourceRange {
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
}

/** A parsed Python file. `tree` is kept so rules and repairs can walk it. */
export interface PyModule {
  /** Path relative to the repository root, with forward slashes. */
  path: string;
  source: string;
  tree: Parser.Tree;
  /** Syntax errors tree-sitter recovered from; analysis goes on around them. */
  errors: SourceRange[];
  /** Why the file was only partly analysed (not UTF-8, too large, ...). */
  notes: string[];
}

export interface PyFunction {
  /** `Class.method`, `outer.inner`, or `name` for a top-level function. */
  qualname: string;
  name: string;
  /** Enclosing class name, when the function is a method. */
  className?: string;
  range: SourceRange;
  /** `def name(params) -> ret:` as written, on one line. */
  signature: string;
  params: string[];
  isAsync: boolean;
  node: SyntaxNode;
}

export type SqlKind = 'read' | 'write' | 'ddl' | 'begin' | 'savepoint' | 'release' | 'commit' | 'rollback' | 'pragma' | 'unknown';

export interface SqlInfo {
  kind: SqlKind;
  /** Tables the statement names (lower-cased), best effort. */
  tables: string[];
  /** The SQL text as resolved statically; undefined when it could not be. */
  text?: string;
  /** How the text was resolved: a literal, an f-string, a concatenation, a `%`/.format template, a module constant. */
  resolvedFrom?: 'literal' | 'fstring' | 'concat' | 'format' | 'constant' | 'unresolved';
}

export type EffectKind =
  | 'db-read'
  | 'db-write'
  | 'db-ddl'
  | 'db-script'
  | 'db-begin'
  | 'db-commit'
  | 'db-rollback'
  | 'file-write'
  | 'file-rename'
  | 'file-replace'
  | 'file-delete'
  | 'send';

export interface Effect {
  kind: EffectKind;
  /** The call as written, shortened: `conn.execute`, `open`, `os.replace`, `mailer.send`. */
  call: string;
  range: SourceRange;
  node: SyntaxNode;
  sql?: SqlInfo;
  /** For file effects: the `open` mode, when known. */
  mode?: string;
  /** Set when the effect was found inside a same-repository helper that this function calls. */
  via?: { qualname: string; path: string; line: number };
  /** With `via`: the helper's own call, in the helper's tree (where the effect really runs, for questions about its surroundings there). */
  viaNode?: SyntaxNode;
  /** Inside a for/while loop of the function. */
  inLoop: boolean;
  /** For sends: an idempotency key is passed. */
  idempotencyKey?: boolean;
}

export type TxStyle = 'explicit_begin' | 'with_conn' | 'mode_change' | 'none';

export interface TxStyleResult {
  style: TxStyle;
  /** Every pattern seen, with where (a function may show several; `style` is the dominant one). */
  evidence: { pattern: string; line: number }[];
}

export type Severity = 'error' | 'warning' | 'info';

/** How much a severity weighs when findings are ranked (worst first): one scale for the whole review. */
export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { error: 3, warning: 2, info: 1 };

export interface Finding {
  /** Stable id: rule id + path + qualname + normalized code hash (not the line number). */
  id: string;
  ruleId: string;
  messageId: string;
  message: string;
  severity: Severity;
  path: string;
  function?: string;
  range: SourceRange;
  /** The repair a reviewer would suggest, one line. */
  hint: string;
}

export interface FunctionReport {
  fn: PyFunction;
  effects: Effect[];
  txStyle: TxStyleResult;
  findings: Finding[];
  /** True when some effect changes the outside world (db write/ddl/script/commit, file, send). */
  writes: boolean;
}
