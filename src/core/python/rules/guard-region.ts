// Whether everything a schema guard could skip on a re-run is known: the calls inside the guard around a DDL
// statement (the outermost if/for/while holding it, in the function that runs it) are the database calls the effects
// name, or calls that write nothing (builtins, str methods, fetches, logging). A call the reader did not follow (a
// method of another object, another module's function) might write, and the re-run's guard would skip that write
// with the DDL; then the guard proves nothing about the rest of the work.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { statementCall } from './listed-table-drop.ts';
import { sqlTemplate } from './schema-guarded-ddl.ts';

const GUARDS = new Set(['if_statement', 'for_statement', 'while_statement']);
const BUILTINS = new Set(['len', 'str', 'int', 'float', 'bool', 'list', 'tuple', 'set', 'dict', 'sorted', 'reversed', 'enumerate', 'range', 'zip', 'isinstance', 'min', 'max', 'any', 'all', 'repr']);
const PURE_METHODS = new Set(['join', 'format', 'lower', 'upper', 'strip', 'lstrip', 'rstrip', 'split', 'replace', 'startswith', 'endswith', 'fetchone', 'fetchall', 'fetchmany']);
const LOGGERS = /^(?:self\.)?_?(?:logger|log|logging|LOGGER|LOG)$/;

/** True when every call in the outermost guard around the DDL's statement is a traced database call or writes nothing. */
export function guardRegionCallsKnown(ddl: Effect, effects: readonly Effect[], fn: PyFunction, module: PyModule): boolean {
  const located = statementCall(ddl, fn, module);
  if (!located) return false;
  const { call, fn: holder } = located;
  let region: SyntaxNode | undefined;
  for (let at = call.parent; at && at.id !== holder.node.id; at = at.parent) {
    if (at.type === 'function_definition' || at.type === 'lambda' || at.type === 'class_definition') return false;
    if (GUARDS.has(at.type)) region = at;
  }
  if (!region) return false;
  // The effects' own calls in the holder's tree: this function's calls, or the helper's (by place, since a helper in
  // another module has a tree of its own).
  const traced = new Set(
    effects
      .map((effect) => (ddl.via ? (effect.via?.qualname === ddl.via.qualname && effect.via.path === ddl.via.path ? effect.viaNode : undefined) : effect.node))
      .filter((node): node is SyntaxNode => node !== undefined)
      .map((node) => `${node.startIndex}:${node.endIndex}`),
  );
  return region.descendantsOfType('call').every((inner) => traced.has(`${inner.startIndex}:${inner.endIndex}`) || writesNothing(inner));
}

function writesNothing(call: SyntaxNode): boolean {
  const callee = call.childForFieldName('function');
  if (callee?.type === 'identifier') return BUILTINS.has(callee.text);
  if (callee?.type !== 'attribute') return false;
  const method = callee.childForFieldName('attribute')?.text ?? '';
  const receiver = callee.childForFieldName('object');
  if (PURE_METHODS.has(method)) return true;
  return receiver !== null && LOGGERS.test(receiver.text) && ['debug', 'info', 'warning', 'warn', 'error', 'exception', 'critical'].includes(method);
}

// ---------------------------------------------------------------------------------------------------------------
// Whether a later write depends on a value the re-run sees differently. A schema change a re-run completes (guarded
// by a read of the schema, or its failure swallowed) leaves the writes after it undone by a crash; the re-run makes
// them only if their own conditions come out the same. A condition computed from the schema before the change (the
// PRAGMA rows, a `created` flag, a column list read before the try) comes out the other way on the re-run, which
// then skips the write for good.

const JUMPS = ['return_statement', 'raise_statement', 'break_statement', 'continue_statement'];
const SCOPES = new Set(['function_definition', 'lambda', 'class_definition']);

/** Whether the node sits in a function, lambda or class nested inside fnNode. */
function nestedScope(node: SyntaxNode, fnNode: SyntaxNode): boolean {
  for (let at = node.parent; at && at.id !== fnNode.id; at = at.parent) if (SCOPES.has(at.type)) return true;
  return false;
}

/** The tests of a guard: an if's condition and each elif's, a for's iterable, a while's condition. */
function testsOf(guard: SyntaxNode): SyntaxNode[] {
  if (guard.type === 'for_statement') return [guard.childForFieldName('right')].filter((node): node is SyntaxNode => node !== null);
  const tests = [guard.childForFieldName('condition')];
  if (guard.type === 'if_statement') {
    for (const part of guard.namedChildren) if (part.type === 'elif_clause') tests.push(part.childForFieldName('condition'));
  }
  return tests.filter((node): node is SyntaxNode => node !== null);
}

/**
 * The tests a statement's running depends on, in the function: the if/for/while around it, and every if/for/while
 * that ends before it and can jump out (return, raise, break, continue), as `if rows: return` does.
 */
export function guardTestsOf(node: SyntaxNode, fnNode: SyntaxNode): SyntaxNode[] {
  const tests: SyntaxNode[] = [];
  for (let at = node.parent; at && at.id !== fnNode.id; at = at.parent) if (GUARDS.has(at.type)) tests.push(...testsOf(at));
  for (const guard of fnNode.descendantsOfType([...GUARDS])) {
    if (guard.endIndex > node.startIndex || nestedScope(guard, fnNode)) continue;
    if (guard.descendantsOfType(JUMPS).some((jump) => !nestedScope(jump, guard))) tests.push(...testsOf(guard));
  }
  return tests;
}

const PATTERNS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern', 'parenthesized_expression', 'list_splat_pattern']);

/** What an identifier binds from, when it is a binding: the assigned value, the iterable, the `with` value; 'opaque' for other bindings. */
export function bindingSource(use: SyntaxNode): SyntaxNode | 'opaque' | undefined {
  let target: SyntaxNode = use;
  while (target.parent && PATTERNS.has(target.parent.type)) target = target.parent;
  const parent = target.parent;
  if (!parent) return undefined;
  const isLeft = parent.childForFieldName('left')?.id === target.id;
  if ((parent.type === 'assignment' || parent.type === 'augmented_assignment') && isLeft) return parent.childForFieldName('right') ?? 'opaque';
  if ((parent.type === 'for_statement' || parent.type === 'for_in_clause') && isLeft) return parent.childForFieldName('right') ?? 'opaque';
  if (parent.type === 'named_expression' && parent.childForFieldName('name')?.id === target.id) return parent.childForFieldName('value') ?? 'opaque';
  if (parent.type === 'as_pattern_target') return parent.parent?.namedChildren[0] ?? 'opaque';
  if (['global_statement', 'nonlocal_statement'].includes(parent.type)) return 'opaque';
  if (parent.type === 'except_clause' || parent.type === 'as_pattern') return 'opaque';
  return undefined;
}

const READ_RESULTS = new Set(['fetchone', 'fetchall', 'fetchmany']);
const RUNS_SQL = new Set(['execute', 'executemany']);

/**
 * A test of whether an expression's value may derive, directly or through the function's locals (every binding of
 * them, anywhere in the function), from a source node or a root name. A database read's result derives from its
 * arguments, not from the connection it runs on (a fresh read after the change sees the schema as the re-run will).
 */
export function derivesFrom(fnNode: SyntaxNode, source: (node: SyntaxNode) => boolean, root: (name: string) => boolean): (expression: SyntaxNode) => boolean {
  const bindings = new Map<string, (SyntaxNode | 'opaque')[]>();
  for (const use of fnNode.descendantsOfType('identifier')) {
    if (nestedScope(use, fnNode)) continue;
    const from = bindingSource(use);
    if (from === undefined) continue;
    const list = bindings.get(use.text) ?? [];
    list.push(from);
    bindings.set(use.text, list);
  }
  const memo = new Map<string, boolean>();
  const inProgress = new Set<string>();
  const nameDerives = (name: string): boolean => {
    if (root(name)) return true;
    const known = memo.get(name);
    if (known !== undefined) return known;
    if (inProgress.has(name)) return false;
    inProgress.add(name);
    const result = (bindings.get(name) ?? []).some((from) => from === 'opaque' || derives(from));
    inProgress.delete(name);
    memo.set(name, result);
    return result;
  };
  const derives = (node: SyntaxNode): boolean => {
    if (source(node)) return true;
    if (node.type === 'identifier') {
      const parent = node.parent;
      if (parent?.type === 'attribute' && parent.childForFieldName('attribute')?.id === node.id) return false;
      if (parent?.type === 'keyword_argument' && parent.childForFieldName('name')?.id === node.id) return false;
      return nameDerives(node.text);
    }
    if (node.type === 'attribute') return derives(node.childForFieldName('object')!);
    if (node.type === 'call') {
      const callee = node.childForFieldName('function');
      const method = callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text ?? '' : '';
      const args = node.childForFieldName('arguments');
      if (callee?.type === 'attribute' && RUNS_SQL.has(method)) return args !== null && derives(args);
      if (callee?.type === 'attribute' && READ_RESULTS.has(method)) return derives(callee.childForFieldName('object')!) || (args !== null && derives(args));
    }
    return node.namedChildren.some(derives);
  };
  return derives;
}

/**
 * No database write after the guarded DDL (other guarded DDL aside) depends on a test whose value derives from a
 * `PRAGMA table_info` read in this function or, for DDL reached through a helper, from that helper call's result
 * (a `created` flag): the re-run reads the schema changed and would skip such a write for good.
 */
export function laterWritesIndependentOfGuard(ddl: Effect, effects: readonly Effect[], fn: PyFunction, guarded: (effect: Effect) => boolean): boolean {
  const at = effects.indexOf(ddl);
  if (at < 0) return false;
  const fnNode = fn.node;
  const helperCall = ddl.via ? ddl.node : undefined;
  const source = (node: SyntaxNode): boolean => {
    if (node.type !== 'call') return false;
    if (helperCall && node.startIndex === helperCall.startIndex && node.endIndex === helperCall.endIndex) return true;
    const template = sqlTemplate(node.childForFieldName('arguments')?.namedChildren[0]);
    return template !== undefined && /^\s*pragma\s+(?:\w+\.)?table_(?:x)?info\b/i.test(template.text);
  };
  const derives = derivesFrom(fnNode, source, () => false);
  return effects
    .slice(at + 1)
    .filter((effect) => ['db-write', 'db-ddl', 'db-script'].includes(effect.kind) && !(effect.kind === 'db-ddl' && guarded(effect)))
    .every((effect) => !guardTestsOf(effect.node, fnNode).some(derives));
}
