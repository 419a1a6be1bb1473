// A loop that only retries one statement is not a loop of writes. offlineimap's
// LocalStatusSQLiteFolder.__sql_write: `while not success: try: ...execute(sql, args);
// success = True; commit() except sqlite.OperationalError: ...` runs the execute
// again only after an attempt raised. A statement that raised wrote nothing (SQLite
// rolls a failed statement back). A commit that raised ('database is locked' in
// default mode) saved nothing but leaves the transaction open with the attempt's
// row in it; the retry's execute joins that transaction and the next commit saves
// both rows: a duplicate, which is a bug of its own, but not a crash window, since
// the two are saved together or not at all (in autocommit there is no transaction
// for commit() to fail on). What this file answers is only that the loop never
// saves one attempt's write apart from another's.
import type { SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { ancestorsWithin, caughtClasses, contains, mutuallyExclusive } from './syntax.ts';
import { binds } from './exclusive-guards.ts';

const LOOPS = new Set(['for_statement', 'while_statement']);
const COMPREHENSIONS = new Set(['list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);
const SCOPES = new Set(['function_definition', 'lambda', 'class_definition']);
/** DB-API error classes: only database calls raise them, so a handler of these alone sees no other code's failures. */
const DATABASE_ERROR = /^(?:[A-Za-z_][\w.]*\.)?(OperationalError|DatabaseError)$/;

/**
 * True when `call`, a plain `execute` (one statement: executemany and scripts can fail after part of
 * their work), sits in at least one loop of `fnNode` and every loop around it is a retry of it:
 * the loop body is one `try` whose body holds the call, and
 * - once the call has run without raising, the loop is left: a `break` (of this loop) or `return`
 *   follows it in a block around it, or the loop is `while not <flag>:` and `<flag> = True` follows it
 *   so, with no other binding of the flag in the loop outside the handlers;
 * - nothing in the try body, its `else` or `finally` continues the loop;
 * - after the call, on its path, the only call is a commit of the same receiver;
 * - every handler that does not end by leaving catches only OperationalError or DatabaseError, which
 *   code other than the database's does not raise (a context manager's exit around the call is taken
 *   to be such other code, unless it is the connection's: then it commits, as above).
 */
export function retriedOnlyOnFailure(call: SyntaxNode, fnNode: SyntaxNode): boolean {
  if (call.type !== 'call' || callParts(call).method !== 'execute') return false;
  const ancestors = ancestorsWithin(call, fnNode);
  if (ancestors.some((node) => COMPREHENSIONS.has(node.type) || SCOPES.has(node.type))) return false;
  const loops = ancestors.filter((node) => LOOPS.has(node.type) && contains(node.childForFieldName('body')!, call));
  // A call in a loop's iterable or a while's condition is repeated by it.
  if (ancestors.some((node) => LOOPS.has(node.type) && !loops.includes(node))) return false;
  return loops.length > 0 && loops.every((loop) => retriesCall(loop, call, fnNode));
}

function retriesCall(loop: SyntaxNode, call: SyntaxNode, fnNode: SyntaxNode): boolean {
  const statements = statementsOf(loop.childForFieldName('body'));
  const attempt = statements[0];
  if (statements.length !== 1 || attempt?.type !== 'try_statement') return false;
  const body = attempt.childForFieldName('body');
  if (!body || !contains(body, call)) return false;
  const clauses = attempt.namedChildren.filter((child) => child.type !== 'block' && child.type !== 'comment');
  const handlers = clauses.filter((clause) => clause.type === 'except_clause');
  if (clauses.some((clause) => clause.type === 'except_group_clause')) return false;
  if ([body, ...clauses.filter((clause) => !handlers.includes(clause))].some((part) => continuesLoop(part, loop))) return false;
  if (!leavesAfterSuccess(loop, body, call)) return false;
  if (!onlyCommitAfter(call, body, fnNode)) return false;
  return handlers.every((handler) => endsByLeaving(handler) || catchesOnlyDatabaseErrors(handler));
}

function statementsOf(block: SyntaxNode | null): SyntaxNode[] {
  return block?.namedChildren.filter((child) => child.type !== 'comment') ?? [];
}

/** A `continue` in `part` that goes to `loop` (not to a loop nested in it). */
function continuesLoop(part: SyntaxNode, loop: SyntaxNode): boolean {
  return part.descendantsOfType('continue_statement').some((statement) => targetLoop(statement)?.id === loop.id);
}

function leavesAfterSuccess(loop: SyntaxNode, body: SyntaxNode, call: SyntaxNode): boolean {
  const after = statementsAfterOnPath(call, body);
  if (after.some((statement) => statement.type === 'return_statement' || (statement.type === 'break_statement' && targetLoop(statement)?.id === loop.id))) return true;
  const flag = whileNotFlag(loop);
  if (!flag) return false;
  const setAfter = after.find((statement) => statement.type === 'expression_statement' && setsTrue(statement.namedChildren[0], flag));
  if (!setAfter) return false;
  // Any other binding of the flag in the loop (a tuple target, a for, a walrus too) must be on the failure path.
  const handlers = loop.descendantsOfType('except_clause');
  return loop.descendantsOfType('identifier').every(
    (identifier) => identifier.text !== flag || !binds(identifier) || contains(setAfter, identifier) || handlers.some((handler) => contains(handler, identifier)),
  );
}

/** Statements of the blocks around the call (inside the try body) that come after it: each runs once the call has. */
function statementsAfterOnPath(call: SyntaxNode, body: SyntaxNode): SyntaxNode[] {
  return body.descendantsOfType('block').concat(body).filter((block) => contains(block, call))
    .flatMap((block) => statementsOf(block).filter((statement) => statement.startIndex >= call.endIndex));
}

function targetLoop(statement: SyntaxNode): SyntaxNode | undefined {
  let node = statement.parent;
  while (node && !LOOPS.has(node.type) && !SCOPES.has(node.type)) node = node.parent;
  return node && LOOPS.has(node.type) ? node : undefined;
}

/** `while not flag:` → `flag`. */
function whileNotFlag(loop: SyntaxNode): string | undefined {
  if (loop.type !== 'while_statement') return undefined;
  const condition = loop.childForFieldName('condition');
  const operand = condition?.type === 'not_operator' ? condition.childForFieldName('argument') : undefined;
  return operand?.type === 'identifier' ? operand.text : undefined;
}

function setsTrue(node: SyntaxNode | undefined, flag: string): boolean {
  return node?.type === 'assignment' && node.childForFieldName('left')?.text === flag && node.childForFieldName('right')?.type === 'true';
}

/** After the call, on a path it can take in the same pass, the try body calls nothing but `<receiver>.commit()`. */
function onlyCommitAfter(call: SyntaxNode, body: SyntaxNode, fnNode: SyntaxNode): boolean {
  const receiver = callParts(call).receiver?.text;
  return body.descendantsOfType('call').every((later) => {
    if (later.startIndex < call.endIndex || mutuallyExclusive(call, later, fnNode)) return true;
    const parts = callParts(later);
    return receiver !== undefined && parts.method === 'commit' && parts.receiver?.text === receiver && parts.positional.length === 0;
  });
}

function endsByLeaving(handler: SyntaxNode): boolean {
  const block = handler.namedChildren.find((child) => child.type === 'block');
  const last = statementsOf(block ?? null).at(-1)?.type;
  return last === 'raise_statement' || last === 'return_statement' || last === 'break_statement';
}

/** `except sqlite3.OperationalError [as e]:`, or a tuple of such classes; a bare `except:` catches anything. */
function catchesOnlyDatabaseErrors(handler: SyntaxNode): boolean {
  return caughtClasses(handler)?.every((cls) => (cls.type === 'identifier' || cls.type === 'attribute') && DATABASE_ERROR.test(cls.text.replace(/\s+/g, ''))) ?? false;
}
