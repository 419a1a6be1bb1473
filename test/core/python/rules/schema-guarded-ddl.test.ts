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
      name: "gpodder's embedded minidb: _register (table a local bound once) and load, which writes nothing else, pass; save's INSERT after the call stays reported (the guard is not taken next to other writes)",
      code: gpodderMinidb(),
      errors: [{ messageId: 'ddlNoTransaction', line: GPODDER_SAVE_REGISTER }],
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
