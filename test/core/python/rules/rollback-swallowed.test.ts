import { rollbackSwallowed } from '../../../../src/core/python/rules/rollback-swallowed.ts';
import { testRule } from './rule-tester.ts';

testRule(rollbackSwallowed, {
  valid: [
    {
      name: 'roll back and re-raise',
      code: `
        def transfer(conn, a, b):
            try:
                conn.execute("BEGIN")
                conn.execute("UPDATE accounts SET balance = balance - 1 WHERE id = ?", (a,))
                conn.execute("UPDATE accounts SET balance = balance + 1 WHERE id = ?", (b,))
                conn.execute("COMMIT")
            except Exception:
                conn.rollback()
                raise
      `,
    },
    {
      name: 'roll back and raise a domain error',
      code: `
        def transfer(conn, a, b):
            try:
                conn.execute("UPDATE accounts SET balance = balance - 1 WHERE id = ?", (a,))
            except sqlite3.Error as exc:
                conn.execute("ROLLBACK")
                raise TransferFailed(a, b) from exc
      `,
    },
    {
      name: 'roll back and return a failure',
      code: `
        def try_insert(conn, key):
            try:
                conn.execute("INSERT INTO kv (key) VALUES (?)", (key,))
            except Exception:
                conn.rollback()
                return False
            return True
      `,
    },
    {
      name: 'a specific, expected error handled on purpose',
      code: `
        def insert_once(conn, key):
            try:
                conn.execute("INSERT INTO kv (key) VALUES (?)", (key,))
                conn.commit()
            except sqlite3.IntegrityError:
                conn.rollback()
      `,
    },
    {
      name: 'an except that hides the error but undoes nothing',
      code: `
        def best_effort(conn):
            try:
                conn.execute("DELETE FROM cache")
            except Exception:
                log.warning("cache not cleared")
      `,
    },
  ],
  invalid: [
    {
      name: 'rollback and log',
      code: `
        def transfer(conn, a, b):
            try:
                conn.execute("UPDATE accounts SET balance = balance - 1 WHERE id = ?", (a,))
                conn.execute("UPDATE accounts SET balance = balance + 1 WHERE id = ?", (b,))
                conn.commit()
            except Exception as exc:
                conn.rollback()
                log.error("transfer failed: %s", exc)
      `,
      errors: [{ messageId: 'rollbackSwallowed', line: 6 }],
    },
    {
      name: 'bare except with ROLLBACK as SQL',
      code: `
        def archive(conn, table):
            try:
                conn.execute(f"INSERT INTO {table}_old SELECT * FROM {table}")
                conn.execute(f"DELETE FROM {table}")
            except:
                conn.execute("ROLLBACK")
      `,
      errors: [{ messageId: 'rollbackSwallowed', line: 5 }],
    },
    {
      name: 'an undo helper, then return None',
      code: `
        def store_upload(conn, path, data):
            try:
                write_file(path, data)
                conn.execute("INSERT INTO uploads (path) VALUES (?)", (path,))
            except (OSError, sqlite3.Error):
                undo_write(path)
                return None
      `,
      errors: [{ messageId: 'rollbackSwallowed', line: 5 }],
    },
    {
      name: 'per-item rollback inside a loop, and the loop goes on',
      code: `
        def process(conn, jobs):
            for job in jobs:
                try:
                    conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (job,))
                    conn.commit()
                except Exception:
                    conn.rollback()
                    continue
      `,
      errors: [{ messageId: 'rollbackSwallowed', line: 6 }],
    },
  ],
});
