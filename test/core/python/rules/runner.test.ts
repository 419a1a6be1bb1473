import { describe, expect, it } from 'vitest';
import { rules, runRules, ruleById } from '../../../../src/core/python/rules/index.ts';
import { defineRule } from '../../../../src/core/python/rules/rule.ts';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { listFunctions } from '../../../../src/core/python/functions.ts';
import { findEffects } from '../../../../src/core/python/effects.ts';
import { detectTxStyle } from '../../../../src/core/python/tx-style.ts';
import { buildRepoIndex, repoHelperResolver } from '../../../../src/core/python/callgraph.ts';
import { dedent, lint } from './rule-tester.ts';
import { refund } from './snippets.ts';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REFUND = refund({ after: ['conn.commit()'] });

describe('the rule registry', () => {
  it('has one file and one test per rule, named by the rule id', () => {
    const here = fileURLToPath(new URL('.', import.meta.url));
    const source = fileURLToPath(new URL('../../../../src/core/python/rules/', import.meta.url));
    const ids = rules.map((rule) => rule.meta.id).sort();
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(readdirSync(source)).toContain(`${id}.ts`);
      expect(readdirSync(here)).toContain(`${id}.test.ts`);
    }
    expect(ruleById('commit-in-loop')?.meta.id).toBe('commit-in-loop');
  });

  it('gives every rule a one-line description, hint and messages', () => {
    for (const rule of rules) {
      for (const text of [rule.meta.description, rule.meta.hint, ...Object.values<string>(rule.meta.messages)]) {
        expect(text).not.toMatch(/\n/);
        expect(text.length).toBeGreaterThan(10);
      }
    }
  });
});

describe('runRules', () => {
  it('fills the finding from the rule: message with data, severity, hint, function, exact range', () => {
    const [finding] = lint(REFUND, [ruleById('commit-without-begin')!], 'shop/refunds.py');
    expect(finding).toMatchObject({
      ruleId: 'commit-without-begin',
      messageId: 'commitWithoutBegin',
      severity: 'warning',
      path: 'shop/refunds.py',
      function: 'refund_order',
      range: { startLine: 4, startColumn: 4, endLine: 4, endColumn: 17 },
      hint: ruleById('commit-without-begin')!.meta.hint,
    });
    expect(finding!.message).toContain('its 2 writes are held together');
    expect(finding!.id).toMatch(/^commit-without-begin:[0-9a-f]{16}$/);
  });

  it('uses the message\u2019s own severity when the rule gives one', () => {
    const [finding] = lint(
      `
      def f(conn):
          conn.isolation_level = None
          conn.execute("DELETE FROM a")
          conn.execute("DELETE FROM b")
          conn.commit()
      `,
      [ruleById('commit-without-begin')!],
    );
    expect([finding!.messageId, finding!.severity]).toEqual(['commitInAutocommit', 'error']);
  });

  it('keeps a finding\u2019s id when code moves, and changes it when the reported code changes', () => {
    const [before] = lint(REFUND);
    const [moved] = lint(`\n\nimport os\n\n${dedent(REFUND)}`);
    const [reformatted] = lint(REFUND.replace('conn.commit()', 'conn.commit(  )  # done'));
    const [renamed] = lint(REFUND.replace('conn.commit()', 'db.commit()').replace('(conn, order_id)', '(db, order_id)').replaceAll('conn.execute', 'db.execute'));
    expect(moved!.range.startLine).not.toBe(before!.range.startLine);
    expect(moved!.id).toBe(before!.id);
    expect(reformatted!.id).toBe(before!.id);
    expect(renamed!.id).not.toBe(before!.id);
    expect(lint(REFUND, undefined, 'other.py')[0]!.id).not.toBe(before!.id);
  });

  it('tells apart two identical reported lines in one function', () => {
    const findings = lint(
      `
      def drain(conn, a, b):
          for x in a:
              conn.execute("UPDATE q SET done = 1 WHERE id = ?", (x,))
              conn.commit()
          for x in b:
              conn.execute("UPDATE q SET done = 1 WHERE id = ?", (x,))
              conn.commit()
      `,
      [ruleById('commit-in-loop')!],
    );
    expect(findings.map((finding) => finding.range.startLine)).toEqual([4, 7]);
    expect(findings[0]!.id).not.toBe(findings[1]!.id);
  });

  it('judges a nested function\u2019s effects once, as its own', () => {
    const findings = lint(`
      def outer(conn):
          def inner():
              conn.execute("DELETE FROM a")
              conn.execute("DELETE FROM b")
          return inner
    `);
    expect(findings.map((finding) => [finding.function, finding.ruleId])).toEqual([['outer.inner', 'writes-rely-on-implicit-transaction']]);
  });

  it('sorts by position and runs every rule by default', () => {
    const findings = lint(`
      def mark_paid(conn, mailer, order_id):
          mailer.send(to="a@b.c", subject="Paid")
          conn.execute("UPDATE orders SET status = 'paid' WHERE id = ?", (order_id,))
          conn.execute("INSERT INTO events (order_id) VALUES (?)", (order_id,))
          conn.commit()
    `);
    expect(findings.map((finding) => [finding.range.startLine, finding.ruleId])).toEqual([
      [2, 'send-before-record'],
      [5, 'commit-without-begin'],
    ]);
  });

  it('follows the given resolver to an in-memory connection opened in another file', () => {
    const util = parseModule('pkg/util.py', 'import sqlite3, contextlib\n\ndef memory_database():\n    cx = sqlite3.connect(":memory:")\n    return contextlib.closing(cx)\n');
    const test = parseModule(
      'pkg/test_x.py',
      dedent(`
        from pkg.util import memory_database

        def test_insert():
            with memory_database() as cx:
                cx.execute("insert into t values (1)")
                cx.execute("insert into t values (2)")
      `),
    );
    const resolveHelper = repoHelperResolver(buildRepoIndex([util, test]));
    const fn = listFunctions(test)[0]!;
    const input = { module: test, fn, effects: findEffects(fn, test, { resolveHelper }), txStyle: detectTxStyle(fn, test, { resolveHelper }) };
    expect(runRules(input).map((finding) => finding.ruleId)).toEqual(['writes-rely-on-implicit-transaction']);
    expect(runRules({ ...input, resolveHelper })).toEqual([]);
  });

  it('rejects a report with a message id the rule does not define', () => {
    const broken = defineRule<string>({
      meta: { id: 'broken', description: 'reports nonsense', category: 'file', severity: 'info', messages: { real: 'a real message' }, hint: 'none' },
      create: (context) => ({ 'function:exit': () => context.report({ node: context.fn.node, messageId: 'typo' }) }),
    });
    const module = parseModule('x.py', 'def f():\n    pass\n');
    const fn = listFunctions(module)[0]!;
    expect(() => runRules({ module, fn, effects: findEffects(fn, module), txStyle: detectTxStyle(fn, module) }, { rules: [broken] })).toThrow(/typo/);
  });
});

describe('findings name the driver they saw', () => {
  const writes = (imports: string) => `${imports}\n\ndef refund(conn, order_id):\n    conn.execute("UPDATE orders SET status = 'refunded' WHERE id = ?", (order_id,))\n    conn.execute("INSERT INTO refunds (order_id) VALUES (?)", (order_id,))\n    conn.commit()\n`;

  it('says sqlite3 for sqlite3 (or no driver import), psycopg for psycopg, and the driver name for another DB-API driver', () => {
    const message = (imports: string) => lint(writes(imports)).find((f) => f.ruleId === 'commit-without-begin')!.message;
    expect(message('import sqlite3')).toContain("sqlite3's default mode");
    expect(message('import json')).toContain("sqlite3's default mode");
    expect(message('import psycopg2')).toContain("psycopg2's implicit transaction (autocommit off)");
    expect(message('from psycopg import sql')).not.toContain('sqlite3');
    expect(message('import pymysql')).toContain("the pymysql driver's implicit transaction");
  });

  it("with no driver imported, speaks of the database a project module it builds on is named for (yoyo 8.2's redshift.py)", () => {
    const message = (imports: string) => lint(writes(imports)).find((f) => f.ruleId === 'commit-without-begin')!.message;
    expect(message('from yoyo.backends.core.postgresql import PostgresqlBackend')).toContain("the PostgreSQL driver's implicit transaction (autocommit off)");
    expect(message('from app.db.mysql import Backend')).toContain("the MySQL driver's implicit transaction (autocommit off)");
    expect(message('import sqlite3\nfrom yoyo.backends.core.postgresql import PostgresqlBackend')).toContain("sqlite3's default mode");
    expect(message('from app.pgettext import translate')).toContain("sqlite3's default mode");
    // A whole segment names the database, and only one database may be named.
    expect(message('from app.exporters.mysql_dump import dump')).toContain("sqlite3's default mode");
    expect(message('from app.db.postgresql import PgBackend\nfrom app.db.sqlite import SqliteBackend')).toContain("sqlite3's default mode");
    // Postgres runs DDL inside the transaction: no "sqlite3 opens none before DDL" claim.
    const ddl = `from yoyo.backends.core.postgresql import PostgresqlBackend\n\ndef upgrade(conn):\n    conn.execute("CREATE TABLE log (id INT)")\n    conn.execute("INSERT INTO log VALUES (1)")\n    conn.commit()\n`;
    expect(lint(ddl).map((f) => f.ruleId)).not.toContain('ddl-outside-transaction');
  });

  it('in a module with both, says the driver the method\'s class connects with (huey storage.py: SqliteStorage beside PostgresStorage)', () => {
    const code = [
      'import sqlite3',
      'try:',
      '    import psycopg',
      'except ImportError:',
      '    psycopg = None',
      '',
      'class SqliteStorage:',
      '    def _create_connection(self):',
      '        return sqlite3.connect(self.filename)',
      '    def put(self, conn, a):',
      '        conn.execute("UPDATE t SET n = n + 1")',
      '        conn.execute("INSERT INTO log VALUES (?)", (a,))',
      '',
      'class PostgresStorage:',
      '    def _connect(self):',
      '        return psycopg.connect(self.dsn)',
      '    def put(self, conn, a):',
      '        conn.execute("UPDATE t SET n = n + 1")',
      '        conn.execute("INSERT INTO log VALUES (%s)", (a,))',
      '',
    ].join('\n');
    const messages = lint(code).filter((f) => f.ruleId === 'writes-rely-on-implicit-transaction').map((f) => `${f.function}: ${f.message}`);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toContain("SqliteStorage.put: 2 writes and no transaction of their own: only sqlite3's default mode");
    expect(messages[1]).toContain("PostgresStorage.put: 2 writes and no transaction of their own: only psycopg's implicit transaction (autocommit off)");
  });

  it('makes no sqlite3 claim about `with conn:` under psycopg (it is a transaction there)', () => {
    const code = (imports: string) => `${imports}\n\ndef save(conn):\n    with conn:\n        conn.execute("DELETE FROM t")\n        conn.execute("INSERT INTO t VALUES (1)")\n`;
    expect(lint(code('import sqlite3')).map((f) => f.ruleId)).toContain('with-conn-opens-no-transaction');
    expect(lint(code('import psycopg2')).map((f) => f.ruleId)).not.toContain('with-conn-opens-no-transaction');
  });
});
