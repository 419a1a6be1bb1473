import { writesRelyOnImplicitTransaction } from '../../../../src/core/python/rules/writes-rely-on-implicit-transaction.ts';
import { testRule } from './rule-tester.ts';
import { AUTOCOMMIT_THEN_BEGIN, refund } from './snippets.ts';

testRule(writesRelyOnImplicitTransaction, {
  valid: [
    {
      name: 'explicit BEGIN ... COMMIT',
      code: refund({ before: ['conn.execute("BEGIN")'], after: ['conn.execute("COMMIT")'] }),
    },
    {
      name: 'SAVEPOINT when a caller\u2019s transaction may be open',
      code: refund({ before: ['conn.execute("SAVEPOINT refund")'], after: ['conn.execute("RELEASE refund")'] }),
    },
    {
      name: 'isolation_level=None with an explicit BEGIN',
      code: refund({ params: 'path, order_id', before: AUTOCOMMIT_THEN_BEGIN, after: ['conn.execute("COMMIT")'] }),
    },
    {
      name: 'a BEGIN issued by a helper',
      code: 'def begin(conn):\n    conn.execute("BEGIN")\n\n' + refund({ before: ['begin(conn)'] }),
    },
    {
      name: 'one write',
      code: `
        def add_comment(conn, post_id, text):
            conn.execute("INSERT INTO comments (post_id, text) VALUES (?, ?)", (post_id, text))
      `,
    },
    {
      name: 'writes in exclusive branches',
      code: `
        def set_flag(conn, key, on):
            if on:
                conn.execute("INSERT INTO flags (key) VALUES (?)", (key,))
            else:
                conn.execute("DELETE FROM flags WHERE key = ?", (key,))
      `,
    },
    {
      name: 'unresolved SQL alone is too weak a reason',
      code: `
        def run(cursor, statements):
            cursor.execute(statements[0])
            cursor.execute(statements[1])
      `,
    },
    {
      name: 'writes inside with conn: are that rule\u2019s',
      code: `
        def transfer(conn, a, b):
            with conn:
                conn.execute("UPDATE accounts SET balance = balance - 1 WHERE id = ?", (a,))
                conn.execute("UPDATE accounts SET balance = balance + 1 WHERE id = ?", (b,))
      `,
    },
    {
      name: 'a function that commits is commit-without-begin\u2019s',
      code: refund({ after: ['conn.commit()'] }),
    },
    {
      name: 'a nested generator writing through the in-memory cursor (stdlib test_regression.py)',
      code: `
        def test_recursive_cursor_use(self):
            con = sqlite.connect(":memory:")
            cur = con.cursor()
            def foo():
                cur.execute("insert into a (bar) values (?)", (1,))
                yield 1
            cur.executemany("insert into b (baz) values (?)", ((i,) for i in foo()))
      `,
    },
    {
      name: 'an in-memory connection from a same-module helper (stdlib memory_database())',
      code: `
        def memory_database(*args, **kwargs):
            cx = sqlite.connect(":memory:", *args, **kwargs)
            return contextlib.closing(cx)

        def test_blob_closed(self):
            with memory_database() as cx:
                cx.execute("create table test(b blob)")
                cx.execute("insert into test values (zeroblob(100))")
                cx.execute("insert into test values (zeroblob(100))")
      `,
    },
  ],
  invalid: [
    {
      name: 'two updates, no transaction, the caller commits',
      code: `
        def refund_order(conn, order_id):
            total, customer = conn.execute("SELECT total, customer_id FROM orders WHERE id = ?", (order_id,)).fetchone()
            conn.execute("UPDATE customers SET credit = credit + ? WHERE id = ?", (total, customer))
            conn.execute("UPDATE orders SET status = 'refunded' WHERE id = ?", (order_id,))
      `,
      errors: [{ messageId: 'impliedTransaction', line: 3 }],
    },
    {
      name: 'f-string SQL in a loop',
      code: `
        def copy_rows(conn, table, rows):
            for row in rows:
                conn.execute(f"INSERT INTO {table} VALUES (?)", (row,))
      `,
      errors: [{ messageId: 'impliedTransaction', line: 3 }],
    },
    {
      name: 'executemany writes many rows',
      code: `
        def import_rows(conn, rows):
            conn.executemany("INSERT INTO customers (email) VALUES (?)", rows)
      `,
      errors: [{ messageId: 'impliedTransaction', line: 2 }],
    },
    {
      name: 'the writes happen in helpers',
      code: `
        def debit(conn, a):
            conn.execute("UPDATE accounts SET balance = balance - 1 WHERE id = ?", (a,))

        def credit(conn, b):
            conn.execute("UPDATE accounts SET balance = balance + 1 WHERE id = ?", (b,))

        def transfer(conn, a, b):
            debit(conn, a)
            credit(conn, b)
      `,
      errors: [{ messageId: 'impliedTransaction', line: 8 }],
    },
    {
      name: 'the function itself switches to autocommit',
      code: `
        def transfer(conn, a, b):
            conn.isolation_level = None
            conn.execute("UPDATE accounts SET balance = balance - 1 WHERE id = ?", (a,))
            conn.execute("UPDATE accounts SET balance = balance + 1 WHERE id = ?", (b,))
      `,
      errors: [{ messageId: 'autocommitWrites', line: 3 }],
    },
  ],
});
