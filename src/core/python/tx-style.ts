// The paper's static detector: which transaction style a function uses.
// Every pattern seen is recorded as evidence; the dominant one becomes the
// style, explicit_begin > mode_change > with_conn > none. A `with conn:`
// whose body issues BEGIN is therefore explicit_begin.
import type { PyFunction, PyModule, SyntaxNode, TxStyle, TxStyleResult } from './model.ts';
import { callParts, type CallParts } from './body-walk.ts';
import { scopeFacts } from './module-facts.ts';
import { resolveSameModuleHelper, type HelperResolver } from './effects.ts';
import { localAssignmentBefore } from './local-assignments.ts';
import { moduleConstants, resolveString, resolveStringAlternatives } from './string-value.ts';
import { splitSqlStatements, statementKind } from './sql.ts';
import { lineOf } from './source-range.ts';
import { executeAliasParts, mayBeExecuteAlias } from './execute-alias.ts';
import { memoizePer } from './memo.ts';

export type TxPattern =
  | 'begin-statement'
  | 'begin-immediate'
  | 'savepoint'
  | 'begin-in-script'
  | 'begin-via-helper'
  | 'isolation-level-assign'
  | 'autocommit-assign'
  | 'connect-isolation-level'
  | 'connect-autocommit'
  | 'module-connection-mode'
  | 'mode-change-via-helper'
  | 'with-conn'
  | 'with-connect-as';

const STYLE_OF_PATTERN: Record<TxPattern, Exclude<TxStyle, 'none'>> = {
  'begin-statement': 'explicit_begin',
  'begin-immediate': 'explicit_begin',
  savepoint: 'explicit_begin',
  'begin-in-script': 'explicit_begin',
  'begin-via-helper': 'explicit_begin',
  'isolation-level-assign': 'mode_change',
  'autocommit-assign': 'mode_change',
  'connect-isolation-level': 'mode_change',
  'connect-autocommit': 'mode_change',
  'module-connection-mode': 'mode_change',
  'mode-change-via-helper': 'mode_change',
  'with-conn': 'with_conn',
  'with-connect-as': 'with_conn',
};

const PRECEDENCE: TxStyle[] = ['explicit_begin', 'mode_change', 'with_conn'];

export interface TxEvidence {
  pattern: TxPattern;
  line: number;
}

export interface TxStyleOptions {
  resolveHelper?: HelperResolver;
}

export function detectTxStyle(fn: PyFunction, module: PyModule, options: TxStyleOptions = {}): TxStyleResult {
  const resolveHelper = options.resolveHelper ?? resolveSameModuleHelper;
  const evidence: TxEvidence[] = [...directPatterns(fn, module), ...moduleConnectionMode(fn, module)];
  for (const { node } of scopeFacts(module, fn.node).calls) {
    const helper = resolveHelper(node, fn, module);
    if (!helper || helper.fn.node.id === fn.node.id) continue;
    const styles = new Set(directPatterns(helper.fn, helper.module).map((found) => STYLE_OF_PATTERN[found.pattern]));
    if (styles.has('explicit_begin')) evidence.push({ pattern: 'begin-via-helper', line: lineOf(node) });
    if (styles.has('mode_change')) evidence.push({ pattern: 'mode-change-via-helper', line: lineOf(node) });
  }
  evidence.sort((a, b) => a.line - b.line);
  return { style: dominantStyle(evidence), evidence };
}

export function dominantStyle(evidence: readonly TxEvidence[]): TxStyle {
  const seen = new Set<TxStyle>(evidence.map((found) => STYLE_OF_PATTERN[found.pattern]));
  return PRECEDENCE.find((style) => seen.has(style)) ?? 'none';
}

const directCache = new WeakMap<PyFunction, readonly TxEvidence[]>();
/** The only calls that can show a pattern: SQL execution and opening a connection. */
const PATTERN_CALLEE = /(execute|executemany|executescript|connect)\s*$/;

/** The patterns written in the function itself, in source order. Cached: helpers are asked for by every caller. */
export function directPatterns(fn: PyFunction, module: PyModule): readonly TxEvidence[] {
  const cached = directCache.get(fn);
  if (cached) return cached;
  const facts = scopeFacts(module, fn.node);
  const found: { pattern: TxPattern; node: SyntaxNode }[] = [];
  for (const { node, callee } of facts.calls) {
    // `sql = self._sql; sql('BEGIN IMMEDIATE')`: an alias of execute opens a transaction as execute does.
    const parts = PATTERN_CALLEE.test(callee) ? callParts(node) : mayBeExecuteAlias(callee, module) ? executeAliasParts(node, module) : undefined;
    if (!parts) continue;
    for (const pattern of callPattern(parts, module)) found.push({ pattern, node });
  }
  for (const node of facts.modeAssignments) {
    const attribute = modeAttribute(node.childForFieldName('left'));
    if (attribute === 'isolation_level') found.push({ pattern: 'isolation-level-assign', node });
    if (attribute === 'autocommit') found.push({ pattern: 'autocommit-assign', node });
  }
  for (const node of facts.withItems) {
    const pattern = withItemPattern(node, fn);
    if (pattern) found.push({ pattern, node });
  }
  const evidence = found
    .map(({ pattern, node }) => ({ pattern, line: lineOf(node), at: node.startIndex }))
    .sort((a, b) => a.at - b.at)
    .map(({ pattern, line }) => ({ pattern, line }));
  directCache.set(fn, evidence);
  return evidence;
}

function callPattern(call: CallParts, module: PyModule): TxPattern[] {
  if (call.receiver && (call.method === 'execute' || call.method === 'executemany')) {
    // `"BEGIN IMMEDIATE" if own else "SAVEPOINT sp"` opens a transaction either way: the first pattern names it.
    const alternatives = resolveStringAlternatives(call.positional[0], module);
    return beginPatterns(alternatives.flatMap((value) => splitSqlStatements(value.text).slice(0, 1)), false).slice(0, 1);
  }
  if (call.receiver && call.method === 'executescript') {
    const text = resolveString(call.positional[0], module)?.text;
    return text === undefined ? [] : beginPatterns(splitSqlStatements(text), true).slice(0, 1);
  }
  if (isConnectCall(call)) {
    const patterns: TxPattern[] = [];
    if (call.keywords.has('isolation_level')) patterns.push('connect-isolation-level');
    if (call.keywords.has('autocommit')) patterns.push('connect-autocommit');
    return patterns;
  }
  return [];
}

function beginPatterns(statements: string[], inScript: boolean): TxPattern[] {
  const patterns: TxPattern[] = [];
  for (const statement of statements) {
    const kind = statementKind(statement);
    if (kind !== 'begin' && kind !== 'savepoint') continue;
    if (inScript) patterns.push('begin-in-script');
    else if (kind === 'savepoint') patterns.push('savepoint');
    else patterns.push(/^begin\s+(immediate|exclusive)\b/i.test(statement) ? 'begin-immediate' : 'begin-statement');
  }
  return patterns;
}

function isConnectCall(call: CallParts): boolean {
  return call.callee === 'sqlite3.connect' || call.callee === 'connect' || call.callee.endsWith('.sqlite3.connect');
}

function modeAttribute(left: SyntaxNode | null): string | undefined {
  if (left?.type !== 'attribute') return undefined;
  const name = left.childForFieldName('attribute')?.text;
  return name === 'isolation_level' || name === 'autocommit' ? name : undefined;
}

const CONNECTION_NAME = /^(conn|connection|con|cx|db|database|sqlite_conn|dbconn|db_conn)$|conn(ection)?$/i;

/** `with conn:` / `with self.conn:` / `with sqlite3.connect(...) as c:`; `closing(...)` never commits, so it is not one. */
function withItemPattern(item: SyntaxNode, fn: PyFunction): TxPattern | undefined {
  let value = item.childForFieldName('value');
  if (value?.type === 'as_pattern') value = value.namedChildren[0] ?? null;
  if (!value) return undefined;
  if (value.type === 'call') {
    return isConnectCall(callParts(value)) ? 'with-connect-as' : undefined;
  }
  if (value.type !== 'identifier' && value.type !== 'attribute') return undefined;
  const name = value.type === 'attribute' ? value.childForFieldName('attribute')?.text ?? '' : value.text;
  if (CONNECTION_NAME.test(name)) return 'with-conn';
  if (value.type === 'identifier') {
    const assigned = localAssignmentBefore(value);
    if (assigned?.type === 'call' && isConnectCall(callParts(assigned))) return 'with-conn';
    if (annotatedAsConnection(fn, name)) return 'with-conn';
  }
  return undefined;
}

function annotatedAsConnection(fn: PyFunction, name: string): boolean {
  const parameters = fn.node.childForFieldName('parameters')?.namedChildren ?? [];
  return parameters.some((param) => {
    if (param.type !== 'typed_parameter' && param.type !== 'typed_default_parameter') return false;
    const paramName = param.type === 'typed_parameter' ? param.namedChildren[0]?.text : param.childForFieldName('name')?.text;
    return paramName === name && /Connection\b/.test(param.childForFieldName('type')?.text ?? '');
  });
}

/** Module-level `NAME = sqlite3.connect(..., isolation_level=...)`: connections born in a changed mode. */
const modeConnections = memoizePer((module: PyModule): { name: string; line: number }[] => {
  const found: { name: string; line: number }[] = [];
  for (const [name, value] of moduleConstants(module)) {
    if (value.type !== 'call') continue;
    const parts = callParts(value);
    if (isConnectCall(parts) && (parts.keywords.has('isolation_level') || parts.keywords.has('autocommit'))) found.push({ name, line: lineOf(value) });
  }
  return found;
});

/** A module-level connection opened in a changed mode that the function uses. */
function moduleConnectionMode(fn: PyFunction, module: PyModule): TxEvidence[] {
  const connections = modeConnections(module);
  if (connections.length === 0) return [];
  const body = fn.node.childForFieldName('body')?.text ?? '';
  return connections
    .filter(({ name }) => new RegExp(`(^|[^\\w.])${name}\\b`).test(body))
    .map(({ line }) => ({ pattern: 'module-connection-mode' as const, line }));
}
