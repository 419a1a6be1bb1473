// Whether a transaction wrapper qualifies (wrapper-transaction.ts says what that means): a
// @contextmanager that always BEGINs before its yield, commits after it and rolls back on any
// exception, or a returned manager whose __enter__ always BEGINs and whose __exit__ commits and
// rolls back on every exception; and the instance connections it does so on.
import type { Effect, PyFunction, PyModule, SyntaxNode } from './model.ts';
import { directEffects } from './effects.ts';
import { classNamed, methodOf, type ClassRef, type Located } from './inherited-methods.ts';
import { scopeFacts } from './module-facts.ts';
import { contains } from './rules/syntax-tree.ts';
import { calledMethod, connectionOfCall, isDecoratedWith, ownNodes, runsAlways, type Dispatch } from './instance-connections.ts';

const MAX_DEPTH = 5;

export function wrapperVerdict(wrapper: Located, owner: ClassRef): Set<string> | undefined {
  const dispatch: Dispatch = { self: owner, owner };
  if (isDecoratedWith(wrapper.fn, 'contextmanager')) return generatorConnections(wrapper.fn, wrapper.module, dispatch);
  const managers = returnedManagers(wrapper.fn, wrapper.module);
  if (!managers) return undefined;
  let connections: Set<string> | undefined;
  let begins = false;
  for (const manager of managers) {
    const verdict = managerVerdict(manager, owner);
    if (!verdict || (verdict.kind === 'nested' && !selectedWhenTransactionOpen(manager.returned, wrapper.fn))) return undefined;
    begins ||= verdict.kind === 'begin';
    connections = connections ? intersect(connections, verdict.connections) : verdict.connections;
  }
  return begins ? connections : undefined;
}


/** @contextmanager: BEGIN always run before the first yield, the yield in a try whose catch-all except rolls back, a commit after it. */
function generatorConnections(fn: PyFunction, module: PyModule, dispatch: Dispatch): Set<string> | undefined {
  const yielded = ownNodes(fn, 'yield')[0];
  if (!yielded) return undefined;
  const begun = connectionsOf(hits(fn, module, dispatch, isBegin, (node) => node.endIndex <= yielded.startIndex, true));
  const guard = enclosingTry(yielded, fn.node);
  // A narrower except lets other exceptions out with the half-done writes pending.
  const handlers = guard?.namedChildren.filter((child) => child.type === 'except_clause' && /^except\s*(?:BaseException\s*(?:as\s+\w+\s*)?)?:/.test(child.text)) ?? [];
  const rolledBack = connectionsOf(handlers.flatMap((handler) => hits(fn, module, dispatch, isRollback, (node) => contains(handler, node))));
  const allHandlers = guard?.namedChildren.filter((child) => child.type === 'except_clause') ?? [];
  const committed = connectionsOf(hits(fn, module, dispatch, isCommit, (node) => node.startIndex >= yielded.endIndex && !allHandlers.some((handler) => contains(handler, node))));
  const connections = intersect(intersect(begun, rolledBack), committed);
  return connections.size > 0 ? connections : undefined;
}

/** The try statement whose body holds the node (not its handlers), within the function. */
function enclosingTry(node: SyntaxNode, fnNode: SyntaxNode): SyntaxNode | undefined {
  for (let at = node.parent; at && at.id !== fnNode.id; at = at.parent) {
    if (at.type === 'try_statement' && contains(at.childForFieldName('body') ?? at, node)) return at;
  }
  return undefined;
}

interface ReturnedManager extends ClassRef {
  /** The return statement. */
  returned: SyntaxNode;
  /** The manager's attributes its __init__ stores the instance in (the parameter `self` was passed to). */
  ownerAttrs: ReadonlySet<string>;
}

/** Every `return Manager(self, ...)` of the method, the manager a class it can read; undefined when any return is something else. */
function returnedManagers(fn: PyFunction, module: PyModule): ReturnedManager[] | undefined {
  const returns = ownNodes(fn, 'return_statement');
  if (returns.length === 0) return undefined;
  const managers: ReturnedManager[] = [];
  for (const statement of returns) {
    const value = statement.namedChildren[0];
    if (value?.type !== 'call') return undefined;
    const name = value.childForFieldName('function');
    const positional = (value.childForFieldName('arguments')?.namedChildren ?? []).filter((argument) => argument.type !== 'keyword_argument' && argument.type !== 'comment');
    const selfAt = positional.findIndex((argument) => argument.text === 'self');
    const manager = name?.type === 'identifier' ? classNamed(module, name.text) : undefined;
    if (!manager || selfAt < 0 || positional.slice(0, selfAt).some((argument) => /^\*/.test(argument.text))) return undefined;
    managers.push({ ...manager, returned: statement, ownerAttrs: attributesStoring(manager, selfAt + 1) });
  }
  return managers;
}

/** `self.<attr> = <param>` in the class's __init__, for its parameter at that position (0 is self). */
function attributesStoring(cls: ClassRef, position: number): Set<string> {
  const init = methodOf(cls, '__init__');
  const param = init?.fn.params[position];
  const attrs = new Set<string>();
  for (const assignment of init && param ? ownNodes(init.fn, 'assignment') : []) {
    const attr = /^self\s*\.\s*(\w+)$/.exec(assignment.childForFieldName('left')?.text ?? '')?.[1];
    if (attr && assignment.childForFieldName('right')?.text === param) attrs.add(attr);
  }
  return attrs;
}

type ManagerVerdict = { kind: 'begin' | 'nested'; connections: Set<string> };

/**
 * 'begin': BEGIN always on enter, commit and rollback-on-error on exit. 'nested': SAVEPOINT on enter, rolled back on
 * error; or nothing opened on enter, nothing committed on exit, and the whole transaction rolled back on error.
 * With the connections all of these run on.
 */
function managerVerdict(manager: ReturnedManager, owner: ClassRef): ManagerVerdict | undefined {
  const dispatch: Dispatch = { self: manager, owner, ownerAttrs: manager.ownerAttrs };
  const enter = methodOf(manager, '__enter__');
  const exit = methodOf(manager, '__exit__');
  if (!enter || !exit) return undefined;
  const rolledBack = rollbackOnError(exit.fn, exit.module, dispatch, isRollback);
  const begun = connectionsOf(hits(enter.fn, enter.module, dispatch, isBegin, undefined, true));
  const committed = connectionsOf(hits(exit.fn, exit.module, dispatch, isCommit));
  if (begun.size > 0 && committed.size > 0) return nonEmpty('begin', intersect(intersect(begun, committed), rolledBack));
  const savepoints = connectionsOf(hits(enter.fn, enter.module, dispatch, isSavepoint));
  if (savepoints.size > 0) return nonEmpty('nested', intersect(savepoints, rolledBack));
  const joins =
    hits(enter.fn, enter.module, dispatch, (effect) => effect.kind === 'db-begin').length === 0 &&
    hits(exit.fn, exit.module, dispatch, (effect) => effect.kind === 'db-commit').length === 0;
  return joins ? nonEmpty('nested', rollbackOnError(exit.fn, exit.module, dispatch, isWholeRollback)) : undefined;
}

const nonEmpty = (kind: ManagerVerdict['kind'], connections: Set<string>): ManagerVerdict | undefined => (connections.size > 0 ? { kind, connections } : undefined);

/**
 * The connections rolled back in the arm of __exit__ that runs for every exception: `if exc_type:`,
 * `if exc_type is not None:`, `if not (exc_type is None):`, the same on the exception value (the parameters
 * as written), or the else of `if exc_type is None:` / `if not exc_type:`. A narrower test (`exc_type is
 * IntegrityError`) lets other exceptions leave the half-done writes pending.
 */
function rollbackOnError(exit: PyFunction, module: PyModule, dispatch: Dispatch, rollback: (effect: Effect) => boolean): Set<string> {
  const names = exit.params.slice(1, 3).filter((name) => /^\w+$/.test(name));
  const arms: SyntaxNode[] = [];
  for (const statement of ownNodes(exit, 'if_statement')) {
    if (!runsAlways(statement, exit)) continue;
    const condition = bare(statement.childForFieldName('condition')?.text ?? '');
    const consequence = statement.childForFieldName('consequence');
    const alternatives = statement.namedChildren.filter((child) => child.type === 'elif_clause' || child.type === 'else_clause');
    if (consequence && names.some((name) => raisedTest(condition, name))) arms.push(consequence);
    const otherwise = alternatives.length === 1 && alternatives[0]!.type === 'else_clause' ? alternatives[0]! : undefined;
    if (otherwise && names.some((name) => condition === `${name} is None` || condition === `not ${name}`)) arms.push(otherwise);
  }
  return connectionsOf(arms.flatMap((arm) => hits(exit, module, dispatch, rollback, (node) => contains(arm, node))));
}

function raisedTest(condition: string, name: string): boolean {
  if (condition === name || condition === `${name} is not None`) return true;
  const negated = /^not\s*(.+)$/s.exec(condition)?.[1];
  return negated !== undefined && bare(negated) === `${name} is None`;
}

/** The text without enclosing parentheses, its whitespace collapsed. */
export function bare(text: string): string {
  let out = text.replace(/\s+/g, ' ').trim();
  while (/^\(.*\)$/.test(out) && balanced(out.slice(1, -1))) out = out.slice(1, -1).trim();
  return out;
}

function balanced(text: string): boolean {
  let depth = 0;
  for (const char of text) {
    depth += char === '(' ? 1 : char === ')' ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth === 0;
}

// A name that says a transaction is open: yoyo's `_in_transaction`, sqlite3's `conn.in_transaction`.
const OPEN_TRANSACTION = /^(not\s+)?(?:[\w.]+\.)?_?in_(?:transaction|tx)(?:\(\))?$/i;

/**
 * The manager's return runs only while a transaction is open: in `if <open>:`, in the else of
 * `if not <open>:`, or after an `if not <open>:` whose body ends in a return.
 */
function selectedWhenTransactionOpen(returned: SyntaxNode, wrapper: PyFunction): boolean {
  let test: SyntaxNode | undefined;
  let arm: SyntaxNode | undefined;
  for (let child = returned, at = returned.parent; at && at.id !== wrapper.node.id; child = at, at = at.parent) {
    if (at.type === 'if_statement') {
      test = at;
      arm = child;
      break;
    }
  }
  if (test && arm) {
    const open = OPEN_TRANSACTION.exec(bare(test.childForFieldName('condition')?.text ?? ''));
    if (!open) return false;
    if (arm.id === test.childForFieldName('consequence')?.id) return !open[1];
    const alternatives = test.namedChildren.filter((child) => child.type === 'elif_clause' || child.type === 'else_clause');
    return arm.type === 'else_clause' && alternatives.length === 1 && Boolean(open[1]);
  }
  const previous = returned.previousNamedSibling;
  if (previous?.type !== 'if_statement' || previous.namedChildren.some((child) => child.type === 'elif_clause' || child.type === 'else_clause')) return false;
  const open = OPEN_TRANSACTION.exec(bare(previous.childForFieldName('condition')?.text ?? ''));
  const last = previous.childForFieldName('consequence')?.lastNamedChild;
  return Boolean(open?.[1]) && last?.type === 'return_statement';
}

const isBegin = (effect: Effect): boolean => effect.kind === 'db-begin' && effect.sql?.kind === 'begin';
const isSavepoint = (effect: Effect): boolean => effect.kind === 'db-begin' && effect.sql?.kind === 'savepoint';
// RELEASE is read as a commit elsewhere; here it would end only a savepoint, not the BEGIN.
const isCommit = (effect: Effect): boolean => effect.kind === 'db-commit' && effect.sql?.kind !== 'release';
// Inside the block any commit, a RELEASE too, is taken to end what the wrapper began.
export const isAnyCommit = (effect: Effect): boolean => effect.kind === 'db-commit';
const isRollback = (effect: Effect): boolean => effect.kind === 'db-rollback';
const isWholeRollback = (effect: Effect): boolean => isRollback(effect) && !/^\s*rollback\s+(?:transaction\s+|work\s+)?to\b/i.test(effect.sql?.text ?? '');

/** An effect found, with the function it is written in and how `self` relates to the instance there. */
interface Hit {
  effect: Effect;
  fn: PyFunction;
  module: PyModule;
  dispatch: Dispatch;
}

/**
 * The effects `wanted` accepts that the function runs, in the part `where` admits: its own, and those of
 * the methods it calls through `self.m()`, `super().m()` or a manager's `self.<attr>.m()` (all of their
 * code). With `always`, only effects that run whenever the function does, through calls that do.
 */
export function hits(
  fn: PyFunction,
  module: PyModule,
  dispatch: Dispatch,
  wanted: (effect: Effect) => boolean,
  where: (node: SyntaxNode) => boolean = () => true,
  always = false,
  depth = 0,
  seen = new Set<number>(),
): Hit[] {
  if (depth > MAX_DEPTH || seen.has(fn.node.id)) return [];
  seen.add(fn.node.id);
  const admitted = (node: SyntaxNode): boolean => where(node) && (!always || runsAlways(node, fn));
  const found: Hit[] = directEffects(fn, module)
    .filter((effect) => wanted(effect) && admitted(effect.node))
    .map((effect) => ({ effect, fn, module, dispatch }));
  for (const { node, callee } of scopeFacts(module, fn.node).calls) {
    if (!admitted(node)) continue;
    const target = calledMethod(callee, fn, module, dispatch);
    if (target) found.push(...hits(target.fn, target.module, target.dispatch, wanted, undefined, always, depth + 1, seen));
  }
  return found;
}

/** The connections the hits run on; a hit whose receiver cannot be traced adds none. */
function connectionsOf(found: readonly Hit[]): Set<string> {
  const connections = new Set<string>();
  for (const { effect, fn, module, dispatch } of found) {
    const connection = connectionOfCall(effect.call, fn, module, dispatch);
    if (connection !== undefined) connections.add(connection);
  }
  return connections;
}

export function intersect(a: ReadonlySet<string>, b: ReadonlySet<string>): Set<string> {
  return new Set([...a].filter((key) => b.has(key)));
}
