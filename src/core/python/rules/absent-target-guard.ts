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
import { ancestorsWithin, compactText, rootOf, unparenthesized } from './syntax.ts';
import { boundOutsideImports } from './single-binding.ts';

const EXISTENCE_FUNCTIONS = new Set(['os.path.exists', 'os.path.isfile', 'os.path.lexists']);
const EXISTENCE_METHODS = new Set(['exists', 'is_file']);
/** os.path's existence tests by their own name, for `from os.path import exists`. */
const EXISTENCE_NAMES = new Set(['exists', 'isfile', 'lexists']);
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

/**
 * What a re-run that finds T present skips, for one existence test that keeps it from `node`: the statements of
 * `container` from `from` on (all of the `if not exists(T)` body or of the arm; after a preceding guard, the rest of
 * the loop body for a `continue`, all of it for a `break`, the rest of the function for a `return` or a refusal, from
 * the start of a loop around `node` within it if there is one, whose later rounds are skipped too). What comes before
 * the open counts as well: state it sets (`self.fresh = True`) may decide a filling later. `presentReturns` are the
 * return statements the re-run leaves by instead (the guard's or the earlier arm's), `after` where the test ends;
 * `testsPresence` tells a call that tests T's presence again, however spelled.
 */
export interface SkippedOnRerun {
  container: SyntaxNode;
  from: number;
  presentReturns: SyntaxNode[];
  after: number;
  testsPresence: (call: SyntaxNode) => boolean;
}

/**
 * A weaker question, for an open that writes nothing (created-empty.ts): is `node` reached only while T is absent,
 * with nothing the re-run's existence test then skips doing more than `skippedIsQuiet` allows? Any way out of a guard
 * counts here (return, continue and break too, not only a refusal). Besides a preceding `if`, an enclosing arm
 * counts: the body of `if not exists(T)` (or of an `and` with that part), or a later arm (elif, else) of an `if`
 * whose earlier condition T's presence makes true (Quod Libet's RootPathFile.valid: `if os.path.exists(p): return
 * ... else: open(p, 'w')`). Nothing may write, rename or replace a file between the test and `node` (the file made
 * present again, perhaps with contents), however it is spelled. Every test found, not only one, must have what it
 * skips pass `skippedIsQuiet`: a crash after the open leaves the empty file, and the re-run's test then skips the
 * filling (a settings file's defaults, a keyring gpg fills, a schema) for good.
 * Partial: a test in a helper, a loop condition or an assert is not recognised.
 */
export function reachedOnlyWhenAbsent(
  target: SyntaxNode,
  node: SyntaxNode,
  fnNode: SyntaxNode,
  effects: readonly Effect[],
  skippedIsQuiet: (skipped: SkippedOnRerun) => boolean,
): boolean {
  const sameTarget = (path: SyntaxNode): boolean => samePath(path, target);
  const body = fnNode.childForFieldName('body');
  if (!body) return false;
  const found: { test: SyntaxNode; skipped: Omit<SkippedOnRerun, 'testsPresence'>[] }[] = [];
  // From a preceding `if`, what its arms do counts too (`if not exists(T): copy(default, T)` makes T present).
  for (const guard of precedingIfStatements(node, fnNode)) {
    const test = guard.childForFieldName('condition');
    if (!test || !guaranteesAbsent(guard, sameTarget, undefined, leaves)) continue;
    found.push({ test, skipped: skippedPast(guard, node, fnNode, body, test.endIndex) });
  }
  for (const ancestor of [node, ...ancestorsWithin(node, fnNode)]) {
    const parent = ancestor.parent;
    if (!parent) continue;
    // The body of `if not exists(T):` or `elif not exists(T):`.
    if ((parent.type === 'if_statement' || parent.type === 'elif_clause') && parent.childForFieldName('consequence')?.id === ancestor.id) {
      const condition = parent.childForFieldName('condition');
      if (condition && assertsAbsent(condition, sameTarget)) {
        found.push({ test: condition, skipped: [{ container: ancestor, from: ancestor.startIndex, presentReturns: [], after: condition.endIndex }] });
      }
    }
    // A later arm of an `if` an earlier condition of which T's presence makes true.
    if (parent.type === 'if_statement' && (ancestor.type === 'elif_clause' || ancestor.type === 'else_clause')) {
      const earlierArms = [parent, ...parent.namedChildren.filter((clause) => clause.type === 'elif_clause' && clause.endIndex <= ancestor.startIndex)];
      const implying = earlierArms.map((arm) => arm.childForFieldName('condition')).find((condition) => condition && presenceImplies(condition, sameTarget));
      const armBody = ancestor.childForFieldName(ancestor.type === 'else_clause' ? 'body' : 'consequence');
      if (implying && armBody) {
        const presentReturns = earlierArms.flatMap((arm) => {
          const last = lastStatement(arm.childForFieldName('consequence'));
          return last?.type === 'return_statement' ? [last] : [];
        });
        found.push({ test: implying, skipped: [{ container: armBody, from: armBody.startIndex, presentReturns, after: implying.endIndex }] });
      }
    }
  }
  // `self.path = other` between the test and the open: the same text, another file (a name is told apart by samePath).
  const text = compactText(target);
  const reassignments = fnNode.descendantsOfType(['assignment', 'augmented_assignment']).filter((assignment) => {
    const left = assignment.childForFieldName('left');
    return left !== null && left.type !== 'identifier' && compactText(left) === text;
  });
  const qualifies = found.some(
    ({ test }) =>
      !effects.some(
        (effect) =>
          effect.node.id !== node.id &&
          (effect.kind === 'file-write' || effect.kind === 'file-rename' || effect.kind === 'file-replace') &&
          effect.node.startIndex >= test.endIndex &&
          effect.node.endIndex <= node.startIndex,
      ) && !reassignments.some((assignment) => assignment.startIndex >= test.endIndex && assignment.endIndex <= node.startIndex),
  );
  const testsT = (call: SyntaxNode): boolean => call.type === 'call' && testsPresence(call, sameTarget);
  return qualifies && found.every(({ skipped }) => skipped.every((region) => skippedIsQuiet({ ...region, testsPresence: testsT })));
}

const LOOP_STATEMENTS = new Set(['for_statement', 'while_statement']);

/** Where what a re-run skips in `container` starts: after the guard, or at the outermost loop around `node` within `container`. */
function skippedFrom(node: SyntaxNode, container: SyntaxNode, guard: SyntaxNode): number {
  let from = guard.endIndex;
  for (const ancestor of ancestorsWithin(node, container)) {
    if (LOOP_STATEMENTS.has(ancestor.type)) from = Math.min(from, ancestor.startIndex);
  }
  return from;
}

/** What a preceding guard's leaving arms skip: the rest of the function (return, refusal), of the loop (continue), or the loop (break). */
function skippedPast(guard: SyntaxNode, node: SyntaxNode, fnNode: SyntaxNode, body: SyntaxNode, after: number): Omit<SkippedOnRerun, 'testsPresence'>[] {
  const arms = [guard.childForFieldName('consequence'), ...guard.namedChildren.filter((clause) => clause.type === 'elif_clause' || clause.type === 'else_clause').map((clause) => clause.childForFieldName(clause.type === 'else_clause' ? 'body' : 'consequence'))];
  const ends = arms.map((arm) => lastStatement(arm)).filter((last): last is SyntaxNode => last !== undefined);
  const presentReturns = ends.filter((last) => last.type === 'return_statement');
  const skipped: Omit<SkippedOnRerun, 'testsPresence'>[] = [];
  if (presentReturns.length > 0 || arms.some((arm) => arm && refuses(arm))) skipped.push({ container: body, from: skippedFrom(node, body, guard), presentReturns, after });
  const loop = ancestorsWithin(guard, fnNode).find((ancestor) => LOOP_STATEMENTS.has(ancestor.type));
  const loopBody = loop?.childForFieldName('body') ?? body;
  if (ends.some((last) => last.type === 'continue_statement')) skipped.push({ container: loopBody, from: skippedFrom(node, loopBody, guard), presentReturns: [], after });
  if (ends.some((last) => last.type === 'break_statement')) skipped.push({ container: loopBody, from: loopBody.startIndex, presentReturns: [], after });
  return skipped;
}

function lastStatement(block: SyntaxNode | null | undefined): SyntaxNode | undefined {
  return block?.namedChildren.filter((child) => child.type !== 'comment').at(-1);
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
function guaranteesAbsent(
  ifStatement: SyntaxNode,
  sameTarget: (path: SyntaxNode) => boolean,
  keptAside?: (armBody: SyntaxNode) => boolean,
  goesAway: (block: SyntaxNode) => boolean = refuses,
): boolean {
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
    if (!goesAway(body) && !absentAfterFalse && !assertsAbsent(condition, sameTarget) && !keptAside?.(body)) return false;
    absentAfterFalse ||= presenceImplies(condition, sameTarget);
  }
  if ((!elseBody || !goesAway(elseBody)) && !absentAfterFalse) return false;
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
  if (EXISTENCE_FUNCTIONS.has(parts.callee) || importedExistenceFunction(parts.callee, call)) return parts.positional[0];
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

/** The block's last statement leaves what follows the `if` behind: a refusal, or return, continue, break. */
function leaves(block: SyntaxNode): boolean {
  const last = block.namedChildren.filter((child) => child.type !== 'comment').at(-1);
  return refuses(block) || last?.type === 'return_statement' || last?.type === 'continue_statement' || last?.type === 'break_statement';
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

/**
 * `exists(T)` after `from os.path import exists` (ranger's Tags.__init__), `isfile` or `lexists` likewise (also
 * under an alias), or `path.exists(T)` after `from os import path`: imported at module level and never bound
 * otherwise in the module (no def, class, assignment or parameter of that name anywhere), so the name is os.path's.
 */
function importedExistenceFunction(callee: string, call: SyntaxNode): boolean {
  const root = rootOf(call);
  const [first, second, ...rest] = callee.split('.');
  if (!first || rest.length > 0 || (second !== undefined && !EXISTENCE_NAMES.has(second))) return false;
  // `exists(T)`: the name imported from os.path; `path.exists(T)`: `path` imported from os.
  const wanted = second === undefined ? { module: 'os.path', name: (original: string) => EXISTENCE_NAMES.has(original) } : { module: 'os', name: (original: string) => original === 'path' };
  let imported = false;
  for (const statement of root.namedChildren) {
    if (statement.type !== 'import_from_statement' || statement.childForFieldName('module_name')?.text !== wanted.module) continue;
    for (const child of statement.childrenForFieldName('name')) {
      const original = child.type === 'aliased_import' ? child.childForFieldName('name')?.text : child.text;
      const bound = child.type === 'aliased_import' ? child.childForFieldName('alias')?.text : child.text;
      if (original !== undefined && bound === first && wanted.name(original)) imported = true;
    }
  }
  return imported && !boundOutsideImports(first, root);
}
