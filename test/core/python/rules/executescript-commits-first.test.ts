import { executescriptCommitsFirst } from '../../../../src/core/python/rules/executescript-commits-first.ts';
import { testRule } from './rule-tester.ts';

testRule(executescriptCommitsFirst, {
  valid: [
    {
      name: 'a script with its own BEGIN ... COMMIT',
      code: `
        def migrate(conn):
            conn.executescript("""
                BEGIN;
                ALTER TABLE posts ADD COLUMN slug TEXT;
                UPDATE posts SET slug = lower(title);
                COMMIT;
            """)
      `,
    },
    {
      name: 'schema setup that re-runs harmlessly',
      code: `
        SCHEMA = """
        CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY);
        CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY);
        CREATE INDEX IF NOT EXISTS idx_orders ON orders (id);
        """

        def init(conn):
            conn.executescript(SCHEMA)
      `,
    },
    {
      name: 'the writes before it were committed',
      code: `
        def reset(conn):
            conn.execute("DELETE FROM sessions")
            conn.commit()
            conn.executescript("BEGIN; DELETE FROM cache; DELETE FROM tokens; COMMIT;")
      `,
    },
    {
      name: 'a script that cannot be resolved is not judged',
      code: `
        def run(conn, path):
            conn.executescript(open(path).read())
      `,
    },
    {
      name: 'one write in the script',
      code: `
        def clear(conn):
            conn.executescript("DELETE FROM cache;")
      `,
    },
    {
      name: 'a read-only script after BEGIN, and no writes after it (stdlib test_dbapi.py)',
      code: `
        def test_cursor_executescript_tx_control(self, path):
            con = sqlite.connect(path)
            con.execute("begin")
            con.executescript("select 1")
            self.assertFalse(con.in_transaction)
      `,
    },
    {
      name: 'writes in a with conn: block were committed when it ended (stdlib test_regression.py)',
      code: `
        def step_through(con, values):
            with con:
                con.execute("create table t(t)")
                con.executemany("insert into t values(?)", values)
            con.executescript("select step(t) from t")
      `,
    },
    {
      name: 'an alias of the in-memory connection set up in setUp (stdlib test_dbapi.py)',
      code: `
        class ExtensionTests:
            def setUp(self):
                self.con = sqlite.connect(":memory:")

            def test_connection_executescript(self):
                con = self.con
                con.executescript("CREATE TABLE test(foo); INSERT INTO test(foo) VALUES (5);")
      `,
    },
    {
      name: 'DROP TABLEs before a script that begins: DDL opens no transaction, so the script commits nothing of theirs',
      code: `
        def rebuild(conn, tables):
            for table in tables:
                conn.execute('DROP TABLE %s' % table)
            conn.executescript("BEGIN; CREATE TABLE meta (key TEXT); INSERT INTO meta VALUES ('v1'); COMMIT;")
      `,
    },
  ],
  invalid: [
    {
      name: 'an INSERT, then DDL, then the script: the INSERT opened the transaction that holds both, and the script commits them',
      code: `
        def rebuild(conn):
            conn.execute("INSERT INTO log (event) VALUES ('rebuild')")
            conn.execute("DROP TABLE cache")
            conn.executescript("BEGIN; CREATE TABLE cache (key TEXT); COMMIT;")
      `,
      errors: [{ messageId: 'pendingWritesCommitted', line: 4 }],
    },
    {
      name: 'BEGIN, then DDL, then the script: the DDL is held by the open transaction, which the script commits',
      code: `
        def rebuild(conn):
            conn.execute("BEGIN")
            conn.execute("DROP TABLE cache")
            conn.executescript("BEGIN; CREATE TABLE cache (key TEXT); COMMIT;")
      `,
      errors: [{ messageId: 'pendingWritesCommitted', line: 4 }],
    },
    {
      name: "zim's _db_init: DROP TABLEs (saved on their own), then a script of three writes with no BEGIN: the script's own writes are what is said",
      code: `
        class Index:
            def _db_init(self):
                tables = [r[0] for r in self._db.execute('SELECT name FROM sqlite_master WHERE type="table"')]
                for table in tables:
                    self._db.execute('DROP TABLE %s' % table)
                self._db.executescript('''
                    CREATE TABLE zim_index (key TEXT, value TEXT);
                    INSERT INTO zim_index VALUES ('db_version', '1');
                    INSERT INTO zim_index VALUES ('db_sortkey_format', '2');
                ''')
                self._db.commit()
      `,
      errors: [{ messageId: 'scriptWithoutBegin', line: 6 }],
    },
    {
      name: 'pending writes committed by the script',
      code: `
        def add_slug(conn):
            conn.execute("UPDATE posts SET title = trim(title)")
            conn.executescript("BEGIN; ALTER TABLE posts ADD COLUMN slug TEXT; COMMIT;")
      `,
      errors: [{ messageId: 'pendingWritesCommitted', line: 3 }],
    },
    {
      name: 'an explicit BEGIN ended by the script',
      code: `
        def migrate(conn):
            conn.execute("BEGIN")
            conn.executescript("CREATE TABLE IF NOT EXISTS audit (id INTEGER);")
            conn.execute("INSERT INTO audit (id) VALUES (1)")
            conn.execute("COMMIT")
      `,
      errors: [{ messageId: 'openTransactionCommitted', line: 3 }],
    },
    {
      name: 'several writes in a script with no BEGIN',
      code: `
        def add_slug(conn):
            conn.executescript("""
                ALTER TABLE posts ADD COLUMN slug TEXT;
                UPDATE posts SET slug = lower(title);
            """)
      `,
      errors: [{ messageId: 'scriptWithoutBegin', line: 2 }],
    },
    {
      name: 'script from a module constant, built with an f-string part',
      code: `
        PURGE = "DELETE FROM sessions; DELETE FROM tokens; "

        def purge(conn, table):
            conn.executescript(PURGE + f"DELETE FROM {table};")
      `,
      errors: [{ messageId: 'scriptWithoutBegin', line: 4 }],
    },
  ],
});
