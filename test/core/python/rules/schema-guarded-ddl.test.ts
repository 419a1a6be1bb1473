// ddl-outside-transaction on DDL a re-run completes because each statement is guarded by a read of
// the schema it changes (schema-guarded-ddl.ts): minidb 2.0.7's Store.register -> _ensure_schema,
// and the near misses that must stay reported.
import { ddlOutsideTransaction } from '../../../../src/core/python/rules/ddl-outside-transaction.ts';
import { testRule } from './rule-tester.ts';

interface MinidbVariant {
  /** The filter's container: the column names the read returned. */
  names?: string;
  /** The read. */
  read?: string;
  /** Statements after the ALTER loop (inside `if available:`). */
  afterAlters?: string;
  /** Statements before the CREATE (in the else). */
  beforeCreate?: string;
  /** Statements right after the read. */
  afterRead?: string;
}

/** minidb 2.0.7's Store, cut to register -> _ensure_schema; `register`'s call of _ensure_schema is line 37. */
function minidb(variant: MinidbVariant = {}): string {
  return `
    import sqlite3
    import threading

    class Store(object):
        PRIMARY_KEY = ('id', int)

        def __init__(self, filename=':memory:'):
            self.db = sqlite3.connect(filename, check_same_thread=False)
            self.lock = threading.RLock()
            self.registered = {}

        def _execute(self, sql, args=None):
            cursor = self.db.cursor()
            if args is None:
                return cursor.execute(sql)
            return cursor.execute(sql, args)

        def _ensure_schema(self, table, slots):
            with self.lock:
                cur = self._execute(${variant.read ?? "'PRAGMA table_info(%s)' % table"})
                available = cur.fetchall()
                ${variant.afterRead ?? ''}

                if available:
                    available = [(row[1], row[2]) for row in available]
                    missing_slots = [(name, type_) for name, type_ in slots if name not in ${variant.names ?? '(n for n, _ in available)'}]
                    for name, type_ in missing_slots:
                        self._execute('ALTER TABLE %s ADD COLUMN %s %s' % (table, name, 'TEXT'))
                    ${variant.afterAlters ?? ''}
                else:
                    ${variant.beforeCreate ?? ''}
                    self._execute('CREATE TABLE %s (%s)' % (table, ', '.join('{} TEXT'.format(name) for name, type_ in slots)))

        def register(self, class_, upgrade=False):
            with self.lock:
                self.registered[class_.__name__] = class_
                self._ensure_schema(class_.__name__, [('id', int), ('a', str)])
            return class_
  `;
}

const REGISTER_CALL = 37;

interface GpodderVariant {
  /** Statements right after the read (inside `_register`). */
  afterRead?: string;
}

/**
 * gPodder 3.11.1's embedded minidb (gpodder/minidb.py), cut to _register and two callers: the table is a local bound by
 * `table, slots = self._schema(class_)`, the missing columns a generator over the read's names. Lines: the ALTER is 23,
 * save's call of _register 31, load's 38.
 */
function gpodderMinidb(variant: GpodderVariant = {}): string {
  return `
    import sqlite3
    import threading

    class Store(object):
        def __init__(self, filename=':memory:'):
            self.db = sqlite3.connect(filename, check_same_thread=False)
            self.lock = threading.RLock()

        def _schema(self, class_):
            return class_.__name__, list(sorted(class_.__slots__))

        def _register(self, class_):
            with self.lock:
                table, slots = self._schema(class_)
                cur = self.db.execute('PRAGMA table_info(%s)' % table)
                available = cur.fetchall()
                ${variant.afterRead ?? ''}

                if available:
                    available = [row[1] for row in available]
                    missing_slots = (s for s in slots if s not in available)
                    for slot in missing_slots:
                        self.db.execute('ALTER TABLE %s ADD COLUMN %s TEXT' % (table,
                            slot))
                else:
                    self.db.execute('CREATE TABLE %s (%s)' % (table,
                            ', '.join('%s TEXT' % s for s in slots)))

        def save(self, o):
            with self.lock:
                self._register(o.__class__)
                table, slots = self._schema(o.__class__)
                values = [str(getattr(o, slot)) for slot in slots]
                self.db.execute('INSERT INTO %s (%s) VALUES (%s)' % (table, ', '.join(slots), ', '.join('?' * len(slots))), values)

        def load(self, class_, **kwargs):
            with self.lock:
                self._register(class_)
                table, slots = self._schema(class_)
                return self.db.execute('SELECT %s FROM %s' % (', '.join(slots), table)).fetchall()
  `;
}

const GPODDER_ALTER = 23;
const GPODDER_SAVE_REGISTER = 31;
const GPODDER_LOAD_REGISTER = 38;

testRule(ddlOutsideTransaction, {
  valid: [
    { name: 'minidb: PRAGMA table_info read first, ALTER only per missing column, CREATE only when the read found no row', code: minidb() },
    {
      name: 'guarded CREATE, then inserts under a loop over a parameter (nothing the re-run reads differently)',
      code: `
        def save_all(conn, items):
            rows = conn.execute("PRAGMA table_info(items)").fetchall()
            if not rows:
                conn.execute("CREATE TABLE items (name TEXT)")
            for item in items:
                conn.execute("INSERT INTO items VALUES (?)", (item,))
            conn.commit()
      `,
    },
    {
      name: 'one function: the column names read by PRAGMA, ALTER only under `if name not in cols:`',
      code: `
        def add_columns(conn, wanted):
            cols = [row[1] for row in conn.execute("PRAGMA table_info(items)").fetchall()]
            for name in wanted:
                if name not in cols:
                    conn.execute(f"ALTER TABLE items ADD COLUMN {name} TEXT")
            conn.execute("CREATE INDEX IF NOT EXISTS items_a ON items (a)")
      `,
    },
    {
      name: "gpodder's embedded minidb: save registers the class (guarded ALTER/CREATE in _register), then inserts outside the guard: the re-run skips the DDL and still inserts",
      code: gpodderMinidb(),
    },
    {
      name: 'one function: guarded ALTERs, then an INSERT after the loop and its guard',
      code: `
        def add_columns(conn, wanted, row):
            cols = [row[1] for row in conn.execute("PRAGMA table_info(items)").fetchall()]
            for name in wanted:
                if name not in cols:
                    conn.execute(f"ALTER TABLE items ADD COLUMN {name} TEXT")
            conn.execute("INSERT INTO items (a) VALUES (?)", (row,))
            conn.commit()
      `,
    },
    {
      name: 'CREATE TABLE only when PRAGMA table_info found no row (`if not rows:`)',
      code: `
        def ensure_items(conn):
            rows = conn.execute("PRAGMA table_info(items)").fetchall()
            
            if not rows:
                conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, a TEXT)")
            conn.execute("CREATE INDEX IF NOT EXISTS items_a ON items (a)")
      `,
    },
  ],
  invalid: [
    {
      name: 'review 26b c4a: a later loop over the guard-derived `missing` list backfills (the re-run finds nothing missing and skips it)',
      code: `
        NEW_COLUMNS = {'rating': '0', 'source': "'local'"}

        def upgrade(conn):
            cols = [row[1] for row in conn.execute("PRAGMA table_info(items)").fetchall()]
            missing = [name for name in NEW_COLUMNS if name not in cols]
            for name in missing:
                conn.execute(f"ALTER TABLE items ADD COLUMN {name} TEXT")
            for name in missing:
                conn.execute(f"UPDATE items SET {name} = {NEW_COLUMNS[name]}")
            conn.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 7 }],
    },
    {
      name: 'review 26b c4b: a second `if not rows:` seeds the table (the re-run reads rows and skips the seed)',
      code: `
        DEFAULTS = [('theme', 'light'), ('autosave', '1')]

        def ensure_settings(conn):
            rows = conn.execute("PRAGMA table_info(settings)").fetchall()
            if not rows:
                conn.execute("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT)")
            if not rows:
                conn.executemany("INSERT INTO settings VALUES (?, ?)", DEFAULTS)
            conn.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 6 }],
    },
    {
      name: 'near miss: `if rows: return` after the guarded CREATE, then the seed (the seed runs only on the first run)',
      code: `
        def ensure_settings(conn):
            rows = conn.execute("PRAGMA table_info(settings)").fetchall()
            if not rows:
                conn.execute("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT)")
            if rows:
                return
            conn.execute("INSERT INTO settings VALUES ('theme', 'light')")
            conn.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 4 }],
    },
    {
      name: "review 26b c4c: the caller's seed is conditional on the helper's returned `created` flag",
      code: `
        import sqlite3

        class Store:
            def __init__(self, filename):
                self.db = sqlite3.connect(filename)

            def _ensure_table(self, table, columns):
                rows = self.db.execute('PRAGMA table_info(%s)' % table).fetchall()
                if not rows:
                    self.db.execute('CREATE TABLE %s (%s)' % (table, ', '.join('%s TEXT' % c for c in columns)))
                    return True
                return False

            def open_counters(self):
                created = self._ensure_table('counters', ['name', 'value'])
                if created:
                    self.db.execute("INSERT INTO counters VALUES ('next_id', '1')")
                self.db.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 15 }],
    },
    {
      name: "near miss: the helper's result tested inline (`if self._ensure_table(...):`), the seed under it",
      code: `
        class Store:
            def _ensure_table(self, table):
                rows = self.db.execute('PRAGMA table_info(%s)' % table).fetchall()
                if not rows:
                    self.db.execute('CREATE TABLE %s (name TEXT, value TEXT)' % table)
                    return True
                return False

            def open_counters(self):
                if self._ensure_table('counters'):
                    self.db.execute("INSERT INTO counters VALUES ('next_id', '1')")
                self.db.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 10 }],
    },
    {
      name: 'near miss: guarded ALTERs, then a backfill inside the same guard in this function (the re-run skips both)',
      code: `
        def add_columns(conn, wanted):
            cols = [row[1] for row in conn.execute("PRAGMA table_info(items)").fetchall()]
            for name in wanted:
                if name not in cols:
                    conn.execute(f"ALTER TABLE items ADD COLUMN {name} TEXT")
                    conn.execute(f"UPDATE items SET {name} = ''")
            conn.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 5 }],
    },
    {
      name: 'near miss: a call the reader does not follow inside the guard (it may write, and the re-run skips it with the ALTER)',
      code: `
        from backfills import fill

        def add_columns(conn, wanted):
            cols = [row[1] for row in conn.execute("PRAGMA table_info(items)").fetchall()]
            for name in wanted:
                if name not in cols:
                    conn.execute(f"ALTER TABLE items ADD COLUMN {name} TEXT")
                    fill(conn, name)
            conn.execute("INSERT INTO log VALUES ('columns')")
            conn.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 7 }],
    },
    {
      name: "near miss: gPodder's minidb shape with a call on another object inside the helper's guard",
      code: `
        import sqlite3

        class Store(object):
            def __init__(self, filename=':memory:'):
                self.db = sqlite3.connect(filename)

            def _register(self, table, slots):
                available = self.db.execute('PRAGMA table_info(%s)' % table).fetchall()
                if available:
                    available = [row[1] for row in available]
                    missing_slots = (s for s in slots if s not in available)
                    for slot in missing_slots:
                        self.db.execute('ALTER TABLE %s ADD COLUMN %s TEXT' % (table, slot))
                        self.hooks.column_added(table, slot)

            def save(self, table, slots, values):
                self._register(table, slots)
                self.db.execute('INSERT INTO %s VALUES (?)' % table, values)
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 17 }],
    },
    {
      name: 'near miss: guarded ALTER, then an unguarded CREATE TABLE and an INSERT (the CREATE trips on the re-run)',
      code: `
        def add_columns(conn, wanted):
            cols = [row[1] for row in conn.execute("PRAGMA table_info(items)").fetchall()]
            for name in wanted:
                if name not in cols:
                    conn.execute(f"ALTER TABLE items ADD COLUMN {name} TEXT")
            conn.execute("CREATE TABLE audit (id INTEGER)")
            conn.execute("INSERT INTO audit VALUES (1)")
            conn.commit()
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 6 }],
    },
    {
      name: 'near miss: the table name bound again after the read (the ALTER names another table than the one read)',
      code: gpodderMinidb({ afterRead: "table = 'archive_' + table" }),
      errors: [
        { messageId: 'ddlNoTransaction', line: GPODDER_ALTER },
        { messageId: 'ddlNoTransaction', line: GPODDER_SAVE_REGISTER },
        { messageId: 'ddlNoTransaction', line: GPODDER_LOAD_REGISTER },
      ],
    },
    {
      name: 'near miss: the table name augmented after the read',
      code: gpodderMinidb({ afterRead: "table += '_v2'" }),
      errors: [
        { messageId: 'ddlNoTransaction', line: GPODDER_ALTER },
        { messageId: 'ddlNoTransaction', line: GPODDER_SAVE_REGISTER },
        { messageId: 'ddlNoTransaction', line: GPODDER_LOAD_REGISTER },
      ],
    },
    {
      name: 'near miss: the table name bound again by a loop between the read and the DDL',
      code: gpodderMinidb({ afterRead: "for table in ('a', 'b'):\n                    pass" }),
      // The loop's second line moves the rest down one.
      errors: [
        { messageId: 'ddlNoTransaction', line: GPODDER_ALTER + 1 },
        { messageId: 'ddlNoTransaction', line: GPODDER_SAVE_REGISTER + 1 },
        { messageId: 'ddlNoTransaction', line: GPODDER_LOAD_REGISTER + 1 },
      ],
    },
    {
      name: 'near miss: the table name bound again by a match capture (`case Foo() as table`) between the read and the DDL',
      code: gpodderMinidb({ afterRead: 'match class_:\n                    case Foo() as table:\n                        pass' }),
      // The match's two more lines move the rest down two.
      errors: [
        { messageId: 'ddlNoTransaction', line: GPODDER_ALTER + 2 },
        { messageId: 'ddlNoTransaction', line: GPODDER_SAVE_REGISTER + 2 },
        { messageId: 'ddlNoTransaction', line: GPODDER_LOAD_REGISTER + 2 },
      ],
    },
    {
      name: 'near miss: `case str() as table` rebinds the local table between the PRAGMA read and the ALTER',
      code: `
        import sqlite3

        class Store(object):
            def __init__(self, filename):
                self.db = sqlite3.connect(filename)

            def _register(self, class_, wanted):
                table = class_.__name__
                cols = [row[1] for row in self.db.execute('PRAGMA table_info(%s)' % table).fetchall()]
                match getattr(class_, '__table__', None):
                    case str() as table:
                        pass
                for name in wanted:
                    if name not in cols:
                        self.db.execute('ALTER TABLE %s ADD COLUMN %s TEXT' % (table, name))
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 15 }],
    },
    {
      name: 'near miss: the rows are filtered before the test (empty for a table that exists)',
      code: `
        def ensure_items(conn):
            rows = conn.execute("PRAGMA table_info(items)").fetchall()
            rows = [r for r in rows if r[1] != 'id']
            if not rows:
                conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, a TEXT)")
            conn.execute("CREATE INDEX IF NOT EXISTS items_a ON items (a)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 5 }],
    },
    {
      name: 'near miss: CREATE when the read found rows (the test the wrong way round)',
      code: `
        def ensure_items(conn):
            rows = conn.execute("PRAGMA table_info(items)").fetchall()
            
            if rows:
                conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, a TEXT)")
            conn.execute("CREATE INDEX IF NOT EXISTS items_a ON items (a)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 5 }],
    },
    {
      name: 'near miss: CREATE TABLE items guarded by the read of another table',
      code: `
        def ensure_items(conn):
            rows = conn.execute("PRAGMA table_info(users)").fetchall()
            
            if not rows:
                conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, a TEXT)")
            conn.execute("CREATE INDEX IF NOT EXISTS items_a ON items (a)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 5 }],
    },
    {
      name: 'near miss: an unguarded statement among the guarded ones (CREATE INDEX with no IF NOT EXISTS)',
      code: minidb({ afterAlters: "self._execute('CREATE INDEX %s_id ON %s (id)' % (table, table))" }),
      errors: [{ messageId: 'ddlNoTransaction', line: REGISTER_CALL }],
    },
    {
      name: 'near miss: the filter tests the column types, not their names',
      code: minidb({ names: '(t for _, t in available)' }),
      errors: [{ messageId: 'ddlNoTransaction', line: REGISTER_CALL }],
    },
    {
      name: 'near miss: the filter tests a list that is not the read',
      code: minidb({ names: 'self.registered' }),
      errors: [{ messageId: 'ddlNoTransaction', line: REGISTER_CALL }],
    },
    {
      name: 'near miss: the read is of another table',
      code: minidb({ read: "'PRAGMA table_info(%s)' % 'other'" }),
      errors: [{ messageId: 'ddlNoTransaction', line: REGISTER_CALL }],
    },
    {
      name: 'near miss: the row list is filtered before `if available:` (empty for a table that exists)',
      code: minidb({ afterRead: "available = [row for row in available if row[2] == 'INTEGER']" }),
      errors: [{ messageId: 'ddlNoTransaction', line: REGISTER_CALL }],
    },
    {
      name: 'near miss: DROP TABLE before the CREATE (a crash between them loses the table)',
      code: minidb({ beforeCreate: "self._execute('DROP TABLE %s' % table)" }),
      errors: [{ messageId: 'ddlNoTransaction', line: REGISTER_CALL }],
    },
    {
      name: 'near miss: a backfill after the ALTERs, which the re-run skips with them',
      code: minidb({ afterAlters: "self._execute('UPDATE %s SET a = 0' % table)" }),
      errors: [{ messageId: 'ddlNoTransaction', line: REGISTER_CALL }],
    },
    {
      name: 'near miss: the schema is read on another connection (another database, maybe)',
      code: `
        def add_columns(conn, backup, wanted):
            cols = [row[1] for row in backup.execute("PRAGMA table_info(items)").fetchall()]
            for name in wanted:
                if name not in cols:
                    conn.execute(f"ALTER TABLE items ADD COLUMN {name} TEXT")
            conn.execute("CREATE INDEX IF NOT EXISTS items_a ON items (a)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 5 }],
    },
    {
      name: 'near miss: the names are filtered later in the loop, and the next pass tests that list',
      code: `
        def add_columns(conn, wanted):
            cols = [row[1] for row in conn.execute("PRAGMA table_info(items)").fetchall()]
            for name in wanted:
                if name not in cols:
                    conn.execute(f"ALTER TABLE items ADD COLUMN {name} TEXT")
                cols = [c for c in cols if c != name]
            conn.execute("CREATE INDEX IF NOT EXISTS items_a ON items (a)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 5 }],
    },
    {
      name: 'near miss: the name is changed between the test and the ALTER',
      code: `
        def add_columns(conn, wanted):
            cols = [row[1] for row in conn.execute("PRAGMA table_info(items)").fetchall()]
            for name in wanted:
                if name not in cols:
                    name = name + "_v2"
                    conn.execute(f"ALTER TABLE items ADD COLUMN {name} TEXT")
            conn.execute("CREATE INDEX IF NOT EXISTS items_a ON items (a)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 6 }],
    },
    {
      name: 'near miss: the name tested is not the column altered',
      code: `
        def add_columns(conn, wanted, other):
            cols = [row[1] for row in conn.execute("PRAGMA table_info(items)").fetchall()]
            for name in wanted:
                if other not in cols:
                    conn.execute(f"ALTER TABLE items ADD COLUMN {name} TEXT")
            conn.execute("CREATE INDEX IF NOT EXISTS items_a ON items (a)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 5 }],
    },
    {
      name: 'near miss: the names are read from the rows\' field 0 (the column id), not field 1',
      code: `
        def add_columns(conn, wanted):
            cols = [row[0] for row in conn.execute("PRAGMA table_info(items)").fetchall()]
            for name in wanted:
                if name not in cols:
                    conn.execute(f"ALTER TABLE items ADD COLUMN {name} TEXT")
            conn.execute("CREATE INDEX IF NOT EXISTS items_a ON items (a)")
      `,
      errors: [{ messageId: 'ddlNoTransaction', line: 5 }],
    },
    {
      name: 'another DB-API driver (pymysql): guard or not, said in its words',
      code: `
        import pymysql

        def add_slug(conn):
            conn.execute("ALTER TABLE posts ADD COLUMN slug TEXT")
            conn.execute("UPDATE posts SET slug = lower(title)")
      `,
      errors: [{ messageId: 'ddlCommitsAround', line: 4 }],
    },
  ],
});
