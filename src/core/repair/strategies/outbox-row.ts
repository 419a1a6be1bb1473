// Commit, then send a message that carries a value made during the run (an
// invitation's random token): a crash between the two leaves a record whose
// message was never sent, and moving the commit below the send would not help
// (the re-run makes a new token; its keyed send is dropped, so the one delivered
// link names a token no row holds). The record itself becomes the outbox row:
// it is stored `'pending'` instead of its done status, the send gets a stable
// key (`f"invitations-{email}"`), and the row is marked done after the send. The
// re-run finds the pending row, reuses its stored value and sends again (the
// provider drops the repeat); the existence check that raised on a repeat now
// raises only for a row already done.
//
// Narrow on purpose: the record is an INSERT with explicit columns, written as a
// top-level statement, one of whose values is a string literal (the done
// status), one a function parameter (the stable key), and one the per-run local.
import { callParts } from '../../python/body-walk.ts';
import { findEffects } from '../../python/effects.ts';
import type { Effect, SyntaxNode } from '../../python/model.ts';
import { PER_RUN_VALUE } from '../../python/rules/send-before-record.ts';
import { localAssignmentBefore } from '../../python/local-assignments.ts';
import { applyEdits, freshName, indentOf, indentUnit, lineEnd, lineStart, namesUsed, reindentLines, type TextEdit } from '../source-edit.ts';
import { keywordInsertion, sendsPerRunValue } from '../stable-key.ts';
import { commitReceiver, statementsOf, type RepairStrategy } from './strategy.ts';

const PENDING = 'pending';

export const outboxRow: RepairStrategy = {
  id: 'outbox-row',
  answers: [],
  apply({ module, fn }) {
    const body = fn.node.childForFieldName('body');
    if (!body) return undefined;
    const { source } = module;
    const top = statementsOf(body);
    const topOf = (node: SyntaxNode) => top.find((s) => s.startIndex <= node.startIndex && s.endIndex >= node.endIndex);
    const effects = findEffects(fn, module).filter((e) => !e.via);
    for (const commit of effects.filter((e) => e.kind === 'db-commit' && !e.inLoop)) {
      const commitStatement = topOf(commit.node);
      const conn = commitStatement && commitReceiver(commitStatement);
      if (!commitStatement || !conn) continue;
      const later = effects.filter((e) => e.node.startIndex > commitStatement.endIndex);
      const send = later[0];
      if (!send || send.kind !== 'send' || send.idempotencyKey || send.inLoop || !sendsPerRunValue(send.node)) continue;
      const sendStatement = topOf(send.node);
      if (sendStatement?.type !== 'expression_statement' || sendStatement.namedChildren[0]?.id !== send.node.id) continue;
      const write = lastWriteBefore(effects, commit);
      const writeStatement = write && topOf(write.node);
      if (!write || writeStatement?.type !== 'expression_statement' || writeStatement.namedChildren[0]?.id !== write.node.id) continue;
      const record = insertParts(write, fn.params);
      if (!record) continue;
      const assignment = top.find((s) => s.startIndex < writeStatement.startIndex && assignsPerRun(s, record.perRun.name));
      if (!assignment || !sendsValue(send.node, record.perRun.name)) continue;

      const unit = indentUnit(module.tree.rootNode, source);
      const indent = indentOf(source, writeStatement);
      const q = record.sqlNode.text.match(/^[rRbBuU]*(["'])/)?.[1] ?? '"';
      const reader = callParts(write.node).receiver?.text ?? conn;
      const pending = freshName(namesUsed(fn.node), 'pending');
      const { table, keyColumn, statusColumn, done, key } = record;
      const edits: TextEdit[] = [];

      // The check that raised on any repeat raises only once the row is done.
      const guard = top.find((s) => s.endIndex <= assignment.startIndex && raisesWhenRowExists(s, table, keyColumn));
      const guardSql = guard && descendantStrings(guard).find((n) => new RegExp(`\\bwhere\\s+${keyColumn}\\s*=\\s*\\?\\s*$`, 'i').test(stringBody(n)));
      if (guard && (!guardSql || !guardSql.text.endsWith('"'))) continue;
      if (guardSql) edits.push({ start: guardSql.endIndex - 1, end: guardSql.endIndex - 1, text: ` AND ${statusColumn} = '${done}'` });

      // The per-run value is the stored one when an earlier run left the row pending.
      const right = assignment.namedChildren[0]!.childForFieldName('right')!;
      const lookup = `${pending} = ${reader}.execute(${q}SELECT ${record.perRun.column} FROM ${table} WHERE ${keyColumn} = ?${q}, (${key},)).fetchone()`;
      edits.push({ start: lineStart(source, assignment.startIndex), end: lineStart(source, assignment.startIndex), text: `${indentOf(source, assignment)}${lookup}\n` });
      edits.push({ start: right.startIndex, end: right.endIndex, text: `${pending}[0] if ${pending} else ${right.text}` });

      // The record, stored pending, and its commit run only when no earlier run stored it.
      const block = reindentLines(source, writeStatement, commitStatement, unit, fn.node);
      const pendingSql = record.sqlNode.text.replace(`'${done}'`, `'${PENDING}'`);
      edits.push({
        start: lineStart(source, writeStatement.startIndex),
        end: lineEnd(source, commitStatement.endIndex - 1),
        text: `${indent}if not ${pending}:\n${block.replace(record.sqlNode.text, pendingSql)}${block.endsWith('\n') ? '' : '\n'}`,
      });

      const stableKey = `f"${table}-{${key}}"`;
      edits.push(keywordInsertion(source, callParts(send.node).argumentList!, `idempotency_key=${stableKey}`));
      const after = lineEnd(source, sendStatement.endIndex - 1);
      const sendIndent = indentOf(source, sendStatement);
      edits.push({
        start: after,
        end: after,
        // The mark opens its own transaction (as sqlite3's default mode would), so in autocommit mode too a crash
        // before its commit leaves the row pending for the re-run, never marked done by a run that did not return.
        text: `${source[after - 1] === '\n' ? '' : '\n'}${sendIndent}if not ${conn}.in_transaction:\n${sendIndent}${unit}${conn}.execute(${q}BEGIN${q})\n${sendIndent}${reader}.execute(${q}UPDATE ${table} SET ${statusColumn} = '${done}' WHERE ${keyColumn} = ?${q}, (${key},))\n${sendIndent}${conn}.commit()\n`,
      });
      return {
        source: applyEdits(source, edits),
        summary: `the ${table} row is stored '${PENDING}' and marked '${done}' after the send, which passes a stable idempotency key (${stableKey}): a re-run after a crash finds the pending row, reuses its ${record.perRun.column} and sends again, and the provider drops the repeat`,
      };
    }
    return undefined;
  },
};

interface InsertParts {
  table: string;
  sqlNode: SyntaxNode;
  statusColumn: string;
  done: string;
  keyColumn: string;
  key: string;
  perRun: { column: string; name: string };
}

/** `INSERT INTO t (a, b, c) VALUES (?, ?, 'sent')` with a one-line literal SQL string and a tuple of parameters. */
function insertParts(write: Effect, params: readonly string[]): InsertParts | undefined {
  const parts = callParts(write.node);
  const sqlNode = parts.positional[0];
  const tuple = parts.positional[1];
  if (sqlNode?.type !== 'string' || tuple?.type !== 'tuple') return undefined;
  const match = /^\s*insert\s+into\s+(\w+)\s*\(([^)]*)\)\s*values\s*\(([^)]*)\)\s*;?\s*$/i.exec(stringBody(sqlNode));
  if (!match) return undefined;
  const [, table, columnList, valueList] = match as unknown as [string, string, string, string];
  const columns = columnList.split(',').map((c) => c.trim());
  const values = valueList.split(',').map((v) => v.trim());
  if (columns.length !== values.length) return undefined;
  const items = tuple.namedChildren.filter((n) => n.type !== 'comment');
  let placeholder = 0;
  const bound = values.map((v) => (v === '?' ? items[placeholder++]?.text : undefined));
  if (placeholder !== items.length) return undefined;
  const literals = values.map((v, i) => ({ column: columns[i]!, done: /^'(\w+)'$/.exec(v)?.[1] })).filter((l) => l.done);
  if (literals.length !== 1 || literals[0]!.done === PENDING) return undefined;
  const keyIndex = bound.findIndex((b) => b !== undefined && params.includes(b));
  if (keyIndex < 0) return undefined;
  const perRunIndex = bound.findIndex((b, i) => i !== keyIndex && b !== undefined && /^\w+$/.test(b) && !params.includes(b));
  if (perRunIndex < 0) return undefined;
  return {
    table,
    sqlNode,
    statusColumn: literals[0]!.column,
    done: literals[0]!.done!,
    keyColumn: columns[keyIndex]!,
    key: bound[keyIndex]!,
    perRun: { column: columns[perRunIndex]!, name: bound[perRunIndex]! },
  };
}

function lastWriteBefore(effects: readonly Effect[], commit: Effect): Effect | undefined {
  const before = effects.filter((e) => e.node.startIndex < commit.node.startIndex);
  const lastCommit = before.map((e) => e.kind).lastIndexOf('db-commit');
  return before.slice(lastCommit + 1).reverse().find((e) => e.kind === 'db-write' && e.sql?.kind === 'write');
}

/** `name = <a value made during the run>` as a statement of its own. */
function assignsPerRun(statement: SyntaxNode, name: string): boolean {
  const assignment = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
  if (assignment?.type !== 'assignment') return false;
  return assignment.childForFieldName('left')?.text === name && PER_RUN_VALUE.test(assignment.childForFieldName('right')?.text ?? '');
}

/** The send's arguments use `name`, directly or through locals built from it (`link = f"...{token}"`). */
function sendsValue(send: SyntaxNode, name: string): boolean {
  const seen = new Set<string>();
  const uses = (node: SyntaxNode, depth: number): boolean =>
    node.descendantsOfType('identifier').some((id) => {
      if (id.text === name) return true;
      if (depth > 3 || seen.has(id.text)) return false;
      seen.add(id.text);
      const value = localAssignmentBefore(id);
      return value !== undefined && uses(value, depth + 1);
    });
  const args = send.childForFieldName('arguments');
  return args !== null && uses(args, 0);
}

/** `if <conn>.execute("SELECT ... FROM t WHERE key = ?", ...).fetchone(): raise ...` */
function raisesWhenRowExists(statement: SyntaxNode, table: string, keyColumn: string): boolean {
  if (statement.type !== 'if_statement' || statement.childForFieldName('alternative')) return false;
  const condition = statement.childForFieldName('condition');
  const consequence = statement.childForFieldName('consequence');
  const inner = consequence ? statementsOf(consequence) : [];
  if (!condition || inner.length !== 1 || inner[0]!.type !== 'raise_statement') return false;
  return new RegExp(`^\\s*select\\b[^;]*\\bfrom\\s+${table}\\s+where\\s+${keyColumn}\\s*=\\s*\\?\\s*$`, 'i').test(descendantStrings(condition).map(stringBody).join(' ')) && /\.fetchone\(\)\s*$/.test(condition.text);
}

function descendantStrings(node: SyntaxNode): SyntaxNode[] {
  return node.descendantsOfType('string');
}

/** A plain one-line string literal's text between its quotes. */
function stringBody(node: SyntaxNode): string {
  return node.text.replace(/^[rRbBuU]*(["'])/, '').replace(/["']$/, '');
}
