// What a for loop's item can be, when that is provable from the source: `for item in gen(...)`
// where every `yield` of the project generator `gen` is a tuple literal (buku's importers yield
// `(url, title, tags, desc, 0, True, False)`, read by `self.add_rec(*item)`). Followed through
// `yield from gen2(...)`, `for i in gen2(...): yield i` (recursion included), and a name the loop
// iterates that is only ever assigned such calls or literal lists of tuples (`items = []` then
// `items = import_md(...)` in branches). Anything else — a yield of some other expression, a
// generator the resolver cannot find, a name rebound or passed elsewhere — is not provable.
import type { PyFunction, PyModule, SyntaxNode } from './model.ts';

export interface ResolvedFunction {
  fn: PyFunction;
  module: PyModule;
}

/** Resolves a call to a same-repository function (effects.ts' HelperResolver has this shape). */
export type FunctionResolver = (call: SyntaxNode, caller: PyFunction, module: PyModule) => ResolvedFunction | undefined;

/**
 * Every tuple literal the loop variable `use` (an identifier read inside `for use in ...:`) can
 * hold, or undefined when that is not provable. An empty list means the loop never runs.
 */
export function loopItemTuples(use: SyntaxNode, fn: PyFunction, module: PyModule, resolve: FunctionResolver): SyntaxNode[] | undefined {
  return itemTuples(use, { fn, module }, resolve, new Set());
}

function itemTuples(use: SyntaxNode, at: ResolvedFunction, resolve: FunctionResolver, visiting: Set<number>): SyntaxNode[] | undefined {
  if (use.type !== 'identifier') return undefined;
  const loop = enclosingLoopBinding(use, at.fn.node);
  if (!loop) return undefined;
  // The for target must be the name's only binding in the function: then every read of it in the body is the item.
  const bindings = occurrences(at.fn.node, use.text).filter(isBinding);
  if (bindings.length !== 1 || bindings[0]!.id !== loop.childForFieldName('left')?.id) return undefined;
  const iterable = loop.childForFieldName('right');
  return iterable ? iterableTuples(iterable, at, resolve, visiting) : undefined;
}

/** The innermost for statement of the same function whose target is `use`'s name and whose body holds `use`. */
function enclosingLoopBinding(use: SyntaxNode, fnNode: SyntaxNode): SyntaxNode | undefined {
  for (let at = use.parent; at && at.id !== fnNode.id; at = at.parent) {
    if (SCOPES.has(at.type)) return undefined;
    if (at.type !== 'for_statement') continue;
    const body = at.childForFieldName('body');
    if (at.childForFieldName('left')?.text === use.text && body && body.startIndex <= use.startIndex && use.endIndex <= body.endIndex) return at;
  }
  return undefined;
}

function iterableTuples(iterable: SyntaxNode, at: ResolvedFunction, resolve: FunctionResolver, visiting: Set<number>): SyntaxNode[] | undefined {
  if (iterable.type === 'call') {
    const target = resolve(iterable, at.fn, at.module);
    return target ? generatorTuples(target, resolve, visiting) : undefined;
  }
  if (iterable.type === 'list' || iterable.type === 'tuple') {
    const elements = iterable.namedChildren.filter((child) => child.type !== 'comment');
    return elements.every((element) => element.type === 'tuple') ? elements : undefined;
  }
  if (iterable.type !== 'identifier') return undefined;
  // Every mention of the name is a plain `name = value` or this loop's iterable: nothing else can
  // rebind it, append to it, or hand it to code that might (a parameter fails here too).
  const values: SyntaxNode[] = [];
  for (const occurrence of occurrences(at.fn.node, iterable.text)) {
    if (occurrence.id === iterable.id) continue;
    const assignment = occurrence.parent;
    const right = assignment?.type === 'assignment' && assignment.childForFieldName('left')?.id === occurrence.id ? assignment.childForFieldName('right') : null;
    if (!right || right.type === 'identifier' || insideNestedScope(occurrence, at.fn.node)) return undefined;
    values.push(right);
  }
  // Never assigned here: a global or a closure's name, whose value is not read.
  if (values.length === 0) return undefined;
  const tuples: SyntaxNode[] = [];
  for (const value of values) {
    const found = iterableTuples(value, at, resolve, visiting);
    if (!found) return undefined;
    tuples.push(...found);
  }
  return tuples;
}

/**
 * Every tuple literal the generator yields. A generator already being read (recursion) adds
 * nothing new: whatever it yields comes, at some depth, from its other yields.
 */
function generatorTuples(target: ResolvedFunction, resolve: FunctionResolver, visiting: Set<number>): SyntaxNode[] | undefined {
  if (visiting.has(target.fn.node.id)) return [];
  const yields = ownYields(target.fn.node);
  // Not a generator: what the call returns is not read here.
  if (yields.length === 0) return undefined;
  visiting.add(target.fn.node.id);
  try {
    const tuples: SyntaxNode[] = [];
    for (const node of yields) {
      const value = node.namedChildren.at(-1);
      if (!value) return undefined;
      let found: SyntaxNode[] | undefined;
      if (node.children.some((child) => child.type === 'from')) found = iterableTuples(value, target, resolve, visiting);
      else if (value.type === 'tuple' || value.type === 'expression_list') found = [value];
      else if (value.type === 'identifier') found = itemTuples(value, target, resolve, visiting);
      if (!found) return undefined;
      tuples.push(...found);
    }
    return tuples;
  } finally {
    visiting.delete(target.fn.node.id);
  }
}

const SCOPES = new Set(['function_definition', 'lambda', 'class_definition']);

/** The function's own `yield` expressions, nested functions', lambdas' and classes' left out. */
function ownYields(fnNode: SyntaxNode): SyntaxNode[] {
  const body = fnNode.childForFieldName('body');
  // The keyword token is also of type `yield`; only the named node is the expression.
  return body ? body.descendantsOfType('yield').filter((node) => node.isNamed && !insideNestedScope(node, fnNode)) : [];
}

function insideNestedScope(node: SyntaxNode, fnNode: SyntaxNode): boolean {
  for (let at = node.parent; at && at.id !== fnNode.id; at = at.parent) if (SCOPES.has(at.type)) return true;
  return false;
}

/** Identifiers spelling the variable `name` anywhere in the function, nested scopes included; attribute and keyword names are not the variable. */
function occurrences(fnNode: SyntaxNode, name: string): SyntaxNode[] {
  return fnNode.descendantsOfType('identifier').filter((identifier) => {
    if (identifier.text !== name) return false;
    const parent = identifier.parent;
    if (parent?.type === 'attribute' && parent.childForFieldName('attribute')?.id === identifier.id) return false;
    if (parent?.type === 'keyword_argument' && parent.childForFieldName('name')?.id === identifier.id) return false;
    return true;
  });
}

const BINDING_PLACES = new Set([
  'parameters', 'lambda_parameters', 'global_statement', 'nonlocal_statement', 'delete_statement',
  'import_statement', 'import_from_statement', 'as_pattern_target', 'case_pattern',
]);
const LEFT_BINDERS = new Set(['assignment', 'augmented_assignment', 'for_statement', 'for_in_clause']);

/** Whether the identifier may bind its name. Conservative: `a[name] = x` counts, as anything on an assignment's left does. */
function isBinding(identifier: SyntaxNode): boolean {
  const parent = identifier.parent;
  if (parent && ['function_definition', 'class_definition', 'named_expression'].includes(parent.type) && parent.childForFieldName('name')?.id === identifier.id) return true;
  for (let child = identifier, at = identifier.parent; at; child = at, at = at.parent) {
    if (BINDING_PLACES.has(at.type)) return true;
    if (LEFT_BINDERS.has(at.type) && at.childForFieldName('left')?.id === child.id) return true;
    if (at.type === 'function_definition' || at.type === 'class_definition' || at.type === 'module') break;
  }
  return false;
}
