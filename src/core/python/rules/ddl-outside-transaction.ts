import { driverOf, knownWrite, pendingWritesBefore, rerunSafeDdl, transactionFacts } from './facts.ts';
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
      ddlCommitsAround:
        '{{statement}} is not part of the writes\' transaction ({{driver}}: the database commits around DDL, as MySQL and Oracle do): a crash after it leaves the schema changed and the other writes undone, and a re-run trips on it',
    },
    hint: 'Run BEGIN before the schema change so it commits together with the writes that go with it (SQLite DDL is transactional).',
  },
  create(context) {
    const fnNode = context.fn.node;
    return {
      'function:exit'() {
        const driver = driverOf(context.module);
        // PostgreSQL's DDL is transactional and psycopg's implicit transaction holds it with the writes.
        if (driver.kind === 'psycopg') return;
        const facts = transactionFacts(context);
        const { effects } = context;
        const ddl = facts.ddl.find(
          (effect) =>
            // IF [NOT] EXISTS and TEMP objects: a re-run after a crash simply goes on.
            !rerunSafeDdl(effect.sql?.text ?? '') &&
            !facts.opens.some((open) => open.node.startIndex <= effect.node.startIndex) &&
            // After an uncommitted INSERT/UPDATE/DELETE the default mode's implicit transaction holds the DDL too.
            !pendingWritesBefore(context, effects.indexOf(effect)).some((write) => write.kind === 'db-write'),
        );
        if (!ddl) return;
        const laterWrites = effects
          .slice(effects.indexOf(ddl) + 1)
          .filter((effect) => effect.kind.startsWith('db-') && knownWrite(effect) && !mutuallyExclusive(ddl.node, effect.node, fnNode));
        // The DDL as the last write leaves nothing undone behind it.
        if (laterWrites.length === 0 && !ddl.inLoop) return;
        const statement = statementHead(ddl.sql?.text ?? 'DDL');
        if (driver.kind === 'dbapi') context.report({ node: ddl.node, messageId: 'ddlCommitsAround', data: { statement, driver: driver.name } });
        else context.report({ node: ddl.node, messageId: 'ddlNoTransaction', data: { statement } });
      },
    };
  },
});

/** `ALTER TABLE orders`: the first three words before any parenthesis, keywords upper-cased, placeholders kept. */
function statementHead(sql: string): string {
  const words = sql.trim().split('(')[0]!.trim().split(/\s+/).slice(0, 3);
  return words.map((word, index) => (index < 2 ? word.toUpperCase() : word)).join(' ');
}
