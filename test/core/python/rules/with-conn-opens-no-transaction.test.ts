import { withConnOpensNoTransaction } from '../../../../src/core/python/rules/with-conn-opens-no-transaction.ts';
import { testRule } from './rule-tester.ts';
import { DROP_AND_CREATE_IN_WITH } from './snippets.ts';

testRule(withConnOpensNoTransaction, {
  valid: [
    {
      name: 'with conn: that runs BEGIN first',
      code: `
        def transfer(conn, a, b, amount):
            with conn:
                conn.execute("BEGIN")
                conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (amount, a))
                conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (amount, b))
      `,
    },
    {
      name: 'SAVEPOINT inside a caller\u2019s transaction',
      code: `
        def transfer(conn, a, b, amount):
            with conn:
                conn.execute("SAVEPOINT transfer")
                conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (amount, a))
                conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (amount, b))
                conn.execute("RELEASE transfer")
      `,
    },
    {
      name: 'isolation_level=None and an explicit BEGIN before the block',
      code: `
        def transfer(path, a, b, amount):
            conn = sqlite3.connect(path, isolation_level=None)
            conn.execute("BEGIN IMMEDIATE")
            with conn:
                conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (amount, a))
                conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (amount, b))
      `,
    },
    {
      name: 'a single write cannot be split by a crash',
      code: `
        def add_comment(conn, post_id, text):
            with conn:
                conn.execute("INSERT INTO comments (post_id, text) VALUES (?, ?)", (post_id, text))
      `,
    },
    {
      name: 'writes in the two arms of an if are never both run',
      code: `
        def upsert(conn, key, value, exists):
            with conn:
                if exists:
                    conn.execute("UPDATE kv SET value = ? WHERE key = ?", (value, key))
                else:
                    conn.execute("INSERT INTO kv (key, value) VALUES (?, ?)", (key, value))
      `,
    },
    {
      name: 'with closing(...) is not a transaction block and says so',
      code: `
        def save(path, rows):
            with closing(sqlite3.connect(path)) as db:
                db.execute("DELETE FROM t")
                db.execute("INSERT INTO t VALUES (1)")
      `,
    },
    {
      name: 'Python 3.12 autocommit=False keeps a transaction open, so with is one',
      code: `
        def save(path):
            with sqlite3.connect(path, autocommit=False) as c:
                c.execute("DELETE FROM t")
                c.execute("INSERT INTO t VALUES (1)")
      `,
    },
    {
      name: 'with open(...) is a file',
      code: `
        def save(conn, path):
            with open(path) as f:
                conn.execute("DELETE FROM t")
                conn.execute("INSERT INTO t VALUES (?)", (f.read(),))
      `,
    },
    {
      name: 'only CREATE TABLE IF NOT EXISTS: a re-run creates what is missing (IPython 8.5 HistoryAccessor.init_db)',
      code: `
        def init_db(self):
            with self.db:
                self.db.execute("CREATE TABLE IF NOT EXISTS sessions (session integer primary key, start timestamp)")
                self.db.execute("CREATE TABLE IF NOT EXISTS history (session integer, line integer, source text)")
      `,
    },
    {
      name: 'a connection the function opens in the default mode: the block is a transaction (IPython 8.5 HistoryTrim.start)',
      code: `
        import sqlite3

        def trim(path, sessions, inputs):
            new_db = sqlite3.connect(path)
            with new_db:
                new_db.executemany("INSERT INTO sessions VALUES (?, ?)", sessions)
                new_db.executemany("INSERT INTO history VALUES (?, ?)", inputs)
            new_db.close()
      `,
    },
    {
      name: 'with sqlite3.connect(...) as c: opens the connection in the default mode, so the block is a transaction',
      code: `
        def archive(path, table):
            with sqlite3.connect(path) as c:
                c.execute(f"INSERT INTO {table}_archive SELECT * FROM {table}")
                c.execute(f"DELETE FROM {table}")
      `,
    },
  ],
  invalid: [
    {
      name: 'with conn: around two updates',
      code: `
        def transfer(conn, a, b, amount):
            with conn:
                conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (amount, a))
                conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (amount, b))
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 2 }],
    },
    {
      name: 'with conn: on a connection a parameter hands in, and f-string SQL: its mode is the caller\'s',
      code: `
        def archive(conn, table):
            with conn:
                conn.execute(f"INSERT INTO {table}_archive SELECT * FROM {table}")
                conn.execute(f"DELETE FROM {table}")
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 2 }],
    },
    {
      name: 'a write repeated in a loop',
      code: `
        def import_rows(self, rows):
            with self.conn:
                for row in rows:
                    self.conn.execute("INSERT INTO customers (email) VALUES (?)", (row,))
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 2 }],
    },
    {
      name: 'the writes happen in a helper',
      code: `
        def move(conn, item):
            conn.execute("DELETE FROM inbox WHERE id = ?", (item,))
            conn.execute("INSERT INTO archive (id) VALUES (?)", (item,))

        def archive(conn, item):
            with conn:
                move(conn, item)
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 6 }],
    },
    {
      name: 'isolation_level=None set on the connection: certainly no transaction',
      code: `
        def transfer(conn, a, b, amount):
            conn.isolation_level = None
            with conn:
                conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (amount, a))
                conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (amount, b))
      `,
      errors: [{ messageId: 'withConnAutocommit', line: 3 }],
    },
    {
      name: 'connect(..., isolation_level=None) in the with header',
      code: `
        def reset(path):
            with sqlite3.connect(path, isolation_level=None) as db:
                db.execute("DELETE FROM sessions")
                db.execute("UPDATE users SET online = 0")
      `,
      errors: [{ messageId: 'withConnAutocommit', line: 2 }],
    },
    {
      name: 'DDL first: no mode holds the block together (stdlib test_dbm_sqlite3.py CorruptDatabase.setUp)',
      code: DROP_AND_CREATE_IN_WITH,
      errors: [{ messageId: 'withConnDdlFirst', line: 3 }],
    },
    {
      name: 'BEGIN after the first write does not cover it',
      code: `
        def transfer(conn, a, b, amount):
            with conn:
                conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (amount, a))
                conn.execute("BEGIN")
                conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (amount, b))
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 2 }],
    },
    {
      name: 'own default-mode connection, but the module switches a connection to autocommit somewhere',
      code: `
        import sqlite3

        def trim(path, sessions, inputs):
            new_db = sqlite3.connect(path)
            with new_db:
                new_db.executemany("INSERT INTO sessions VALUES (?, ?)", sessions)
                new_db.executemany("INSERT INTO history VALUES (?, ?)", inputs)

        def fast(db):
            db.isolation_level = None
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 5 }],
    },
    {
      name: 'own default-mode connection, but DDL first: no BEGIN before it',
      code: `
        import sqlite3

        def trim(path, inputs):
            new_db = sqlite3.connect(path)
            with new_db:
                new_db.execute("CREATE TABLE history (session integer, line integer)")
                new_db.executemany("INSERT INTO history VALUES (?, ?)", inputs)
      `,
      errors: [{ messageId: 'withConnDdlFirst', line: 5 }],
    },
    {
      name: 'own default-mode connection, but a script in the block commits first',
      code: `
        import sqlite3

        def trim(path, inputs):
            new_db = sqlite3.connect(path)
            with new_db:
                new_db.executemany("INSERT INTO history VALUES (?, ?)", inputs)
                new_db.executescript("DELETE FROM sessions; DELETE FROM output;")
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 5 }],
    },
    {
      name: 'CREATE TABLE IF NOT EXISTS beside an INSERT: the INSERT is not re-run safe',
      code: `
        def init_db(self):
            with self.db:
                self.db.execute("CREATE TABLE IF NOT EXISTS sessions (session integer primary key, start timestamp)")
                self.db.execute("INSERT INTO sessions (start) VALUES (1)")
      `,
      errors: [{ messageId: 'withConnDdlFirst', line: 2 }],
    },
    {
      name: 'own default-mode connection, but a commit inside the block splits it',
      code: `
        import sqlite3

        def move(path, a, b):
            conn = sqlite3.connect(path)
            with conn:
                conn.execute("UPDATE acct SET bal = bal - 1 WHERE id = ?", (a,))
                conn.commit()
                conn.execute("UPDATE acct SET bal = bal + 1 WHERE id = ?", (b,))
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 5 }],
    },
    {
      name: 'own default-mode connection, but the connection is handed to a call whose code is not read',
      code: `
        import sqlite3
        from .util import flush

        def move(path, a, b):
            conn = sqlite3.connect(path)
            with conn:
                conn.execute("UPDATE acct SET bal = bal - 1 WHERE id = ?", (a,))
                flush(conn)
                conn.execute("UPDATE acct SET bal = bal + 1 WHERE id = ?", (b,))
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 6 }],
    },
    {
      name: 'own default-mode connection, but the first INSERT runs only under a test: the CREATE TABLE may come first',
      code: `
        import sqlite3

        def migrate(path, note):
            conn = sqlite3.connect(path)
            with conn:
                if note:
                    conn.execute("INSERT INTO log (msg) VALUES (?)", (note,))
                conn.execute("CREATE TABLE items2 (id INTEGER PRIMARY KEY, name TEXT)")
                conn.execute("INSERT INTO items2 SELECT id, name FROM items")
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 5 }],
    },
    {
      name: 'a connection made by a factory class of the caller\'s choosing may be in autocommit',
      code: `
        import sqlite3
        from .db import AutoConnection

        def move(path, a, b):
            conn = sqlite3.connect(path, factory=AutoConnection)
            with conn:
                conn.execute("UPDATE acct SET bal = bal - 1 WHERE id = ?", (a,))
                conn.execute("UPDATE acct SET bal = bal + 1 WHERE id = ?", (b,))
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 6 }],
    },
    {
      name: 'setattr with a name the reader cannot see may switch the mode',
      code: `
        import sqlite3
        MODE = "isolation_level"

        def move(path, a, b):
            conn = sqlite3.connect(path)
            setattr(conn, MODE, None)
            with conn:
                conn.execute("UPDATE acct SET bal = bal - 1 WHERE id = ?", (a,))
                conn.execute("UPDATE acct SET bal = bal + 1 WHERE id = ?", (b,))
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 7 }],
    },
    {
      name: 'own default-mode connection, but the first INSERT sits under `and`: the CREATE TABLE may come first',
      code: `
        import sqlite3

        def migrate(path, note):
            conn = sqlite3.connect(path)
            with conn:
                note and conn.execute("INSERT INTO log (msg) VALUES (?)", (note,))
                conn.execute("CREATE TABLE items2 (id INTEGER PRIMARY KEY, name TEXT)")
                conn.execute("INSERT INTO items2 SELECT id, name FROM items")
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 5 }],
    },
    {
      name: 'own default-mode connection, but the first write is a WITH ... UPDATE, before which sqlite3 begins nothing',
      code: `
        import sqlite3

        def move(path, a, b):
            conn = sqlite3.connect(path)
            with conn:
                conn.execute("WITH x AS (SELECT ? AS id) UPDATE acct SET bal = bal - 1 WHERE id IN (SELECT id FROM x)", (a,))
                conn.execute("UPDATE acct SET bal = bal + 1 WHERE id = ?", (b,))
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 5 }],
    },
    {
      name: 'own default-mode connection, but handed inside a list to a call whose code is not read',
      code: `
        import sqlite3
        from .util import flush_all

        def move(path, a, b):
            conn = sqlite3.connect(path)
            with conn:
                conn.execute("UPDATE acct SET bal = bal - 1 WHERE id = ?", (a,))
                flush_all([conn])
                conn.execute("UPDATE acct SET bal = bal + 1 WHERE id = ?", (b,))
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 6 }],
    },
    {
      name: 'own default-mode connection, but its commit taken as a value and called in the block',
      code: `
        import sqlite3

        def move(path, a, b):
            conn = sqlite3.connect(path)
            with conn:
                conn.execute("UPDATE acct SET bal = bal - 1 WHERE id = ?", (a,))
                finish = conn.commit
                finish()
                conn.execute("UPDATE acct SET bal = bal + 1 WHERE id = ?", (b,))
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 5 }],
    },
    {
      name: 'own default-mode connection, but handed before the block to code that may switch it to autocommit',
      code: `
        import sqlite3
        from .tuning import tune

        def move(path, a, b):
            conn = sqlite3.connect(path)
            tune(conn)
            with conn:
                conn.execute("UPDATE acct SET bal = bal - 1 WHERE id = ?", (a,))
                conn.execute("UPDATE acct SET bal = bal + 1 WHERE id = ?", (b,))
      `,
      errors: [{ messageId: 'withConnNoBegin', line: 7 }],
    },
  ],
});
