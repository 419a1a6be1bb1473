import { commitWithoutBegin } from '../../../../src/core/python/rules/commit-without-begin.ts';
import { testRule } from './rule-tester.ts';

testRule(commitWithoutBegin, {
  valid: [
    {
      name: 'BEGIN ... commit()',
      code: `
        def refund_order(conn, order_id):
            conn.execute("BEGIN")
            conn.execute("UPDATE customers SET credit = credit + 1 WHERE id = ?", (order_id,))
            conn.execute("UPDATE orders SET status = 'refunded' WHERE id = ?", (order_id,))
            conn.commit()
      `,
    },
    {
      name: 'BEGIN only when no transaction is open (composes with a caller)',
      code: `
        def refund_order(conn, order_id):
            own = not conn.in_transaction
            if own:
                conn.execute("BEGIN")
            conn.execute("UPDATE customers SET credit = credit + 1 WHERE id = ?", (order_id,))
            conn.execute("UPDATE orders SET status = 'refunded' WHERE id = ?", (order_id,))
            if own:
                conn.commit()
      `,
    },
    {
      name: 'isolation_level=None and BEGIN IMMEDIATE',
      code: `
        def refund_order(path, order_id):
            conn = sqlite3.connect(path, isolation_level=None)
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("UPDATE customers SET credit = credit + 1 WHERE id = ?", (order_id,))
            conn.execute("UPDATE orders SET status = 'refunded' WHERE id = ?", (order_id,))
            conn.commit()
      `,
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
