// Tree questions the rules share: where a node sits inside its function
// (loops, branches, except clauses), and what a call or `with` names.
import type { SyntaxNode } from '../model.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { ancestorsWithin, contains } from './syntax-tree.ts';
import { exclusiveGuards } from './exclusive-guards.ts';

export { ancestorsWithin, contains };

const LOOP_TYPES = new Set([
  'for_statement',
  'while_statement',
  'list_comprehension',
  'set_comprehension',
  'dictionary_comprehension',
  'generator_expression',
]);

const SCOPE_TYPES = new Set(['function_definition', 'class_definition', 'lambda']);

export function isBefore(a: SyntaxNode, b: SyntaxNode): boolean {
  return a.endIndex <= b.startIndex;
}

/** What a string literal holds, its prefix and quotes taken off: `'w'` → `w`, `b"x.json"` → `x.json`. */
export function literalText(string: SyntaxNode): string {
  return string.text.replace(/^[a-zA-Z]*['"]+|['"]+$/g, '');
}

/** True when `node` is in the function's own code, not in a function or class nested in it. */
export function isOwnCode(node: SyntaxNode, fnNode: SyntaxNode): boolean {
  if (!contains(fnNode, node)) return false;
  return !ancestorsWithin(node, fnNode).some((ancestor) => SCOPE_TYPES.has(ancestor.type));
}

/** The innermost for/while loop (or comprehension) of the function around `node`. */
export function enclosingLoop(node: SyntaxNode, fnNode: SyntaxNode): SyntaxNode | undefined {
  return ancestorsWithin(node, fnNode).find((ancestor) => LOOP_TYPES.has(ancestor.type) && loopRepeats(ancestor, node));
}

/** A node in a for loop's iterable or a while loop's condition runs once per test, not per iteration body. */
function loopRepeats(loop: SyntaxNode, node: SyntaxNode): boolean {
  if (loop.type === 'for_statement') {
    const body = loop.childForFieldName('body');
    return body !== null && contains(body, node);
  }
  if (loop.type === 'while_statement') {
    const body = loop.childForFieldName('body');
    return body !== null && contains(body, node);
  }
  return true;
}

/**
 * The classes an except clause names: `except E:`, `except E as e:`, `except (E, F):`; undefined for a bare
 * `except:`. Each rule asks its own question of them (IntegrityError only, OSError only, database errors only).
 */
export function caughtClasses(clause: SyntaxNode): SyntaxNode[] | undefined {
  let caught = clause.namedChildren.find((child) => child.type !== 'block' && child.type !== 'comment');
  if (caught?.type === 'as_pattern') caught = caught.namedChildren[0];
  if (!caught) return undefined;
  const classes = caught.type === 'tuple' || caught.type === 'parenthesized_expression' ? caught.namedChildren : [caught];
  return classes.length > 0 ? classes : undefined;
}

/** The except clauses of the function around `node`, innermost first. */
export function enclosingExceptClauses(node: SyntaxNode, fnNode: SyntaxNode): SyntaxNode[] {
  return ancestorsWithin(node, fnNode).filter((ancestor) => ancestor.type === 'except_clause' || ancestor.type === 'except_group_clause');
}

/**
 * True when at most one of the two nodes can run in one pass through the
 * function: they sit in different arms of an if/elif/else, of a match, or in
 * different except clauses of one try; or under two `if`s that test one
 * parameter, never rebound, against different constants; or one sits in a
 * branch that leaves the function before the other is reached. Never in a
 * function that calls itself.
 */
export function mutuallyExclusive(a: SyntaxNode, b: SyntaxNode, fnNode: SyntaxNode): boolean {
  // One call of a function that calls itself runs both arms: `if to_archive: INSERT; self._move(id, False) else: DELETE`.
  if (callsItself(fnNode)) return false;
  return exclusiveArms(a, b, fnNode) || exclusiveGuards(a, b, fnNode) || leavesBefore(a, b, fnNode) || leavesBefore(b, a, fnNode);
}

/**
 * `move(...)` or `self.move(...)` inside `def move`, directly or through other functions of the module
 * (`_store` calls `_again`, which calls `_store`), matched by name: `f(...)` any function f, `self.x(...)` the
 * class's own x if it defines one, else any x (nested code too, to stay safe): one call of the function can run
 * both of two paths that exclude each other in one pass. Partial: a call on another object (`self.store.put()`)
 * is not followed; taken by name it tied most methods of a module to each other (minidb's Store to Model.save).
 */
export function callsItself(fnNode: SyntaxNode): boolean {
  if (!fnNode.childForFieldName('name')) return true;
  const graph = moduleCallGraph(rootOf(fnNode));
  const seen = new Set<SyntaxNode>();
  const queue = [...callees(fnNode, graph)];
  while (queue.length > 0) {
    const called = queue.pop()!;
    if (called.id === fnNode.id) return true;
    if (seen.has(called)) continue;
    seen.add(called);
    queue.push(...callees(called, graph));
  }
  return false;
}

/** A function (or method) named `name` is defined anywhere in `node`'s module. */
export function definedInModule(node: SyntaxNode, name: string): boolean {
  return moduleCallGraph(rootOf(node)).byName.has(name);
}

interface CallGraph {
  /** Every function of the module by name. */
  byName: Map<string, SyntaxNode[]>;
  /** The functions each function's code may call. */
  calls: WeakMap<SyntaxNode, SyntaxNode[]>;
}

const callGraphs = new WeakMap<SyntaxNode, CallGraph>();

function moduleCallGraph(root: SyntaxNode): CallGraph {
  let graph = callGraphs.get(root);
  if (!graph) {
    const byName = new Map<string, SyntaxNode[]>();
    for (const definition of root.descendantsOfType('function_definition')) {
      const name = definition.childForFieldName('name')?.text;
      if (name) byName.set(name, [...(byName.get(name) ?? []), definition]);
    }
    graph = { byName, calls: new WeakMap() };
    callGraphs.set(root, graph);
  }
  return graph;
}

/** The module's functions that `fnNode`'s code may call, by the rule above. */
function callees(fnNode: SyntaxNode, graph: CallGraph): SyntaxNode[] {
  let found = graph.calls.get(fnNode);
  if (found) return found;
  const ownClass = fnNode.parent?.type === 'block' && fnNode.parent.parent?.type === 'class_definition' ? fnNode.parent.parent : undefined;
  const decoratedClass = fnNode.parent?.type === 'decorated_definition' && fnNode.parent.parent?.parent?.type === 'class_definition' ? fnNode.parent.parent.parent : undefined;
  const cls = ownClass ?? decoratedClass;
  found = fnNode.descendantsOfType('call').flatMap((call) => {
    const callee = call.childForFieldName('function');
    if (callee?.type === 'identifier') return graph.byName.get(callee.text) ?? [];
    const name = callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
    if (!name) return [];
    const object = callee?.childForFieldName('object')?.text;
    if (object !== 'self' && object !== 'cls') return [];
    const all = graph.byName.get(name) ?? [];
    const own = cls ? all.filter((definition) => methodOf(definition)?.id === cls.id) : [];
    return own.length > 0 ? own : all;
  });
  graph.calls.set(fnNode, found);
  return found;
}

function methodOf(definition: SyntaxNode): SyntaxNode | undefined {
  const holder = definition.parent?.type === 'decorated_definition' ? definition.parent.parent : definition.parent;
  return holder?.type === 'block' && holder.parent?.type === 'class_definition' ? holder.parent : undefined;
}

/** The module's root node above `node`. */
export function rootOf(node: SyntaxNode): SyntaxNode {
  let root = node;
  while (root.parent) root = root.parent;
  return root;
}

/**
 * `a` sits in a block that ends in return or raise, wholly before `b`: every pass
 * through `a` leaves the function before `b`, and `b` cannot run before `a`. Not
 * under a try or a with (a handler or a context manager could swallow an
 * exception raised between `a` and the return, and go on to `b`), nor in a loop
 * (an earlier pass could run `b`, a later one `a`).
 */
export function leavesBefore(a: SyntaxNode, b: SyntaxNode, fnNode: SyntaxNode): boolean {
  const ancestors = ancestorsWithin(a, fnNode);
  return ancestors.some((block, index) => {
    if (block.type !== 'block' || contains(block, b) || block.endIndex > b.startIndex) return false;
    const last = block.namedChildren.filter((child) => child.type !== 'comment').at(-1);
    const leaves = last?.type === 'return_statement' || last?.type === 'raise_statement';
    return leaves && !ancestors.slice(index + 1).some((outer) => outer.type === 'try_statement' || outer.type === 'with_statement' || LOOP_TYPES.has(outer.type));
  });
}

function exclusiveArms(a: SyntaxNode, b: SyntaxNode, fnNode: SyntaxNode): boolean {
  const aChain = [a, ...ancestorsWithin(a, fnNode)];
  const bIds = new Set([b, ...ancestorsWithin(b, fnNode)].map((node) => node.id));
  for (let i = 1; i < aChain.length; i++) {
    const common = aChain[i]!;
    if (!bIds.has(common.id)) continue;
    const aArm = aChain[i - 1]!;
    const bArm = [b, ...ancestorsWithin(b, fnNode)].find((node) => node.parent?.id === common.id);
    if (!bArm || bArm.id === aArm.id) return false;
    return isArm(common, aArm) && isArm(common, bArm);
  }
  return false;
}

function isArm(parent: SyntaxNode, child: SyntaxNode): boolean {
  switch (parent.type) {
    case 'if_statement':
      return child.id === parent.childForFieldName('consequence')?.id || child.type === 'elif_clause' || child.type === 'else_clause';
    case 'elif_clause':
      return child.id === parent.childForFieldName('consequence')?.id;
    case 'conditional_expression':
      return child.type !== 'if' && child.id !== parent.namedChildren[1]?.id;
    case 'try_statement':
      // The try body may run in part before an except clause: only the handlers and `else` exclude each other.
      return child.type === 'except_clause' || child.type === 'except_group_clause' || child.type === 'else_clause';
    case 'match_statement':
    case 'block':
      return child.type === 'case_clause';
    default:
      return false;
  }
}

/** The statement that holds `node`: the child of the nearest block. */
export function statementOf(node: SyntaxNode): SyntaxNode {
  let current = node;
  while (current.parent && current.parent.type !== 'block' && current.parent.type !== 'module') current = current.parent;
  return current;
}

/** Expression text with all whitespace dropped, to compare two mentions of the same path or connection. */
export function compactText(node: SyntaxNode): string {
  return node.text.replace(/\s+/g, '');
}

// tmp/temp as a word of the name (tmp_path, path + '.tmp', tmpfile, temp_dir, tempfile): not inside another word (attempts, templates).
const LOOKS_TEMPORARY = /(^|[^a-z])(tmp|temp|temporary)(s?(?![a-z])|file|dir|nam|path|fn)|mkstemp|mktemp|NamedTemporaryFile|devnull/i;

/** `tmp_path`, `path + ".tmp"`, or a name assigned from tempfile: a scratch file, no one's record. */
export function isTemporaryPath(path: SyntaxNode): boolean {
  if (LOOKS_TEMPORARY.test(path.text)) return true;
  const assigned = path.type === 'identifier' ? localAssignmentBefore(path) : undefined;
  return assigned !== undefined && LOOKS_TEMPORARY.test(assigned.text);
}

/** The expression inside any parentheses around it: `((x))` → `x`. */
export function unparenthesized(node: SyntaxNode): SyntaxNode {
  let current = node;
  while (current.type === 'parenthesized_expression' && current.namedChildren[0]) current = current.namedChildren[0];
  return current;
}

/** A path or expression for a message: whitespace flattened, cut to 40 characters. */
export function shortText(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 40 ? `${flat.slice(0, 37)}...` : flat;
}
