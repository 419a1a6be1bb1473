import { commitWithoutBegin } from '../../../../src/core/python/rules/commit-without-begin.ts';
import { testRule } from './rule-tester.ts';
import { AUTOCOMMIT_THEN_BEGIN, refund } from './snippets.ts';

testRule(commitWithoutBegin, {
  valid: [
    {
      name: 'BEGIN ... commit()',
      code: refund({ before: ['conn.execute("BEGIN")'], after: ['conn.commit()'] }),
    },
    {
      name: 'BEGIN only when no transaction is open (composes with a caller)',
      code: refund({ before: ['own = not conn.in_transaction', 'if own:', '    conn.execute("BEGIN")'], after: ['if own:', '    conn.commit()'] }),
    },
    {
      name: 'isolation_level=None and BEGIN IMMEDIATE',
      code: refund({ params: 'path, order_id', before: AUTOCOMMIT_THEN_BEGIN, after: ['conn.commit()'] }),
    },
    {
      name: 'one write then commit: nothing for a crash to split',
      code: `
        def add_comment(conn, post_id, text):
            conn.execute("INSERT INTO comments (post_id, text) VALUES (?, ?)", (post_id, text))
            conn.commit()
      `,
    },
    {
      name: 'a commit with no writes of its own (a unit-of-work wrapper)',
      code: `
        class Store:
            def save(self):
                self.conn.commit()
      `,
    },
    {
      name: 'each write committed on its own, in exclusive branches',
      code: `
        def set_flag(conn, key, on):
            if on:
                conn.execute("INSERT INTO flags (key) VALUES (?)", (key,))
                conn.commit()
            else:
                conn.execute("DELETE FROM flags WHERE key = ?", (key,))
                conn.commit()
      `,
    },
    {
      name: 'chained assignment to an in-memory connection (stdlib test_backup.py)',
      code: `
        class BackupTests:
            def setUp(self):
                cx = self.cx = sqlite.connect(":memory:")
                cx.execute('CREATE TABLE foo (key INTEGER)')
                cx.executemany('INSERT INTO foo (key) VALUES (?)', [(3,), (4,)])
                cx.commit()
      `,
    },
    {
      name: 'an in-memory connection set up in the class’s setUp, through closing() and a cursor',
      code: `
        class T:
            def setUp(self):
                self.cx = closing(sqlite3.connect(":memory:"))
                self.cu = self.cx.cursor()

            def test_insert(self):
                self.cu.execute("insert into test(name) values ('a')")
                self.cu.execute("insert into test(name) values ('b')")
                self.cx.commit()
      `,
    },
  ],
  invalid: [
    {
      name: 'the paper\u2019s refund: two updates and commit()',
      code: `
        def refund_order(conn, order_id):
            total, customer, status = conn.execute(
                "SELECT total, customer_id, status FROM orders"
                " WHERE id = ?", (order_id,)).fetchone()
            if status != 'paid':
                raise ValueError("order is not paid")
            conn.execute("UPDATE customers SET credit = credit + ?"
                         " WHERE id = ?", (total, customer))
            conn.execute("UPDATE orders SET status = 'refunded'"
                         " WHERE id = ?", (order_id,))
            conn.commit()
      `,
      errors: [{ messageId: 'commitWithoutBegin', line: 11 }],
    },
    {
      name: 'COMMIT as SQL after f-string writes',
      code: `
        def move(conn, src, dst, item):
            conn.execute(f"INSERT INTO {dst} SELECT * FROM {src} WHERE id = ?", (item,))
            conn.execute(f"DELETE FROM {src} WHERE id = ?", (item,))
            conn.execute("COMMIT")
      `,
      errors: [{ messageId: 'commitWithoutBegin', line: 4 }],
    },
    {
      name: 'an order and its stock change, then commit()',
      code: `
        def place_order(conn, order):
            conn.execute("INSERT INTO orders (id) VALUES (?)", (order,))
            conn.execute("UPDATE stock SET qty = qty - 1 WHERE item = ?", (order,))
            conn.commit()
      `,
      errors: [{ messageId: 'commitWithoutBegin', line: 4 }],
    },
    {
      name: 'the writes happen in a helper, the commit here',
      code: `
        def apply(conn, order):
            conn.execute("INSERT INTO orders (id) VALUES (?)", (order,))
            conn.execute("UPDATE stock SET qty = qty - 1 WHERE item = ?", (order,))

        def place_order(conn, order):
            apply(conn, order)
            conn.commit()
      `,
      errors: [{ messageId: 'commitWithoutBegin', line: 7 }],
    },
    {
      name: 'commit() after isolation_level=None commits nothing',
      code: `
        def place_order(conn, order):
            conn.isolation_level = None
            conn.execute("INSERT INTO orders (id) VALUES (?)", (order,))
            conn.execute("UPDATE stock SET qty = qty - 1 WHERE item = ?", (order,))
            conn.commit()
      `,
      errors: [{ messageId: 'commitInAutocommit', line: 5 }],
    },
  ],
});
