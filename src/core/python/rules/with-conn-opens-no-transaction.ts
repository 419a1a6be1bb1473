import type { Effect, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { compactText, contains, statementOf } from './syntax.ts';
import { connectKeyword, connectsInAutocommit, connectionItem, connectionWrites, describeWrites, driverOf, onlyRerunSafeDdl, setsAutocommitFor, transactionFacts } from './facts.ts';
import { onOwnDefaultModeConnection } from './default-mode-connection.ts';
import { evidenceClause } from './autocommit-evidence.ts';
import { defineRule } from './rule.ts';

export const withConnOpensNoTransaction = defineRule({
  meta: {
    id: 'with-conn-opens-no-transaction',
    description: '`with conn:` commits or rolls back at the end but never begins: in autocommit mode it is no transaction.',
    category: 'sqlite-transaction',
    severity: 'warning',
    messages: {
      withConnNoBegin:
        '`with {{conn}}:` opens no transaction: its {{writes}} are held together only by sqlite3\'s default mode, and saved one by one in autocommit{{evidence}}',
      withConnDdlFirst:
        '`with {{conn}}:` opens no transaction, and sqlite3 opens none before DDL: its {{writes}} are saved one by one in either mode',
      withConnAutocommit:
        '`with {{conn}}:` on a connection in autocommit mode is no transaction: its {{writes}} are saved one at a time',
    },
    messageSeverity: { withConnAutocommit: 'error' },
    hint: 'Run BEGIN (or SAVEPOINT inside a caller\'s transaction) as the first statement of the block.',
  },
  create(context) {
    const fnNode = context.fn.node;
    return {
      with_statement(node) {
        const item = connectionItem(node, context.txStyle);
        const body = node.childForFieldName('body');
        if (!item || !body) return;
        const connection = connectionOf(item);
        if (connectKeyword(connection.value, 'autocommit') === 'False') return;
        const facts = transactionFacts(context);
        const writes = connectionWrites(facts, body, fnNode);
        if (!writes || onlyRerunSafeDdl(writes)) return;
        const first = writes[0]!;
        if (facts.opens.some((open) => open.node.startIndex <= first.node.startIndex)) return;
        const autocommit =
          connectsInAutocommit(connection.value) || setsAutocommitFor(connection.name, facts, node);
        // psycopg and other DB-API drivers begin before the first statement (autocommit off): the block is a transaction.
        if (!autocommit && driverOf(context.module, context.fn).kind !== 'sqlite3') return;
        const ddlFirst = facts.ddl.includes(first);
        // In the default mode sqlite3 begins before the first INSERT/UPDATE/DELETE, and the with commits or rolls back:
        // the block is a transaction when the module opened the connection so and never switches it. Not when DDL comes
        // first (no BEGIN before it) or a script runs (executescript commits first).
        const scripts = writes.some((write) => facts.scripts.includes(write));
        if (!autocommit && !ddlFirst && !scripts && opensAtFirstWrite(first, body) && !endsInside(body, fnNode, context.effects, connection.name) && writes.every((write) => onOwnDefaultModeConnection(context, write))) return;
        context.report({
          node: item,
          messageId: autocommit ? 'withConnAutocommit' : ddlFirst ? 'withConnDdlFirst' : 'withConnNoBegin',
          data: { conn: connection.name, writes: describeWrites(writes), evidence: writes[0] ? evidenceClause(context.module, context.fn, writes[0]) : '' },
        });
      },
    };
  },
});

/**
 * The first write runs on every pass through the block and makes sqlite3 begin: a statement of its own
 * directly in it (or the right side of an assignment), not a helper's (whose write may sit under a test),
 * not under `and`/`or`, a conditional or a comprehension, and its SQL a plain INSERT/UPDATE/DELETE/REPLACE
 * (sqlite3 opens no transaction before `WITH ... UPDATE`).
 */
function opensAtFirstWrite(first: Effect, body: SyntaxNode): boolean {
  if (first.via !== undefined || statementOf(first.node).parent?.id !== body.id) return false;
  const parent = first.node.parent;
  const plain = parent?.type === 'expression_statement' || (parent?.type === 'assignment' && parent.childForFieldName('right')?.id === first.node.id && parent.parent?.type === 'expression_statement');
  const sql = (first.sql?.text ?? '').replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*/, '');
  return plain && /^(insert|update|delete|replace)\b/i.test(sql);
}

/**
 * Something in the block may end the transaction before its end: a commit or rollback (its own, a
 * helper's, a COMMIT statement), a commit or rollback method taken as a value, or a call the connection
 * (or the object holding it, `self` for `self.db`) is handed to in any form, in the block or before it
 * (`tune(conn)` may switch it to autocommit), whose code is not read here.
 */
function endsInside(body: SyntaxNode, fnNode: SyntaxNode, effects: readonly Effect[], connection: string): boolean {
  if (effects.some((effect) => (effect.kind === 'db-commit' || effect.kind === 'db-rollback') && contains(body, effect.node))) return true;
  const root = connection.split('.')[0]!;
  const mentions = new RegExp(`(^|[^\\w.])${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`);
  // Handed over anywhere in the function, before the block too: the unread code may switch it to autocommit.
  for (const node of fnNode.descendantsOfType(['call', 'attribute'])) {
    if (node.type === 'attribute') {
      if (!contains(body, node)) continue;
      const name = node.childForFieldName('attribute')?.text ?? '';
      const called = node.parent?.type === 'call' && node.parent.childForFieldName('function')?.id === node.id;
      if (!called && ['commit', 'rollback', 'close', 'execute', 'executescript'].includes(name)) return true;
      continue;
    }
    const parts = callParts(node);
    if (parts.receiver && compactText(parts.receiver) === connection) continue;
    const argumentsText = [...parts.positional, ...parts.keywords.values()].map((argument) => argument.text);
    if (argumentsText.some((text) => mentions.test(text))) return true;
  }
  return false;
}

/** The connection as the body uses it: `conn` for `with conn:`, `c` for `with sqlite3.connect(p) as c:`. */
function connectionOf(item: SyntaxNode): { value: SyntaxNode; name: string } {
  const value = item.childForFieldName('value')!;
  if (value.type === 'as_pattern') {
    const expression = value.namedChildren[0] ?? value;
    const alias = value.childForFieldName('alias')?.text ?? expression.text;
    return { value: expression, name: expression.type === 'call' ? alias : expression.text };
  }
  return { value, name: value.text };
}
