// The rebuild a crash cuts short and the next open runs again (reopen-rebuild.ts), and a write that ends the try
// body of the handler holding the script (failed-tail-write.ts): zim 0.75's Index, then near-misses that keep the
// surface and break the property, each of which must stay loud.
import { describe, expect, it } from 'vitest';
import { ddlOutsideTransaction } from '../../../../src/core/python/rules/ddl-outside-transaction.ts';
import { executescriptCommitsFirst } from '../../../../src/core/python/rules/executescript-commits-first.ts';
import { lint } from './rule-tester.ts';

const BASE = `
import sqlite3

DB_VERSION = '0.8'
SORTKEY = 'text_1.2.3'


class Index:
    def __init__(self, path):
        self.path = path
        self._db_connect()

    def _db_connect(self):
        try:
            self._db = sqlite3.Connection(self.path)
        except:
            self._db_recover()
        try:
            self._db.execute('PRAGMA synchronous=OFF;')
            if self.get_property('db_version') != DB_VERSION:
                self._db_init()
            elif self.get_property('db_sortkey_format') != natural_sort_key(SORTKEY):
                self._db_init()
            self.set_property('db_version', DB_VERSION)
        except sqlite3.OperationalError:
            logger.debug('init tables')
            try:
                self._db_init()
            except:
                self._db_recover()
        except sqlite3.DatabaseError:
            self._db_recover()

    def _db_recover(self):
        os.remove(self.path)
        self._db = sqlite3.Connection(self.path)
        self._db_init()

    def _db_init(self):
        tables = [r[0] for r in self._db.execute(
            'SELECT name FROM sqlite_master WHERE type="table" and name NOT LIKE "sqlite%"'
        )]
        for table in tables:
            self._db.execute('DROP TABLE %s' % table)
        self._db.executescript('''
            CREATE TABLE zim_index (key TEXT, value TEXT, CONSTRAINT uc_MetaOnce UNIQUE (key));
            INSERT INTO zim_index VALUES ('db_version', %r);
            INSERT INTO zim_index VALUES ('db_sortkey_format', %r)
        ''' % (DB_VERSION, natural_sort_key(SORTKEY)))
        self._db.commit()

    def get_property(self, key):
        c = self._db.execute('SELECT value FROM zim_index WHERE key=?', (key,))
        row = c.fetchone()
        return row[0] if row else None

    def set_property(self, key, value):
        if value is None:
            self._db.execute('DELETE FROM zim_index WHERE key=?', (key,))
        else:
            self._db.execute('INSERT OR REPLACE INTO zim_index VALUES (?, ?)', (key, value))

    def flush(self):
        self._db_init()
`;

function findings(code: string): string[] {
  return lint(code, [executescriptCommitsFirst, ddlOutsideTransaction]).map((f) => `${f.function}: ${f.messageId}`);
}

/** The base with `from` replaced by `to` (which must occur once). */
function variant(from: string, to: string): string {
  expect(BASE.split(from).length).toBe(2);
  const code = BASE.replace(from, to);
  return to.includes('upgrade_marker') ? `${code}${UPGRADE_MARKER}` : code;
}

/** A marker read that writes first. */
const UPGRADE_MARKER = `
    def upgrade_marker(self, key):
        self._db.execute("UPDATE zim_index SET value = '0.8' WHERE key = ?", (key,))
        row = self._db.execute('SELECT value FROM zim_index WHERE key=?', (key,)).fetchone()
        return row[0] if row else None
`;

describe('reopen-rebuild: zim Index quiet', () => {
  it('the rebuild, its opener, the recovery and flush: nothing reported', () => {
    expect(findings(BASE)).toEqual([]);
  });
});

describe('reopen-rebuild: near-misses stay loud', () => {
  const cases: [string, string, string, string[]][] = [
    [
      'a DML write pending before the drops in the rebuild',
      `        tables = [r[0] for r in self._db.execute(`,
      `        self._db.execute("INSERT INTO log VALUES ('reset')")\n        tables = [r[0] for r in self._db.execute(`,
      ['Index._db_connect: pendingWritesCommitted', 'Index._db_connect: pendingWritesCommitted', 'Index._db_connect: pendingWritesCommitted', 'Index._db_recover: pendingWritesCommitted', 'Index._db_init: pendingWritesCommitted', 'Index.flush: pendingWritesCommitted'],
    ],
    [
      'a caller writes on the connection, then calls the rebuild',
      `    def flush(self):\n        self._db_init()`,
      `    def flush(self):\n        self._db.execute("UPDATE files SET status = 0")\n        self._db_init()`,
      ['Index.flush: pendingWritesCommitted'],
    ],
    [
      'the script also updates rows',
      `            INSERT INTO zim_index VALUES ('db_version', %r);`,
      `            UPDATE pages SET dirty = 1;\n            INSERT INTO zim_index VALUES ('db_version', %r);`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the script writes values handed in by the caller',
      `''' % (DB_VERSION, natural_sort_key(SORTKEY)))`,
      `''' % (DB_VERSION, self.sortkey))`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the opener tests only the first key the script inserts, not the last',
      `            elif self.get_property('db_sortkey_format') != natural_sort_key(SORTKEY):\n                self._db_init()\n`,
      ``,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the opener rebuilds only when the marker table is missing from sqlite_master',
      `            if self.get_property('db_version') != DB_VERSION:\n                self._db_init()\n            elif self.get_property('db_sortkey_format') != natural_sort_key(SORTKEY):\n                self._db_init()`,
      `            if not self._db.execute("SELECT name FROM sqlite_master WHERE name='zim_index'").fetchone():\n                self._db_init()`,
      ['Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      "the helper's missing row raises TypeError, which no handler turns into a rebuild",
      `        return row[0] if row else None`,
      `        return row[0]`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the handler for a missing table logs and re-raises',
      `            logger.debug('init tables')\n            try:\n                self._db_init()\n            except:\n                self._db_recover()`,
      `            logger.debug('init tables')\n            raise`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the handler rebuilds only under a condition',
      `            logger.debug('init tables')\n            try:`,
      `            if self.path != ':memory:':\n                return\n            try:`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the drops run only under a condition',
      `        for table in tables:\n            self._db.execute('DROP TABLE %s' % table)`,
      `        if self.path != ':memory:':\n            for table in tables:\n                self._db.execute('DROP TABLE %s' % table)`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the opener keeps a value it read and writes it back after the rebuild',
      `            self.set_property('db_version', DB_VERSION)`,
      `            owner = self.get_property('owner')\n            self.set_property('db_version', DB_VERSION)\n            self.set_property('owner', owner)`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: pendingWritesCommitted'],
    ],
    [
      'the write ending the try body runs in a loop: a later round can raise after an earlier one wrote',
      `            self.set_property('db_version', DB_VERSION)`,
      `            for key in ('db_version', 'db_other'):\n                self.set_property(key, DB_VERSION)`,
      ['Index._db_connect: pendingWritesCommitted'],
    ],
    [
      'a statement follows the write in the try body',
      `            self.set_property('db_version', DB_VERSION)`,
      `            self.set_property('db_version', DB_VERSION)\n            self.check_tables()`,
      ['Index._db_connect: pendingWritesCommitted'],
    ],
    [
      'the opener compares the marker with None (a missing row passes)',
      `            elif self.get_property('db_sortkey_format') != natural_sort_key(SORTKEY):`,
      `            elif self.get_property('db_sortkey_format') != None:`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the handler catches only IntegrityError: a missing table is not rebuilt',
      `        except sqlite3.OperationalError:\n            logger.debug('init tables')`,
      `        except sqlite3.IntegrityError:\n            logger.debug('init tables')`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the marker helper reads another table than the one the script inserts into',
      `        c = self._db.execute('SELECT value FROM zim_index WHERE key=?', (key,))`,
      `        c = self._db.execute('SELECT value FROM settings WHERE key=?', (key,))`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the script runs on another connection than the drops',
      `        self._db.executescript('''`,
      `        self._cache.executescript('''`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the opener may return before its tests',
      `            self._db.execute('PRAGMA synchronous=OFF;')`,
      `            if self.path == ':memory:':\n                return\n            self._db.execute('PRAGMA synchronous=OFF;')`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the script ends with a CREATE TABLE, not the marker row',
      `            INSERT INTO zim_index VALUES ('db_sortkey_format', %r)`,
      `            INSERT INTO zim_index VALUES ('db_sortkey_format', %r);\n            CREATE TABLE pages (id INTEGER, name TEXT)`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the opener also rebuilds unconditionally after a write of its own',
      `            self.set_property('db_version', DB_VERSION)\n        except sqlite3.OperationalError:`,
      `            self.set_property('db_version', DB_VERSION)\n            self._db_init()\n        except sqlite3.OperationalError:`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: pendingWritesCommitted'],
    ],
    [
      'the try whose body ends with the write runs in a loop: an earlier round wrote',
      `        try:\n            self._db.execute('PRAGMA synchronous=OFF;')`,
      `        for attempt in range(2):\n          try:\n            self._db.execute('PRAGMA synchronous=OFF;')`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: pendingWritesCommitted', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the marker helper returns a value that is not the fetched row',
      `        row = c.fetchone()\n        return row[0] if row else None`,
      `        row = c.fetchone()\n        return row[0] if self.path else None`,
      ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'the opener writes the marker row itself before testing it (a partial schema then passes)',
      `            self._db.execute('PRAGMA synchronous=OFF;')`,
      `            self.set_property('db_sortkey_format', natural_sort_key(SORTKEY))`,
      ['Index._db_connect: pendingWritesCommitted', 'Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
    [
      'an earlier test of the chain goes through a helper that writes',
      `            if self.get_property('db_version') != DB_VERSION:`,
      `            if self.upgrade_marker('db_version') != DB_VERSION:`,
      // (with upgrade_marker added to the class, below)
      ['Index._db_connect: pendingWritesCommitted', 'Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'],
    ],
  ];
  for (const [name, from, to, expected] of cases) {
    it(name, () => {
      expect(findings(variant(from, to))).toEqual(expected);
    });
  }
});

describe('failed-tail-write: the write that ends the try body of the handler holding the script', () => {
  const script = `conn.executescript("CREATE TABLE a (x); CREATE TABLE b (y);")`;
  const only = (code: string): string[] => lint(code, [executescriptCommitsFirst]).map((f) => `${f.range.startLine}: ${f.messageId}`);

  it('the write is the last statement of the try body: it failed or never ran when the handler runs', () => {
    expect(
      only(`
        import sqlite3
        def save(conn, item):
            try:
                conn.execute("SELECT 1 FROM items")
                conn.execute("INSERT INTO items VALUES (?)", (item,))
            except sqlite3.OperationalError:
                ${script}
      `),
    ).toEqual(['7: scriptWithoutBegin']);
  });

  it('a write before the last statement may have succeeded: it is committed by the script', () => {
    expect(
      only(`
        import sqlite3
        def save(conn, item):
            try:
                conn.execute("INSERT INTO items VALUES (?)", (item,))
                conn.execute("UPDATE counts SET n = n + 1")
            except sqlite3.OperationalError:
                ${script}
      `),
    ).toEqual(['7: pendingWritesCommitted']);
  });

  it('the try runs in a loop: an earlier round wrote', () => {
    expect(
      only(`
        import sqlite3
        def save(conn, items):
            for item in items:
                try:
                    conn.execute("INSERT INTO items VALUES (?)", (item,))
                except sqlite3.OperationalError:
                    ${script}
      `),
    ).toEqual(['7: pendingWritesCommitted']);
  });

  it('a write before the try stays pending', () => {
    expect(
      only(`
        import sqlite3
        def save(conn, item):
            conn.execute("DELETE FROM items")
            try:
                conn.execute("INSERT INTO items VALUES (?)", (item,))
            except sqlite3.OperationalError:
                ${script}
      `),
    ).toEqual(['7: pendingWritesCommitted']);
  });

  it('through a helper whose write is followed by another of its statements', () => {
    expect(
      only(`
        import sqlite3
        class Store:
            def put(self, item):
                self.conn.execute("INSERT INTO items VALUES (?)", (item,))
                self.conn.execute("UPDATE counts SET n = n + 1")
            def save(self, item):
                try:
                    self.put(item)
                except sqlite3.OperationalError:
                    self.conn.executescript("CREATE TABLE a (x); CREATE TABLE b (y);")
      `),
    ).toEqual(['10: pendingWritesCommitted']);
  });
});

/** The base with each `from` replaced by its `to` (each `from` occurring once), and `extra` appended. */
function edited(pairs: [string, string][], extra = ''): string {
  let code = BASE;
  for (const [from, to] of pairs) {
    expect(code.split(from).length).toBe(2);
    code = code.replace(from, to);
  }
  return `${code}${extra}`;
}

const LISTING = `'SELECT name FROM sqlite_master WHERE type="table" and name NOT LIKE "sqlite%"'`;
const MARKER_CREATE = `            CREATE TABLE zim_index (key TEXT, value TEXT, CONSTRAINT uc_MetaOnce UNIQUE (key));\n`;
const SCRIPT_END = `''' % (DB_VERSION, natural_sort_key(SORTKEY)))\n        self._db.commit()`;
/** The rebuild no longer qualifies: its drops in the opener, and its script in every function that runs it. */
const EVERY_CALLER = ['Index._db_connect: ddlNoTransaction', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_connect: scriptWithoutBegin', 'Index._db_recover: scriptWithoutBegin', 'Index._db_init: scriptWithoutBegin', 'Index.flush: scriptWithoutBegin'];
const INIT = `        self.path = path\n        self._db_connect()\n`;

describe('reopen-rebuild: review round A (rev-A cases, small forms)', () => {
  it('quiet: another table made after the marker table (the marker table is still listed and dropped first)', () => {
    expect(findings(edited([[MARKER_CREATE, `${MARKER_CREATE}            CREATE TABLE pages (id INTEGER, name TEXT);\n`]]))).toEqual([]);
  });

  it('quiet: after the script the rebuild calls a method __init__ runs again when the rebuild did not (zim _update_iter_init)', () => {
    const code = edited(
      [
        [SCRIPT_END, `''' % (DB_VERSION, natural_sort_key(SORTKEY)))\n        self._init_tables()\n        self._db.commit()`],
        [INIT, `${INIT}        if not hasattr(self, 'tables'):\n            self._init_tables()\n`],
      ],
      `\n    def _init_tables(self):\n        self.tables = Tables(self._db)\n`,
    );
    expect(findings(code)).toEqual([]);
  });

  const loud: [string, [string, string][], string, string[]][] = [
    [
      'case16: the listing leaves the marker table out (flush keeps the current marker, a cut loses pages for good)',
      [[LISTING, `'SELECT name FROM sqlite_master WHERE type="table" and name NOT LIKE "sqlite%" and name != "zim_index"'`]],
      '',
      EVERY_CALLER,
    ],
    [
      'case16: the marker table is made with IF NOT EXISTS',
      [[MARKER_CREATE, MARKER_CREATE.replace('CREATE TABLE zim_index', 'CREATE TABLE IF NOT EXISTS zim_index')]],
      '',
      EVERY_CALLER,
    ],
    [
      'case16: the marker row is written with INSERT OR REPLACE',
      [[`INSERT INTO zim_index VALUES ('db_sortkey_format', %r)`, `INSERT OR REPLACE INTO zim_index VALUES ('db_sortkey_format', %r)`]],
      '',
      EVERY_CALLER,
    ],
    [
      'the listing is ordered by name: the marker table need not be dropped first',
      [[LISTING, `'SELECT name FROM sqlite_master WHERE type="table" and name NOT LIKE "sqlite%" ORDER BY name'`]],
      '',
      EVERY_CALLER,
    ],
    [
      'case01: the marker table is made last, so listed and dropped last (flush cut after dropping pages keeps the marker)',
      [[MARKER_CREATE, `            CREATE TABLE pages (id INTEGER, name TEXT);\n${MARKER_CREATE}`]],
      '',
      EVERY_CALLER,
    ],
    [
      'case02: __init__ runs the opener only for a new file',
      [[INIT, `        self.path = path\n        if os.path.exists(path):\n            self._db = sqlite3.Connection(path)\n        else:\n            self._db_connect()\n`]],
      '',
      EVERY_CALLER,
    ],
    [
      'case03: __init__ only connects; the opener runs on another path (a check command)',
      [[INIT, `        self.path = path\n        self._db = sqlite3.Connection(path)\n`]],
      '',
      EVERY_CALLER,
    ],
    [
      'case09c: a second script after the marker script, run only by the rebuild',
      [[SCRIPT_END, `''' % (DB_VERSION, natural_sort_key(SORTKEY)))\n        self._db.executescript(LINKS_SCHEMA)\n        self._db.commit()`]],
      `\nLINKS_SCHEMA = '''\nCREATE TABLE IF NOT EXISTS links (source INTEGER, target INTEGER);\nCREATE TABLE IF NOT EXISTS tags (id INTEGER PRIMARY KEY, name TEXT);\n'''\n`,
      EVERY_CALLER,
    ],
    [
      'case10: an INSERT after the marker script (a cut between them keeps the marker, the row never made)',
      [[SCRIPT_END, `''' % (DB_VERSION, natural_sort_key(SORTKEY)))\n        self._db.execute("INSERT INTO pages (id, name, parent) VALUES (1, ':', 0)")\n        self._db.commit()`]],
      '',
      EVERY_CALLER,
    ],
    [
      'the method called after the script is re-run by __init__ under a hasattr guard it does not bind',
      [
        [SCRIPT_END, `''' % (DB_VERSION, natural_sort_key(SORTKEY)))\n        self._init_tables()\n        self._db.commit()`],
        [INIT, `${INIT}        if not hasattr(self, 'tables'):\n            self._init_tables()\n`],
      ],
      `\n    def _init_tables(self):\n        self.other = Tables(self._db)\n`,
      EVERY_CALLER,
    ],
    [
      'case12: a function of another module handed the connection runs before the tests (it may write the marker)',
      [[`            self._db.execute('PRAGMA synchronous=OFF;')`, `            self._db.execute('PRAGMA synchronous=OFF;')\n            migrate(self._db)`]],
      '',
      EVERY_CALLER,
    ],
    [
      'a function handed a local alias of the connection runs before the tests',
      [[`            self._db.execute('PRAGMA synchronous=OFF;')`, `            db = self._db\n            migrate(db)`]],
      '',
      EVERY_CALLER,
    ],
    [
      'a function handed the connection through a with alias runs before the tests',
      [[`            self._db.execute('PRAGMA synchronous=OFF;')`, `            with self._db as db:\n                migrate(db)`]],
      '',
      EVERY_CALLER,
    ],
    [
      'a call handed the object itself runs before the tests',
      [[`            self._db.execute('PRAGMA synchronous=OFF;')`, `            self._db.execute('PRAGMA synchronous=OFF;')\n            upgrade(self)`]],
      '',
      EVERY_CALLER,
    ],
    [
      'a method of an object the instance holds runs before the tests',
      [[`            self._db.execute('PRAGMA synchronous=OFF;')`, `            self._db.execute('PRAGMA synchronous=OFF;')\n            self.migrator.run()`]],
      '',
      EVERY_CALLER,
    ],
    [
      'case14: a subclass answers a missing marker row with a default',
      [],
      `\n\nDEFAULTS = {'db_version': DB_VERSION, 'db_sortkey_format': natural_sort_key(SORTKEY)}\n\n\nclass NotebookIndex(Index):\n    def get_property(self, key):\n        value = Index.get_property(self, key)\n        return value if value is not None else DEFAULTS.get(key)\n`,
      EVERY_CALLER,
    ],
    [
      'a subclass redefines __init__ without the opener',
      [],
      `\n\nclass ReadOnlyIndex(Index):\n    def __init__(self, path):\n        self.path = path\n        self._db = sqlite3.Connection(path)\n`,
      EVERY_CALLER,
    ],
  ];
  for (const [name, pairs, extra, expected] of loud) {
    it(name, () => {
      expect(findings(edited(pairs, extra))).toEqual(expected);
    });
  }
});

describe('failed-tail-write: review round A (rev-A cases, small forms)', () => {
  const only = (code: string): string[] => lint(code, [executescriptCommitsFirst]).map((f) => `${f.range.startLine}: ${f.messageId}`);

  it('case04: executemany ends the try body: its first rows are pending when a later one fails', () => {
    expect(
      only(`
        import sqlite3
        def add_tags(conn, rows):
            try:
                conn.executemany("INSERT INTO tagsources (source, tag) VALUES (?, ?)", rows)
            except sqlite3.DatabaseError:
                conn.executescript("CREATE TABLE IF NOT EXISTS tags (name TEXT); CREATE TABLE IF NOT EXISTS tagsources (source, tag);")
                raise
      `),
    ).toEqual(['6: pendingWritesCommitted']);
  });

  it('case05: the tail helper calls another helper that writes first', () => {
    expect(
      only(`
        import sqlite3
        class Settings:
            def _record(self, key, value):
                self.conn.execute("INSERT INTO history (key, value) VALUES (?, ?)", (key, value))
            def _store(self, key, value):
                self._record(key, value)
                self.conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, value))
            def set(self, key, value):
                try:
                    self._store(key, value)
                except sqlite3.OperationalError:
                    self.conn.executescript("CREATE TABLE IF NOT EXISTS settings (key, value); CREATE TABLE IF NOT EXISTS history (key, value);")
                    self._store(key, value)
      `),
    ).toEqual(['12: pendingWritesCommitted']);
  });

  it('case07: a subclass overrides the tail helper with one that writes first', () => {
    expect(
      only(`
        import sqlite3
        class Store:
            def put(self, key, value):
                self.conn.execute("INSERT OR REPLACE INTO kv VALUES (?, ?)", (key, value))
            def save(self, key, value):
                try:
                    self.put(key, value)
                except sqlite3.OperationalError:
                    self.conn.executescript("CREATE TABLE IF NOT EXISTS kv (key, value); CREATE TABLE IF NOT EXISTS audit (key, value);")
                    self.put(key, value)

        class AuditedStore(Store):
            def put(self, key, value):
                self.conn.execute("INSERT INTO audit VALUES (?, ?)", (key, value))
                super().put(key, value)
      `),
    ).toEqual(['9: pendingWritesCommitted']);
  });

  it('quiet: the one-level tail helper without the override', () => {
    expect(
      only(`
        import sqlite3
        class Store:
            def put(self, key, value):
                self.conn.execute("INSERT OR REPLACE INTO kv VALUES (?, ?)", (key, value))
            def save(self, key, value):
                try:
                    self.put(key, value)
                except sqlite3.OperationalError:
                    self.conn.executescript("CREATE TABLE IF NOT EXISTS kv (key, value); CREATE TABLE IF NOT EXISTS audit (key, value);")
                    self.put(key, value)
      `),
    ).toEqual([]);
  });
});
