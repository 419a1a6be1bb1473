// The insert-or-update idiom: `try: conn.execute(INSERT) except sqlite3.IntegrityError: conn.execute(UPDATE)`.
// The except arm runs only when the INSERT raised, and a statement that raised wrote nothing (SQLite
// undoes a failed statement's changes), so the two writes never both land in one pass.
import type { SqlInfo, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { splitSqlStatements } from '../sql.ts';
import { callsItself, caughtClasses, enclosingExceptClauses } from './syntax.ts';

export interface WriteCall {
  node: SyntaxNode;
  sql?: SqlInfo | undefined;
}

/** True when one of the two calls is a try body's last statement and the other sits in an IntegrityError-only except clause of that try. */
export function integrityFallback(a: WriteCall, b: WriteCall, fnNode: SyntaxNode): boolean {
  // A function that calls itself can run the INSERT in one call of it and the except arm in another.
  if (callsItself(fnNode)) return false;
  return fallsBackOn(a, b.node, fnNode) || fallsBackOn(b, a.node, fnNode);
}

function fallsBackOn({ node: attempt, sql }: WriteCall, fallback: SyntaxNode, fnNode: SyntaxNode): boolean {
  if (!singleInsert(attempt, sql)) return false;
  return enclosingExceptClauses(fallback, fnNode).some((clause) => {
    const tryStatement = clause.parent;
    if (clause.type !== 'except_clause' || tryStatement?.type !== 'try_statement') return false;
    return onlyIntegrityError(clause) && endsTryBody(attempt, tryStatement) && !hasElseOrFinally(tryStatement);
  });
}

/**
 * `execute` (one statement; not executemany or executescript, which can fail part-way having written
 * rows) of a resolved `INSERT INTO t (...) VALUES (...)` of one row: not INSERT ... SELECT or several
 * VALUES rows (`OR FAIL`, or a non-transactional MySQL table, keeps the rows written before the failing
 * one), and no other call anywhere in it (an argument's call could write, then raise).
 */
const VALUE = String.raw`(\?\d*|:\w+|'[^']*'|-?\d+(\.\d+)?|null)`;
// Spelled out whole: a table, its column names, and one VALUES row of parameters or literals only. Nothing
// interpolated (`{ph}`, `%s`: the text could be several rows or a SELECT), no OR clause, no function calls.
const ONE_ROW_INSERT = new RegExp(String.raw`^\s*insert\s+into\s+[\w."]+\s*(\(\s*[\w."]+(\s*,\s*[\w."]+)*\s*\))?\s*values\s*\(\s*${VALUE}(\s*,\s*${VALUE})*\s*\)\s*$`, 'i');

function singleInsert(call: SyntaxNode, sql: SqlInfo | undefined): boolean {
  if (call.type !== 'call' || callParts(call).method !== 'execute') return false;
  if (call.descendantsOfType('call').some((inner) => inner.id !== call.id)) return false;
  const statements = sql?.text === undefined ? [] : splitSqlStatements(sql.text);
  return statements.length === 1 && ONE_ROW_INSERT.test(statements[0]!);
}

/** The try body's last statement is the call itself, standing alone: nothing after it can raise into the except arm. */
function endsTryBody(call: SyntaxNode, tryStatement: SyntaxNode): boolean {
  const body = tryStatement.childForFieldName('body');
  const last = body?.namedChildren.filter((child) => child.type !== 'comment').at(-1);
  return last?.type === 'expression_statement' && last.namedChildCount === 1 && last.namedChild(0)?.id === call.id;
}

/** An `else` runs after the body succeeded and a `finally` always: either can add writes to the INSERT's pass. */
function hasElseOrFinally(tryStatement: SyntaxNode): boolean {
  return tryStatement.namedChildren.some((child) => child.type === 'else_clause' || child.type === 'finally_clause');
}

/** `except sqlite3.IntegrityError:`, `except IntegrityError as e:`, `except db.IntegrityError:`: nothing broader. */
function onlyIntegrityError(clause: SyntaxNode): boolean {
  return caughtClasses(clause)?.every((name) => /^([A-Za-z_][A-Za-z0-9_]*\.)*IntegrityError$/.test(name.text)) ?? false;
}
