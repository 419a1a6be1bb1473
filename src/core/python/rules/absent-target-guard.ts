// A write whose target the function has first made sure does not exist: an earlier
// `if` on os.path.exists(T) / os.path.isfile(T) / os.path.lexists(T) / Path(T).exists()
// / T.exists() / T.is_file() (or a name bound to one) lets the function go on only
// when T is absent; every arm that does not refuse (raise, sys.exit(), exit(),
// quit(), os._exit(); not return, see refuses) has T absent. The write then creates a new file: a crash
// mid-write tears only that new file, and no old contents of T are lost. Nothing
// may delete T (or call a helper that deletes files) between the test and the write.
// buku's BukuCrypt.encrypt_file exits unless dbfile + '.enc' is absent before it
// writes the .enc beside the intact database.
// Partial: the test must be an `if` statement that precedes the write in one of the
// write's enclosing blocks (so it runs first on every path); a test in a loop
// condition, an assert, or a helper is not recognised, nor races between test and
// write (not a crash-safety question).
import type { Effect, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { ancestorsWithin, compactText, unparenthesized } from './syntax.ts';

const EXISTENCE_FUNCTIONS = new Set(['os.path.exists', 'os.path.isfile', 'os.path.lexists']);
const EXISTENCE_METHODS = new Set(['exists', 'is_file']);
const LEAVING_CALLS = new Set(['sys.exit', 'exit', 'quit', 'os._exit']);

/**
 * `keptAside`, when given, accepts an arm that goes on with T present but has first
 * copied or moved T's old contents to another name (kept-aside.ts): joblib's PrintTime
 * copies its log to logfile + '.1' only `if os.path.exists(logfile)`.
 */
export function targetKnownAbsent(
  target: SyntaxNode,
  write: Effect,
  fnNode: SyntaxNode,
  effects: readonly Effect[],
  keptAside?: (armBody: SyntaxNode) => boolean,
): boolean {
  const sameTarget = (path: SyntaxNode): boolean => samePath(path, target);
  for (const guard of precedingIfStatements(write.node, fnNode)) {
    if (!guaranteesAbsent(guard, sameTarget, keptAside)) continue;
    const deletedBetween = effects.some(
      (effect) =>
        effect.kind === 'file-delete' &&
        effect.node.startIndex >= guard.endIndex &&
        effect.node.endIndex <= write.node.startIndex &&
        (effect.via !== undefined || deletes(effect.node, sameTarget)),
    );
    if (!deletedBetween) return true;
  }
  return false;
}

/** `if` statements that run before `node` on every path: earlier siblings of `node`'s enclosing statements. */
function precedingIfStatements(node: SyntaxNode, fnNode: SyntaxNode): SyntaxNode[] {
  return precedingStatements(node, fnNode).filter((statement) => statement.type === 'if_statement');
}

/** Statements that run before `node` on every path that reaches it: earlier siblings of `node`'s enclosing statements. */
export function precedingStatements(node: SyntaxNode, fnNode: SyntaxNode): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  for (const ancestor of [node, ...ancestorsWithin(node, fnNode)]) {
    if (ancestor.parent?.type !== 'block') continue;
    for (let sibling = ancestor.previousNamedSibling; sibling; sibling = sibling.previousNamedSibling) {
      found.push(sibling);
    }
  }
  return found;
}

/** True when every way past the `if` (an arm that does not leave, or no arm taken) has the tested path absent. */
function guaranteesAbsent(ifStatement: SyntaxNode, sameTarget: (path: SyntaxNode) => boolean, keptAside?: (armBody: SyntaxNode) => boolean): boolean {
  const arms: { condition: SyntaxNode; body: SyntaxNode }[] = [];
  let elseBody: SyntaxNode | undefined;
  const first = ifStatement.childForFieldName('condition');
  const firstBody = ifStatement.childForFieldName('consequence');
  if (!first || !firstBody) return false;
  arms.push({ condition: first, body: firstBody });
  for (const clause of ifStatement.namedChildren) {
    const condition = clause.childForFieldName('condition');
    const body = clause.childForFieldName(clause.type === 'else_clause' ? 'body' : 'consequence');
    if (clause.type === 'elif_clause' && condition && body) arms.push({ condition, body });
    if (clause.type === 'else_clause' && body) elseBody = body;
  }
  let tested = false;
  // Once a condition that T's presence makes true was false, T is absent in every later arm.
  let absentAfterFalse = false;
  for (const { condition, body } of arms) {
    tested ||= mentionsTest(condition, sameTarget);
    if (!refuses(body) && !absentAfterFalse && !assertsAbsent(condition, sameTarget) && !keptAside?.(body)) return false;
    absentAfterFalse ||= presenceImplies(condition, sameTarget);
  }
  if ((!elseBody || !refuses(elseBody)) && !absentAfterFalse) return false;
  return tested;
}

/** The condition is true only when T is absent: `not exists(T)`, or an `and` with such a part. */
function assertsAbsent(condition: SyntaxNode, sameTarget: (path: SyntaxNode) => boolean): boolean {
  const node = unparenthesized(condition);
  if (node.type === 'not_operator') {
    const argument = node.childForFieldName('argument');
    return argument !== null && testsPresence(argument, sameTarget);
  }
  if (node.type === 'boolean_operator' && node.childForFieldName('operator')?.type === 'and') {
    return [node.childForFieldName('left'), node.childForFieldName('right')].some((side) => side !== null && assertsAbsent(side, sameTarget));
  }
  return false;
}

/** T's presence makes the condition true: `exists(T)`, or an `or` with it as a part. */
function presenceImplies(condition: SyntaxNode, sameTarget: (path: SyntaxNode) => boolean): boolean {
  const node = unparenthesized(condition);
  if (testsPresence(node, sameTarget)) return true;
  if (node.type === 'boolean_operator' && node.childForFieldName('operator')?.type === 'or') {
    return [node.childForFieldName('left'), node.childForFieldName('right')].some((side) => side !== null && presenceImplies(side, sameTarget));
  }
  return false;
}

function mentionsTest(condition: SyntaxNode, sameTarget: (path: SyntaxNode) => boolean): boolean {
  return [condition, ...condition.descendantsOfType(['call', 'identifier'])].some((node) => testsPresence(node, sameTarget));
}

/** `exists(T)` as written, or a name last assigned one before this use. */
function testsPresence(expression: SyntaxNode, sameTarget: (path: SyntaxNode) => boolean): boolean {
  let node = unparenthesized(expression);
  if (node.type === 'identifier') {
    const assigned = localAssignmentBefore(node);
    if (!assigned) return false;
    node = unparenthesized(assigned);
  }
  const path = node.type === 'call' ? testedPath(node) : undefined;
  return path !== undefined && sameTarget(path);
}

/** The path an existence test asks about: os.path.exists(T), T.exists(), Path(T).exists(). */
function testedPath(call: SyntaxNode): SyntaxNode | undefined {
  const parts = callParts(call);
  if (EXISTENCE_FUNCTIONS.has(parts.callee)) return parts.positional[0];
  if (!EXISTENCE_METHODS.has(parts.method) || !parts.receiver || parts.positional.length > 0) return undefined;
  const receiver = unparenthesized(parts.receiver);
  if (receiver.type === 'call' && /(^|\.)(Path|PurePath)$/.test(callParts(receiver).callee)) return callParts(receiver).positional[0];
  return receiver;
}

/**
 * The block's last statement raises or ends the process. Not a `return`: after a crash mid-write the
 * torn new file is present, and a guard that returns would keep it silently on the re-run as if it were
 * whole (a don't-overwrite upload); one that raises or exits refuses and says so.
 */
function refuses(block: SyntaxNode): boolean {
  const last = block.namedChildren.filter((child) => child.type !== 'comment').at(-1);
  if (!last) return false;
  if (last.type === 'raise_statement') return true;
  const expression = last.type === 'expression_statement' ? last.namedChildren[0] : undefined;
  return expression?.type === 'call' && LEAVING_CALLS.has(callParts(expression).callee);
}

function deletes(node: SyntaxNode, sameTarget: (path: SyntaxNode) => boolean): boolean {
  const call = callParts(node);
  const path = call.positional[0] ?? call.receiver;
  return path !== undefined && sameTarget(path);
}

/**
 * The same path: the same text and, for a name, the same last assignment (not rebound
 * between the two uses); or a name and the expression it was last assigned.
 */
export function samePath(a: SyntaxNode, b: SyntaxNode): boolean {
  const aValue = a.type === 'identifier' ? localAssignmentBefore(a) : undefined;
  const bValue = b.type === 'identifier' ? localAssignmentBefore(b) : undefined;
  if (compactText(a) === compactText(b)) return aValue?.id === bValue?.id;
  return (aValue !== undefined && compactText(aValue) === compactText(b)) || (bValue !== undefined && compactText(bValue) === compactText(a));
}
