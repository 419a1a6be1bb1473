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
    {
      name: 'zim Index._db_init: DROP TABLE of each table just listed from sqlite_master, then the rebuild (a re-run lists again and drops what is left)',
      code: `
        class Index:
            def _db_init(self):
                tables = [r[0] for r in self._db.execute(
                    'SELECT name FROM sqlite_master '
                    'WHERE type="table" and name NOT LIKE "sqlite%"'
                )]
                for table in tables:
                    self._db.execute('DROP TABLE %s' % table)
                self._db.executescript('''
                    CREATE TABLE zim_index (key TEXT, value TEXT);
                    INSERT INTO zim_index VALUES ('db_version', '1');
                ''')
                self._db.commit()

            def flush(self):
                self._db_init()
      `,
    },
    {
      name: "lollypop's History.__init__: `try: CREATE TABLE ... except: pass`, applied again it fails and is ignored, as IF NOT EXISTS",
      code: `
        class History:
            def __init__(self):
                try:
                    with SqlCursor(self, True) as sql:
                        sql.execute("CREATE TABLE history (id INTEGER PRIMARY KEY, name TEXT)")
                except:
                    pass
                with SqlCursor(self, True) as sql:
                    sql.execute("DELETE FROM history WHERE rowid IN (SELECT rowid FROM history LIMIT 100)")
      `,
    },
    {
      name: 'ALTER ... ADD in a try whose handler ignores sqlite3.OperationalError, then the backfill',
      code: `
        import sqlite3

        def add_slug(conn):
            try:
                conn.execute("ALTER TABLE posts ADD COLUMN slug TEXT")
            except sqlite3.OperationalError as e:
                pass
            conn.execute("UPDATE posts SET slug = lower(title) WHERE slug IS NULL")
            conn.commit()
      `,
    },
    {
      name: 'swallowed CREATE, then a trim conditional on a count read after the try and a class constant (the re-run reads the same)',
      code: `
        class History:
            __LIMIT = 100

            def __init__(self):
                try:
                    with SqlCursor(self, True) as sql:
                        sql.execute("CREATE TABLE history (id INTEGER PRIMARY KEY, name TEXT)")
                except:
                    pass
                with SqlCursor(self, True) as sql:
                    result = sql.execute("SELECT COUNT(*) FROM history")
                    v = result.fetchone()
                    if v is not None and v[0] > self.__LIMIT:
                        sql.execute("DELETE FROM history WHERE rowid IN (SELECT rowid FROM history LIMIT 10)")
      `,
    },
    {
      name: 'listed drops after a data read, then only schema changes (no row is written back)',
      code: `
        def reset(db):
            count = db.execute('SELECT COUNT(*) FROM notes').fetchone()
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for table in tables:
                db.execute('DROP TABLE %s' % table)
            db.execute('CREATE TABLE IF NOT EXISTS notes (id INTEGER, body TEXT)')
            db.commit()
      `,
    },
  ],
  invalid: [
    {
      name: 'review 26b c2a: rows read before the listed drops are inserted back after them (a crash after the drops loses them)',
      code: `
        SCHEMA_VERSION = 3

        def rebuild(db):
            notes = db.execute('SELECT id, title, body FROM notes').fetchall()
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite%'")]
            for table in tables:
                db.execute('DROP TABLE %s' % table)
            db.execute('CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT, tags TEXT)')
            db.execute('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)')
            db.executemany('INSERT INTO notes (id, title, body) VALUES (?, ?, ?)', notes)
            db.execute("INSERT INTO meta VALUES ('version', ?)", (SCHEMA_VERSION,))
            db.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 7 }],
    },
    {
      name: 'near miss: the listed drops in a helper, the rows read by the caller before it and written back after',
      code: `
        class Index:
            def _drop_all(self):
                tables = [r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
                for table in tables:
                    self._db.execute('DROP TABLE %s' % table)

            def rebuild(self):
                notes = self._db.execute('SELECT id, body FROM notes').fetchall()
                self._drop_all()
                self._db.execute('CREATE TABLE IF NOT EXISTS notes (id INTEGER, body TEXT)')
                self._db.executemany('INSERT INTO notes VALUES (?, ?)', notes)
                self._db.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 9 }],
    },
    {
      name: 'review 26b c3b: a backfill after the swallowed ALTER, conditional on columns read before the try',
      code: `
        import sqlite3

        def upgrade(conn):
            cols = [row[1] for row in conn.execute('PRAGMA table_info(songs)')]
            try:
                conn.execute('ALTER TABLE songs ADD COLUMN rating INTEGER')
            except sqlite3.OperationalError:
                pass
            if 'rating' not in cols:
                conn.execute('UPDATE songs SET rating = MIN(5, playcount / 10)')
            conn.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 6 }],
    },
    {
      name: 'review 26b c3a: the seed after the swallowed CREATE, conditional on a `fresh` flag computed before the try',
      code: `
        import os
        import sqlite3

        DEFAULT_SETTINGS = [('theme', 'light'), ('autosave', '1')]

        def open_db(path):
            fresh = not os.path.exists(path)
            conn = sqlite3.connect(path)
            try:
                conn.execute('CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT)')
            except sqlite3.OperationalError:
                pass
            if fresh:
                conn.executemany('INSERT INTO settings VALUES (?, ?)', DEFAULT_SETTINGS)
                conn.commit()
            return conn
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 10 }],
    },
    {
      name: 'near miss: the seed after the swallowed CREATE, conditional on a flag kept on self (transitively, through a local)',
      code: `
        import sqlite3

        class Db:
            def init(self):
                try:
                    self.conn.execute('CREATE TABLE settings (key TEXT, value TEXT)')
                except sqlite3.OperationalError:
                    pass
                first = self._fresh
                if first:
                    self.conn.execute("INSERT INTO settings VALUES ('theme', 'light')")
                self.conn.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 6 }],
    },
    {
      name: 'near miss: two schema changes in one try (the re-run fails at the first and skips the second)',
      code: `
        def init(conn):
            try:
                conn.execute("CREATE TABLE playlists (id INTEGER PRIMARY KEY)")
                conn.execute("CREATE TABLE tracks (playlist_id INT)")
            except:
                pass
            conn.execute("INSERT INTO playlists VALUES (1)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 3 }],
    },
    {
      name: 'near miss: the schema changes in a loop inside the try (the re-run stops at the first done)',
      code: `
        def init(conn, tables):
            try:
                for table in tables:
                    conn.execute(f"CREATE TABLE {table} (id INTEGER)")
            except Exception:
                pass
            conn.execute("INSERT INTO log VALUES ('init')")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 4 }],
    },
    {
      name: 'near miss: the try has an else that the re-run skips with the failure',
      code: `
        def add_slug(conn):
            try:
                conn.execute("ALTER TABLE posts ADD COLUMN slug TEXT")
            except Exception:
                pass
            else:
                conn.execute("UPDATE posts SET slug = lower(title)")
            conn.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 3 }],
    },
    {
      name: 'near miss: an earlier handler catches the failure first and raises it again',
      code: `
        import sqlite3

        def add_slug(conn):
            try:
                conn.execute("ALTER TABLE posts ADD COLUMN slug TEXT")
            except sqlite3.OperationalError:
                raise
            except Exception:
                pass
            conn.execute("UPDATE posts SET slug = lower(title)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 5 }],
    },
    {
      name: 'near miss: the handler catches another error (the re-run trips on the failure)',
      code: `
        def add_slug(conn):
            try:
                conn.execute("ALTER TABLE posts ADD COLUMN slug TEXT")
            except ValueError:
                pass
            conn.execute("UPDATE posts SET slug = lower(title)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 3 }],
    },
    {
      name: 'near miss: the listed names are added to before the drops (a name the schema did not list)',
      code: `
        def reset(conn):
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            tables.append('archive')
            for table in tables:
                conn.execute('DROP TABLE %s' % table)
            conn.execute("CREATE TABLE meta (key TEXT)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 5 }],
    },
    {
      name: 'near miss: the tables listed on another connection (another database, maybe)',
      code: `
        def reset(conn, other):
            tables = [r[0] for r in other.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for table in tables:
                conn.execute('DROP TABLE %s' % table)
            conn.execute("CREATE TABLE meta (key TEXT)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 4 }],
    },
    {
      name: 'near miss: the names kept from an earlier listing, not listed again by this call',
      code: `
        class Store:
            def reset(self):
                for table in self.tables:
                    self.conn.execute('DROP TABLE %s' % table)
                self.conn.execute("CREATE TABLE meta (key TEXT)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 4 }],
    },
    {
      name: 'near miss: the listing reads another column than the name',
      code: `
        def reset(conn):
            tables = [r[0] for r in conn.execute("SELECT tbl_name FROM sqlite_master WHERE type='index'")]
            for table in tables:
                conn.execute('DROP TABLE %s' % table)
            conn.execute("CREATE TABLE meta (key TEXT)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 4 }],
    },
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
