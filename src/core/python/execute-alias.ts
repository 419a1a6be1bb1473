// SQL run through a name bound to a connection's execute method, which a
// method-name reading of the call misses: `sql = conn.execute; sql("INSERT …")`,
// diskcache's `sql = self._sql` where `_sql` is a property returning
// `self._con.execute`, and `with self._transact() as (sql, cleanup):` where the
// context-manager helper yields such a name. The call is then read as the
// `execute` call it is, with the alias's target as its receiver.
// Partial: a name passed in as a parameter (diskcache's `_cull(now, sql, …)`)
// and a property returning a wrapper function (`_sql_retry`) are not followed.
import type { PyModule, SyntaxNode } from './model.ts';
import { callParts, type CallParts } from './body-walk.ts';
import { localAssignmentBefore } from './local-assignments.ts';
import { memoizePer } from './memo.ts';
import { decoratorTexts } from './functions.ts';

const EXECUTE_METHODS = new Set(['execute', 'executemany', 'executescript']);
const MAX_DEPTH = 3;

/**
 * Names that may be aliases, read off the source text: assigned a dotted name
 * (`sql = self._sql`) or bound in a parenthesised `as (a, b)` tuple. Only calls
 * of these names are looked at with the tree: most modules have none.
 */
const candidateNames = memoizePer((module: PyModule): ReadonlySet<string> => {
  const names = new Set<string>();
  for (const match of module.source.matchAll(/^[ \t]*([A-Za-z_]\w*)[ \t]*=[ \t]*[A-Za-z_][\w.]*\.[A-Za-z_]\w*[ \t]*(?:#.*)?$/gm)) names.add(match[1]!);
  for (const match of module.source.matchAll(/\bas[ \t]*\(([^)]*)\)/g)) {
    for (const name of match[1]!.split(',')) if (/^\s*[A-Za-z_]\w*\s*$/.test(name)) names.add(name.trim());
  }
  return names;
});

/** A cheap test on the callee's text: a plain name that the module may bind to an execute method. */
export function mayBeExecuteAlias(callee: string, module: PyModule): boolean {
  return /^[A-Za-z_]\w*$/.test(callee) && candidateNames(module).has(callee);
}

/** `alias(…)` read as `<target>.execute(…)`; undefined when the callee is not a known alias of an execute method. */
export function executeAliasParts(call: SyntaxNode, module: PyModule): CallParts | undefined {
  const callee = call.childForFieldName('function');
  if (callee?.type !== 'identifier' || !mayBeExecuteAlias(callee.text, module)) return undefined;
  const target = aliasTarget(callee, module, 0);
  if (!target) return undefined;
  const parts = callParts(call);
  return { ...parts, callee: callee.text, method: target.method, receiver: target.receiver };
}

interface AliasTarget {
  method: string;
  receiver: SyntaxNode;
}

function aliasTarget(name: SyntaxNode, module: PyModule, depth: number): AliasTarget | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const assigned = localAssignmentBefore(name);
  if (assigned) return boundMethod(assigned, depth);
  return yieldedByContextManager(name, module, depth);
}

/** `conn.execute`, or `self.P` where the class's property `P` returns one. */
function boundMethod(value: SyntaxNode, depth: number): AliasTarget | undefined {
  if (value.type !== 'attribute') return undefined;
  const object = value.childForFieldName('object');
  const attribute = value.childForFieldName('attribute')?.text ?? '';
  if (!object) return undefined;
  if (EXECUTE_METHODS.has(attribute)) return { method: attribute, receiver: object };
  if (object.type !== 'identifier' || object.text !== 'self' || depth >= MAX_DEPTH) return undefined;
  const property = methodOfClassAround(value, attribute);
  if (!property || !isProperty(property)) return undefined;
  const returned = soleReturnValue(property);
  return returned ? boundMethod(returned, depth + 1) : undefined;
}

/**
 * `with self.H(…) as (sql, cleanup):` where `H` is a method of the same class
 * whose `yield a, b` yields, at the name's position, an alias of execute.
 */
function yieldedByContextManager(name: SyntaxNode, module: PyModule, depth: number): AliasTarget | undefined {
  const fn = enclosing(name, 'function_definition');
  if (!fn) return undefined;
  for (const item of fn.descendantsOfType('with_item')) {
    if (item.startIndex >= name.startIndex || enclosing(item, 'function_definition')?.id !== fn.id) continue;
    const pattern = item.childForFieldName('value');
    if (pattern?.type !== 'as_pattern') continue;
    const target = pattern.namedChildren.find((child) => child.type === 'as_pattern_target')?.namedChildren[0] ?? pattern.namedChildren[1];
    const names = target?.type === 'tuple' || target?.type === 'parenthesized_expression' || target?.type === 'pattern_list' ? target.namedChildren : target ? [target] : [];
    const position = names.findIndex((n) => n.type === 'identifier' && n.text === name.text);
    const manager = pattern.namedChildren[0];
    if (position < 0 || manager?.type !== 'call') continue;
    const managerFn = manager.childForFieldName('function');
    const helperName = managerFn?.type === 'attribute' && managerFn.childForFieldName('object')?.text === 'self' ? managerFn.childForFieldName('attribute')?.text : undefined;
    const helper = helperName ? methodOfClassAround(item, helperName) : undefined;
    const yielded = helper && firstYieldedTuple(helper);
    const element = yielded?.[position];
    if (element?.type === 'identifier') return aliasTarget(element, module, depth + 1);
    if (element) return boundMethod(element, depth + 1);
  }
  return undefined;
}

function enclosing(node: SyntaxNode, type: string): SyntaxNode | undefined {
  let at = node.parent;
  while (at && at.type !== type) at = at.parent;
  return at ?? undefined;
}

/** The `def name` of the class that encloses `node` (decorated or not). */
function methodOfClassAround(node: SyntaxNode, name: string): SyntaxNode | undefined {
  const body = enclosing(node, 'class_definition')?.childForFieldName('body');
  for (const statement of body?.namedChildren ?? []) {
    const definition = statement.type === 'decorated_definition' ? statement.childForFieldName('definition') : statement;
    if (definition?.type === 'function_definition' && definition.childForFieldName('name')?.text === name) return definition;
  }
  return undefined;
}

function isProperty(definition: SyntaxNode): boolean {
  return decoratorTexts(definition).some((decorator) => /^(property|cached_property|functools\.cached_property)$/.test(decorator));
}

/** The value of a body that is one `return <value>` (a docstring allowed before it). */
function soleReturnValue(definition: SyntaxNode): SyntaxNode | undefined {
  const statements = (definition.childForFieldName('body')?.namedChildren ?? []).filter((s) => s.type !== 'comment');
  const code = statements[0]?.type === 'expression_statement' && statements[0].namedChildren[0]?.type === 'string' ? statements.slice(1) : statements;
  return code.length === 1 && code[0]!.type === 'return_statement' ? code[0]!.namedChildren[0] : undefined;
}

/** The elements of the first `yield a, b` in the helper's own body. */
function firstYieldedTuple(definition: SyntaxNode): SyntaxNode[] | undefined {
  const found = definition.descendantsOfType('yield').find((y) => enclosing(y, 'function_definition')?.id === definition.id);
  const value = found?.namedChildren[0];
  if (!value) return undefined;
  return value.type === 'expression_list' || value.type === 'tuple' ? value.namedChildren : [value];
}
