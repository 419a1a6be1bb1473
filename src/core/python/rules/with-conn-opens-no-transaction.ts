import type { Effect, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { contains, statementOf } from './syntax.ts';
import { connectKeyword, connectsInAutocommit, connectionItem, connectionWrites, describeWrites, driverOf, onlyRerunSafeDdl, setsAutocommitFor, transactionFacts } from './facts.ts';
import { onOwnDefaultModeConnection } from './default-mode-connection.ts';
import { defineRule } from './rule.ts';

export const withConnOpensNoTransaction = defineRule({
  meta: {
    id: 'with-conn-opens-no-transaction',
    description: '`with conn:` commits or rolls back at the end but never begins: in autocommit mode it is no transaction.',
    category: 'sqlite-transaction',
    severity: 'warning',
    messages: {
      withConnNoBegin:
        '`with {{conn}}:` opens no transaction: its {{writes}} are held together only by sqlite3\'s default mode, and saved one by one in autocommit',
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
        if (!autocommit && !ddlFirst && !scripts && opensAtFirstWrite(first, body) && !endsInside(body, context.effects, connection.name) && writes.every((write) => onOwnDefaultModeConnection(context, write))) return;
        context.report({
          node: item,
          messageId: autocommit ? 'withConnAutocommit' : ddlFirst ? 'withConnDdlFirst' : 'withConnNoBegin',
          data: { conn: connection.name, writes: describeWrites(writes) },
        });
      },
    };
  },
});

/** The first write runs on every pass through the block: a statement of its own directly in it, not a helper's (whose write may sit under a test). */
function opensAtFirstWrite(first: Effect, body: SyntaxNode): boolean {
  return first.via === undefined && statementOf(first.node).parent?.id === body.id;
}

/**
 * Something in the block may end the transaction before its end: a commit or rollback (its own, a
 * helper's, a COMMIT statement), or a call the connection is handed to, whose code is not read here.
 */
function endsInside(body: SyntaxNode, effects: readonly Effect[], connection: string): boolean {
  if (effects.some((effect) => (effect.kind === 'db-commit' || effect.kind === 'db-rollback') && contains(body, effect.node))) return true;
  return body.descendantsOfType('call').some((call) => callParts(call).positional.concat([...callParts(call).keywords.values()]).some((argument) => argument.text === connection));
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
