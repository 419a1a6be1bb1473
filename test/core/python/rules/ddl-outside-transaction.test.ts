import { ddlOutsideTransaction } from '../../../../src/core/python/rules/ddl-outside-transaction.ts';
import { testRule } from './rule-tester.ts';
import { DROP_AND_CREATE_IN_WITH } from './snippets.ts';

testRule(ddlOutsideTransaction, {
  valid: [
    {
      name: 'psycopg: PostgreSQL DDL is transactional, and the implicit transaction holds it with the backfill',
      code: `
        import psycopg2

        def add_slug(conn):
            conn.execute("ALTER TABLE posts ADD COLUMN slug TEXT")
            conn.execute("UPDATE posts SET slug = lower(title)")
            conn.commit()
      `,
    },
    {
      name: 'BEGIN before ALTER and the backfill',
      code: `
        def add_slug(conn):
            conn.execute("BEGIN")
            conn.execute("ALTER TABLE posts ADD COLUMN slug TEXT")
            conn.execute("UPDATE posts SET slug = lower(title)")
            conn.execute("COMMIT")
      `,
    },
    {
      name: 'isolation_level=None, then BEGIN, then DDL',
      code: `
        def add_slug(path):
            conn = sqlite3.connect(path, isolation_level=None)
            conn.execute("BEGIN")
            conn.execute("ALTER TABLE posts ADD COLUMN slug TEXT")
            conn.execute("UPDATE posts SET slug = lower(title)")
            conn.execute("COMMIT")
      `,
    },
    {
      name: 'CREATE TABLE IF NOT EXISTS re-runs harmlessly',
      code: `
        def init(conn):
            conn.execute("CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT)")
            conn.execute("INSERT OR IGNORE INTO kv VALUES ('version', '1')")
      `,
    },
    {
      name: 'a TEMP table vanishes with the crash',
      code: `
        def report(conn):
            conn.execute("CREATE TEMP TABLE totals AS SELECT customer_id, sum(total) FROM orders GROUP BY 1")
            conn.execute("INSERT INTO reports SELECT * FROM totals")
      `,
    },
    {
      name: 'a lone schema change',
      code: `
        def add_index(conn):
            conn.execute("CREATE INDEX idx_orders_customer ON orders (customer_id)")
      `,
    },
    {
      name: 'PRAGMA is no schema change',
      code: `
        def open_db(conn):
            conn.execute("PRAGMA journal_mode = wal")
            conn.execute("INSERT INTO log (event) VALUES ('open')")
      `,
    },
    {
      name: 'ATTACH cannot run in a transaction at all (stdlib test_backup.py)',
      code: `
        def test_database_source_name(self):
            self.cx.execute("ATTACH DATABASE 'other.db' AS attached_db")
            self.cx.execute("INSERT INTO attached_db.foo (key) VALUES (3)")
            self.cx.commit()
      `,
    },
    {
      name: 'VACUUM cannot run in a transaction either (stdlib test_dbapi.py)',
      code: `
        def test_rowcount_vacuum(self):
            self.cu.executemany("insert into test(income) values(?)", data)
            self.cx.commit()
            self.cu.execute("vacuum")
      `,
    },
    {
      name: 'an in-memory database dies with the process (stdlib test_sqlite3)',
      code: `
        def test_statement_reset(self):
            con = sqlite.connect(":memory:", cached_statements=5)
            cursors = [con.cursor() for x in range(5)]
            cursors[0].execute("create table test(x)")
            for i in range(10):
                cursors[0].executemany("insert into test(x) values (?)", [(x,) for x in range(10)])
      `,
    },
    {
      name: 'DDL after an uncommitted write: the implicit transaction holds it (commit-without-begin speaks)',
      code: `
        def archive(conn):
            conn.execute("INSERT INTO log (event) VALUES ('archive')")
            conn.execute("ALTER TABLE orders RENAME TO orders_old")
            conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY)")
            conn.commit()
      `,
    },
    {
      name: 'the schema change is the last write: nothing is left undone after it (stdlib test_dbm_sqlite3.py)',
      code: DROP_AND_CREATE_IN_WITH,
    },
    {
      name: 'sqlite-utils add_missing_columns: each ALTER runs only if the column is missing, so a re-run skips what is done',
      code: `
        class Table:
            def add_column(self, col_name, col_type):
                self.db.execute("ALTER TABLE {} ADD COLUMN {} {};".format(self.name, col_name, col_type))

            def add_missing_columns(self, records):
                needed_columns = suggest_column_types(records)
                current_columns = {c.lower() for c in self.columns_dict}
                for col_name, col_type in needed_columns.items():
                    if col_name.lower() not in current_columns:
                        self.add_column(col_name, col_type)
                self.db.execute("UPDATE t SET n = 1")
      `,
    },
  ],
  invalid: [
    {
      name: 'a not-in guard on something the ALTER does not take is no re-run guard',
      code: `
        def migrate(conn, user, admins):
            if user not in admins:
                conn.execute("ALTER TABLE posts ADD COLUMN slug TEXT")
                conn.execute("UPDATE posts SET slug = lower(title)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 3 }],
    },
    {
      name: 'another DB-API driver (pymysql): said in its words, not sqlite3\'s',
      code: `
        import pymysql

        def add_slug(conn):
            conn.execute("ALTER TABLE posts ADD COLUMN slug TEXT")
            conn.execute("UPDATE posts SET slug = lower(title)")
            conn.commit()
      `,
      errors: [{ messageId: 'ddlCommitsAround', line: 4 }],
    },
    {
      name: 'ALTER then UPDATE with no BEGIN',
      code: `
        def add_slug(conn):
            conn.execute("ALTER TABLE posts ADD COLUMN slug TEXT")
            conn.execute("UPDATE posts SET slug = lower(title)")
            conn.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 2 }],
    },
    {
      name: 'table swap through f-strings',
      code: `
        def rebuild(conn, table):
            conn.execute(f"CREATE TABLE {table}_new AS SELECT * FROM {table}")
            conn.execute(f"DROP TABLE {table}")
            conn.execute(f"ALTER TABLE {table}_new RENAME TO {table}")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 2 }],
    },
    {
      name: 'with conn: does not begin either',
      code: `
        def add_slug(conn):
            with conn:
                conn.execute("ALTER TABLE posts ADD COLUMN slug TEXT")
                conn.execute("UPDATE posts SET slug = lower(title)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 3 }],
    },
    {
      name: 'BEGIN after the DDL does not cover it',
      code: `
        def add_slug(conn):
            conn.execute("ALTER TABLE posts ADD COLUMN slug TEXT")
            conn.execute("BEGIN")
            conn.execute("UPDATE posts SET slug = lower(title)")
            conn.execute("COMMIT")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 2 }],
    },
    {
      name: 'DROP repeated in a loop',
      code: `
        def drop_all(conn, tables):
            for name in tables:
                conn.execute(f"DROP TABLE {name}")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 3 }],
    },
  ],
});
