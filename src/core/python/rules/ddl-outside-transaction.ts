import { knownWrite, rerunSafeDdl, transactionFacts } from './facts.ts';
import { defineRule } from './rule.ts';
import { mutuallyExclusive } from './syntax.ts';

export const ddlOutsideTransaction = defineRule({
  meta: {
    id: 'ddl-outside-transaction',
    description: 'ALTER/CREATE/DROP next to other writes with no explicit BEGIN: sqlite3 opens no transaction before DDL.',
    category: 'sqlite-transaction',
    severity: 'warning',
    messages: {
      ddlNoTransaction:
        '{{statement}} runs in no transaction (sqlite3 opens none before DDL): a crash after it leaves the schema changed and the other writes undone, and a re-run trips on it',
    },
    hint: 'Run BEGIN before the schema change so it commits together with the writes that go with it (SQLite DDL is transactional).',
  },
  create(context) {
    const fnNode = context.fn.node;
    return {
      'function:exit'() {
        const facts = transactionFacts(context);
        // IF [NOT] EXISTS and TEMP objects: a re-run after a crash simply goes on.
        const ddl = facts.ddl.find(
          (effect) => !rerunSafeDdl(effect.sql?.text ?? '') && !facts.opens.some((open) => open.node.startIndex <= effect.node.startIndex),
        );
        if (!ddl) return;
        const others = [...facts.dmlWrites, ...facts.ddl, ...facts.scripts].filter(
          (effect) => effect !== ddl && knownWrite(effect) && !mutuallyExclusive(ddl.node, effect.node, fnNode),
        );
        if (others.length === 0 && !ddl.inLoop) return;
        context.report({ node: ddl.node, messageId: 'ddlNoTransaction', data: { statement: statementHead(ddl.sql?.text ?? 'DDL') } });
      },
    };
  },
});

/** `ALTER TABLE orders`: the first three words before any parenthesis, keywords upper-cased, placeholders kept. */
function statementHead(sql: string): string {
  const words = sql.trim().split('(')[0]!.trim().split(/\s+/).slice(0, 3);
  return words.map((word, index) => (index < 2 ? word.toUpperCase() : word)).join(' ');
}
