import { describe, expect, it } from 'vitest';
import { writesRelyOnImplicitTransaction } from '../../../../src/core/python/rules/writes-rely-on-implicit-transaction.ts';
import { lint, testRule } from './rule-tester.ts';
import { AUTOCOMMIT_THEN_BEGIN, refund } from './snippets.ts';

/** buku's load_firefox_database: add_rec passed delay_commit=True (sixth, positionally), so nothing here commits; the caller does. */
function bukuImport(opens: string, extra = ''): string {
  return `
import sqlite3

class BukuDb:
    def __init__(self, dbfile=None):
        self.conn = ${opens}
        self.cur = self.conn.cursor()

    def add_rec(self, url, title_in=None, tags_in=None, desc=None, immutable=0, delay_commit=False, fetch=True):
        self.cur.execute("INSERT INTO bookmarks(URL, metadata, tags) VALUES (?, ?, ?)", (url, title_in, tags_in))
        if not delay_commit:
            self.conn.commit()

    def load_firefox_database(self, rows):
        for url, title, tags in rows:
            self.add_rec(url, title, tags, None, 0, True, False)
${extra}`;
}

/**
 * coverage's sqldata.py (6.5, 7.x): CoverageData keeps one SqliteDb per thread in `self._dbs`, and
 * SqliteDb runs every call on `self.con`, opened by `sqlite3.connect(...)` in its `_connect`.
 */
function coverageShape(variant: { init?: string; enter?: string; retry?: string; dataExtra?: string; write?: string } = {}): string {
  const init = variant.init ?? 'self.con = None';
  const write = variant.write ?? 'execute_void';
  return `
import sqlite3
import threading

class SqliteDb:
    def __init__(self, filename, con=None):
        self.filename = filename
        self.nest = 0
        ${init}

    def _connect(self):
        if self.con is not None:
            return
        self.con = sqlite3.connect(self.filename, check_same_thread=False)

    def close(self):
        if self.con is not None:
            self.con.close()
            self.con = None

    def __enter__(self):
        if self.nest == 0:
            self._connect()
            self.con.__enter__()
        self.nest += 1
        return ${variant.enter ?? 'self'}

    def __exit__(self, exc_type, exc_value, traceback):
        self.nest -= 1
        if self.nest == 0:
            self.con.__exit__(exc_type, exc_value, traceback)
            self.close()

    def execute(self, sql, parameters=()):
        try:
            return self.con.execute(sql, parameters)
        except sqlite3.Error:
            return ${variant.retry ?? 'self.con.execute(sql, parameters)'}

    def execute_void(self, sql, parameters=()):
        self.execute(sql, parameters).close()


class CoverageData:
    def __init__(self, filename):
        self._filename = filename
        self._dbs = {}

    def _reset(self):
        for db in self._dbs.values():
            db.close()
        self._dbs = {}

    def _open_db(self):
        self._dbs[threading.get_ident()] = SqliteDb(self._filename)

    def _connect(self):
        if threading.get_ident() not in self._dbs:
            self._open_db()
        return self._dbs[threading.get_ident()]

    def add_lines(self, line_data):
        with self._connect() as con:
            for filename, numbits in line_data.items():
                con.${write}("insert or ignore into file (path) values (?)", (filename,))
                con.${write}("insert or replace into line_bits (path, numbits) values (?, ?)", (filename, numbits))
${variant.dataExtra ?? ''}`;
}

/** Line of the first write in coverageShape's add_lines. */
const COVERAGE_WRITE_LINE = 64;

/**
 * coverage 6.5's sqldata.py _read_db/_init_db pair, on coverageShape: `self._init_db(db)` inside
 * `with self._dbs[threading.get_ident()] as db:` when the table is missing; `more` adds methods after it.
 */
function initDbShape(variant: { name?: string; more?: string } = {}): string {
  const name = variant.name ?? '_init_db';
  return coverageShape({
    dataExtra: `
    def _read_db(self):
        with self._dbs[threading.get_ident()] as db:
            try:
                schema_version, = db.execute("select version from coverage_schema").fetchone()
            except Exception as exc:
                if "no such table: coverage_schema" in str(exc):
                    self.${name}(db)
                else:
                    raise

    def ${name}(self, db):
        db.execute("insert into coverage_schema (version) values (?)", (7,))
        db.execute("insert or ignore into meta (key, value) values (?, ?)", ("version", "7"))
${variant.more ?? ''}`,
  });
}

/** Line of the first write in initDbShape's helper. */
const INIT_DB_WRITE_LINE = 78;

/** A module-level private helper writing twice on its `conn` parameter, and its one caller opening `conn` as `opens`. */
function privateHelper(opens: string): string {
  return `
import sqlite3
import storage

def _record_refund(conn, order_id, amount):
    conn.execute("UPDATE orders SET status = 'refunded' WHERE id = ?", (order_id,))
    conn.execute("INSERT INTO ledger (order_id, amount) VALUES (?, ?)", (order_id, -amount))

def refund(path, order_id, amount):
    conn = ${opens}
    with conn:
        _record_refund(conn, order_id, amount)
    conn.close()
`;
}

testRule(writesRelyOnImplicitTransaction, {
  valid: [
    {
      name: 'coverage: with self._connect() as con, a per-thread SqliteDb whose execute_void runs on its own default-mode self.con',
      code: coverageShape(),
    },
    {
      name: 'coverage 6.5: the same through the wrapper\'s execute',
      code: coverageShape({ write: 'execute' }),
    },
    {
      name: 'coverage: a string isolation_level keeps the transactions',
      code: coverageShape({ dataExtra: '\n    def update(self):\n        with self._connect() as con:\n            con.con.isolation_level = "IMMEDIATE"\n' }),
    },
    {
      name: 'coverage 6.5 _init_db(self, db): private, and its only call passes _read_db\'s entered per-thread SqliteDb',
      code: initDbShape(),
    },
    {
      name: 'a private module helper whose only caller passes sqlite3.connect(path), default mode',
      code: privateHelper('sqlite3.connect(path)'),
    },
    {
      name: 'explicit BEGIN ... COMMIT',
      code: refund({ before: ['conn.execute("BEGIN")'], after: ['conn.execute("COMMIT")'] }),
    },
    {
      name: 'SAVEPOINT when a caller\u2019s transaction may be open',
      code: refund({ before: ['conn.execute("SAVEPOINT refund")'], after: ['conn.execute("RELEASE refund")'] }),
    },
    {
      name: 'isolation_level=None with an explicit BEGIN',
      code: refund({ params: 'path, order_id', before: AUTOCOMMIT_THEN_BEGIN, after: ['conn.execute("COMMIT")'] }),
    },
    {
      name: 'a BEGIN issued by a helper',
      code: 'def begin(conn):\n    conn.execute("BEGIN")\n\n' + refund({ before: ['begin(conn)'] }),
    },
    {
      name: 'one write',
      code: `
        def add_comment(conn, post_id, text):
            conn.execute("INSERT INTO comments (post_id, text) VALUES (?, ?)", (post_id, text))
      `,
    },
    {
      name: 'writes in exclusive branches',
      code: `
        def set_flag(conn, key, on):
            if on:
                conn.execute("INSERT INTO flags (key) VALUES (?)", (key,))
            else:
                conn.execute("DELETE FROM flags WHERE key = ?", (key,))
      `,
    },
    {
      name: 'unresolved SQL alone is too weak a reason',
      code: `
        def run(cursor, statements):
            cursor.execute(statements[0])
            cursor.execute(statements[1])
      `,
    },
    {
      name: 'writes inside with conn: are that rule\u2019s',
      code: `
        def transfer(conn, a, b):
            with conn:
                conn.execute("UPDATE accounts SET balance = balance - 1 WHERE id = ?", (a,))
                conn.execute("UPDATE accounts SET balance = balance + 1 WHERE id = ?", (b,))
      `,
    },
    {
      name: 'a function that commits is commit-without-begin\u2019s',
      code: refund({ after: ['conn.commit()'] }),
    },
    {
      name: 'a nested generator writing through the in-memory cursor (stdlib test_regression.py)',
      code: `
        def test_recursive_cursor_use(self):
            con = sqlite.connect(":memory:")
            cur = con.cursor()
            def foo():
                cur.execute("insert into a (bar) values (?)", (1,))
                yield 1
            cur.executemany("insert into b (baz) values (?)", ((i,) for i in foo()))
      `,
    },
    {
      name: 'an in-memory connection from a same-module helper (stdlib memory_database())',
      code: `
        def memory_database(*args, **kwargs):
            cx = sqlite.connect(":memory:", *args, **kwargs)
            return contextlib.closing(cx)

        def test_blob_closed(self):
            with memory_database() as cx:
                cx.execute("create table test(b blob)")
                cx.execute("insert into test values (zeroblob(100))")
                cx.execute("insert into test values (zeroblob(100))")
      `,
    },
    {
      name: 'diskcache __getitem__: the helper get() writes inside its own _transact() block',
      code: `
        import contextlib as cl

        class Cache:
            @property
            def _sql(self):
                return self._con.execute

            @cl.contextmanager
            def _transact(self, retry=False):
                sql = self._sql
                sql('BEGIN IMMEDIATE')
                try:
                    yield sql, None
                except BaseException:
                    sql('ROLLBACK')
                    raise
                else:
                    sql('COMMIT')

            def get(self, key, retry=False):
                with self._transact(retry) as (sql, _):
                    sql('UPDATE Settings SET value = value + 1 WHERE key = "hits"')
                    sql('UPDATE Cache SET access_count = access_count + 1 WHERE key = ?', (key,))

            def __getitem__(self, key):
                return self.get(key, retry=True)
      `,
    },
    {
      name: 'sqlite-utils extract: the writes sit in with self.db.atomic():',
      code: `
        class Table:
            def extract(self, table):
                with self.db.atomic():
                    self.db.execute("INSERT OR IGNORE INTO lookup (name) SELECT DISTINCT name FROM t")
                    self.db.execute("UPDATE t SET lookup_id = (SELECT id FROM lookup WHERE lookup.name = t.name)")
      `,
    },
    {
      name: 'huey PostgresStorage.dequeue: retries of one DELETE ... RETURNING, returning on the first that finds a row',
      code: `
        class PostgresStorage:
            def _dequeue(self):
                with self.db() as curs:
                    curs.execute('delete from task where id = (select id from task where queue = %s limit 1 for update skip locked) returning data', (self.name,))
                    row = curs.fetchone()
                if row is not None:
                    return bytes(row[0])

            def dequeue(self):
                data = self._dequeue()
                if data is not None or not self.blocking:
                    return data
                conn = self._listen_conn()
                while True:
                    if not list(conn.notifies(timeout=1, stop_after=1)):
                        return None
                    data = self._dequeue()
                    if data is not None:
                        return data  # Otherwise another worker won, keep waiting.
      `,
    },

    {
      name: 'buku load_firefox_database: writes through the module\u2019s own default-mode connection, which nothing switches to autocommit',
      code: bukuImport('sqlite3.connect(dbfile, check_same_thread=False)'),
    },
    {
      name: 'queuelib 1.6 FifoSQLiteQueue.pop: one DELETE in a loop whose body ends in return, so it runs at most once',
      code: `
        import sqlite3

        def pop(conn):
            for id_, item in conn.execute("SELECT id, item FROM queue ORDER BY id"):
                conn.execute("DELETE FROM queue WHERE id = ?", (id_,))
                return item
            return None
      `,
    },
  ],
  invalid: [
    {
      name: "a debit and a credit in two helpers' own `with self.db:` blocks: each block commits its step (IPython 8.5 HistoryManager.reset's shape)",
      code: `
        import sqlite3

        class Bank:
            def _debit(self, a):
                with self.db:
                    self.db.execute("UPDATE acct SET bal = bal - 1 WHERE id = ?", (a,))

            def _credit(self, b):
                with self.db:
                    self.db.execute("UPDATE acct SET bal = bal + 1 WHERE id = ?", (b,))

            def transfer(self, a, b):
                self._debit(a)
                self._credit(b)
      `,
      errors: [{ messageId: 'separateSteps', line: 13 }],
    },
    {
      name: 'coverage near miss: the wrapper\'s connection comes from its constructor',
      code: coverageShape({ init: 'self.con = con' }),
      errors: [{ messageId: 'impliedTransaction', line: COVERAGE_WRITE_LINE }],
    },
    {
      name: 'coverage near miss: __enter__ does not return self',
      code: coverageShape({ enter: 'self.con' }),
      errors: [{ messageId: 'impliedTransaction', line: COVERAGE_WRITE_LINE }],
    },
    {
      name: 'coverage near miss: the per-thread dict is also filled from a parameter',
      code: coverageShape({ dataExtra: '\n    def adopt(self, db):\n        self._dbs[threading.get_ident()] = db\n' }),
      errors: [{ messageId: 'impliedTransaction', line: COVERAGE_WRITE_LINE }],
    },
    {
      name: 'coverage near miss: the per-thread dict is also updated with a caller\'s dict',
      code: coverageShape({ dataExtra: '\n    def adopt(self, dbs):\n        self._dbs.update(dbs)\n' }),
      errors: [{ messageId: 'impliedTransaction', line: COVERAGE_WRITE_LINE }],
    },
    {
      name: 'coverage near miss: the helper rebinds its parameter before writing, so _read_db is reported too',
      code: coverageShape({
        dataExtra: `
    def _read_db(self):
        with self._dbs[threading.get_ident()] as db:
            self._init_db(db)

    def _init_db(self, db, replica=None):
        db = replica or db
        db.execute_void("insert into coverage_schema (version) values (?)", (7,))
        db.execute_void("insert or ignore into meta (key, value) values (?, ?)", ("version", "7"))
`,
      }),
      errors: [
        { messageId: 'impliedTransaction', line: 69 },
        { messageId: 'impliedTransaction', line: 73 },
      ],
    },
    {
      name: 'coverage near miss: the wrapper\'s execute retries through a callback on another attribute',
      code: coverageShape({ init: 'self.con = None; self.fallback = con', retry: 'retry_later(lambda: self.fallback.execute(sql, parameters))' }),
      errors: [{ messageId: 'impliedTransaction', line: COVERAGE_WRITE_LINE }],
    },
    {
      name: 'coverage near miss: the wrapper\'s execute retries on another attribute, set from outside',
      code: coverageShape({ init: 'self.con = None; self.fallback = con', retry: 'self.fallback.execute(sql, parameters)' }),
      errors: [{ messageId: 'impliedTransaction', line: COVERAGE_WRITE_LINE }],
    },
    {
      name: 'coverage near miss: the module sets isolation_level = None somewhere',
      code: coverageShape({ dataExtra: '\n    def update(self):\n        with self._connect() as con:\n            con.con.isolation_level = None\n' }),
      errors: [{ messageId: 'impliedTransaction', line: COVERAGE_WRITE_LINE }],
    },
    {
      name: 'a private helper whose one caller opens the connection in autocommit (isolation_level=None)',
      code: privateHelper('sqlite3.connect(path, isolation_level=None)'),
      errors: [{ messageId: 'impliedTransaction', line: 5 }],
    },
    {
      name: 'a private helper whose one caller gets its connection from another module',
      code: privateHelper('storage.open_autocommit(path)'),
      errors: [{ messageId: 'impliedTransaction', line: 5 }],
    },
    {
      name: 'a private helper no function of the module calls',
      code: privateHelper('sqlite3.connect(path)').replace('_record_refund(conn, order_id, amount)\n', 'pass\n'),
      errors: [{ messageId: 'impliedTransaction', line: 5 }],
    },
    {
      name: 'two private helpers passing their connection to each other: not followed past the first caller, and reported',
      code: `
        def _move_out(conn, item, depth):
            conn.execute("DELETE FROM shelf WHERE item = ?", (item,))
            conn.execute("INSERT INTO moving (item) VALUES (?)", (item,))
            if depth:
                _move_in(conn, item, depth - 1)

        def _move_in(conn, item, depth):
            conn.execute("DELETE FROM moving WHERE item = ?", (item,))
            conn.execute("INSERT INTO shelf (item) VALUES (?)", (item,))
            if depth:
                _move_out(conn, item, depth - 1)
      `,
      errors: [
        { messageId: 'impliedTransaction', line: 2 },
        { messageId: 'impliedTransaction', line: 8 },
      ],
    },
    {
      name: 'coverage near miss: init_db is public, so callers outside the module may pass any connection',
      code: initDbShape({ name: 'init_db' }),
      errors: [{ messageId: 'impliedTransaction', line: INIT_DB_WRITE_LINE }],
    },
    {
      name: 'coverage near miss: _init_db is also called with another method\'s parameter',
      code: initDbShape({ more: '\n    def reinit(self, replica):\n        self._init_db(replica)\n' }),
      errors: [
        { messageId: 'impliedTransaction', line: INIT_DB_WRITE_LINE },
        { messageId: 'impliedTransaction', line: INIT_DB_WRITE_LINE + 4 },
      ],
    },
    {
      name: 'coverage near miss: _init_db is also called through a stored reference',
      code: initDbShape({ more: '\n    def _repair(self, replica):\n        init = self._init_db\n        init(replica)\n' }),
      errors: [{ messageId: 'impliedTransaction', line: INIT_DB_WRITE_LINE }],
    },
    {
      name: 'coverage near miss: _init_db is also reached by name through getattr',
      code: initDbShape({ more: '\n    def _repair(self, replica):\n        getattr(self, "_init_db")(replica)\n' }),
      errors: [{ messageId: 'impliedTransaction', line: INIT_DB_WRITE_LINE }],
    },
    {
      name: 'writes through a local alias of execute (diskcache style), no transaction',
      code: `
        def save(conn, key, value):
            sql = conn.execute
            sql("INSERT INTO Cache (key) VALUES (?)", (key,))
            sql("UPDATE Settings SET value = value + 1 WHERE key = 'count'")
      `,
      errors: [{ messageId: 'impliedTransaction', line: 3 }],
    },
    {
      name: 'two updates, no transaction, the caller commits',
      code: `
        def refund_order(conn, order_id):
            total, customer = conn.execute("SELECT total, customer_id FROM orders WHERE id = ?", (order_id,)).fetchone()
            conn.execute("UPDATE customers SET credit = credit + ? WHERE id = ?", (total, customer))
            conn.execute("UPDATE orders SET status = 'refunded' WHERE id = ?", (order_id,))
      `,
      errors: [{ messageId: 'impliedTransaction', line: 3 }],
    },
    {
      name: 'f-string SQL in a loop',
      code: `
        def copy_rows(conn, table, rows):
            for row in rows:
                conn.execute(f"INSERT INTO {table} VALUES (?)", (row,))
      `,
      errors: [{ messageId: 'impliedTransaction', line: 3 }],
    },
    {
      name: 'executemany writes many rows',
      code: `
        def import_rows(conn, rows):
            conn.executemany("INSERT INTO customers (email) VALUES (?)", rows)
      `,
      errors: [{ messageId: 'impliedTransaction', line: 2 }],
    },
    {
      // hamster 3.0.2's Storage.__get_facts -> __check_index -> executemany: one executemany, committed by the helper
      // right after. Not one effective write whatever the mode: with isolation_level=None each row of an executemany is
      // its own transaction, and the commit after it groups nothing. Quiet only on proof of the default mode.
      name: 'near miss: one executemany through a helper that commits right after it, connection mode unknown',
      code: `
        class Storage:
            def executemany(self, statement, params):
                cur = self.con.cursor()
                cur.executemany(statement, params)
                self.con.commit()

            def check_index(self, rows):
                self.executemany("INSERT INTO fact_index (id) VALUES (?)", rows)

            def get_facts(self, rows, search):
                if search:
                    self.check_index(rows)
                return self.con.execute("SELECT id FROM facts").fetchall()
      `,
      // check_index sees the helper's commit (commit-without-begin's to speak for); get_facts sees one level down only.
      errors: [{ messageId: 'impliedTransaction', line: 12 }],
    },
    {
      name: 'the writes happen in helpers',
      code: `
        def debit(conn, a):
            conn.execute("UPDATE accounts SET balance = balance - 1 WHERE id = ?", (a,))

        def credit(conn, b):
            conn.execute("UPDATE accounts SET balance = balance + 1 WHERE id = ?", (b,))

        def transfer(conn, a, b):
            debit(conn, a)
            credit(conn, b)
      `,
      errors: [{ messageId: 'impliedTransaction', line: 8 }],
    },
    {
      name: 'the function itself switches to autocommit',
      code: `
        def transfer(conn, a, b):
            conn.isolation_level = None
            conn.execute("UPDATE accounts SET balance = balance - 1 WHERE id = ?", (a,))
            conn.execute("UPDATE accounts SET balance = balance + 1 WHERE id = ?", (b,))
      `,
      errors: [{ messageId: 'autocommitWrites', line: 3 }],
    },
    {
      name: 'one helper called twice with no return on its result: both writes must happen',
      code: `
        class Counter:
            def _bump(self):
                self.conn.execute("UPDATE counters SET n = n + 1 WHERE key = 'hits'")

            def bump_twice(self):
                first = self._bump()
                self._bump()
      `,
      errors: [{ messageId: 'impliedTransaction', line: 6 }],
    },
    {
      name: 'returns on the first write\u2019s result, but the second is another write, not a retry',
      code: `
        class Queue:
            def _claim(self):
                return self.conn.execute("DELETE FROM task WHERE id = (SELECT min(id) FROM task) RETURNING data").fetchone()

            def _log(self):
                return self.conn.execute("INSERT INTO log (event) VALUES ('claim')").lastrowid

            def take(self):
                data = self._claim()
                if data is not None:
                    return data
                data = self._log()
                if data is not None:
                    return data
      `,
      errors: [{ messageId: 'impliedTransaction', line: 9 }],
    },
      {
      name: 'buku\u2019s shape, but the connection is opened in autocommit (isolation_level=None)',
      code: bukuImport('sqlite3.connect(dbfile, isolation_level=None)'),
      errors: [{ messageId: 'impliedTransaction', line: 15 }],
    },
    {
      name: 'buku\u2019s shape, but the connection comes from a module-level name the reader cannot follow',
      code: bukuImport('SHARED_CONNECTION'),
      errors: [{ messageId: 'impliedTransaction', line: 15 }],
    },
  ],
});

/** gajim 1.7.3 CacheStorage.set_contact (common/storage/cache.py 317-327): INSERT the row, or UPDATE it when it is there. */
/** gajim 1.7.3 CacheStorage.store_roster (cache.py 258-270): the INSERT's SQL spelled out whole. */
function gajimStoreRoster(variant: { body?: string; caught?: string; insert?: string } = {}): string {
  return `
import sqlite3

class CacheStorage(SqliteStorage):
    def store_roster(self, account, roster):
        insert_sql = '${variant.insert ?? 'INSERT INTO roster(account, roster) VALUES(?, ?)'}'
        update_sql = 'UPDATE roster SET roster = ? WHERE account = ?'
        try:
${variant.body ?? '            self._con.execute(insert_sql, (account, roster))'}
        except ${variant.caught ?? 'sqlite3.IntegrityError'}:
            self._con.execute(update_sql, (roster, account))
        self._delayed_commit()
`;
}

/** The rule's messages (id and line) for the snippet. */
function reported(code: string): { messageId: string; line: number }[] {
  return lint(code, [writesRelyOnImplicitTransaction]).map((finding) => ({ messageId: finding.messageId, line: finding.range.startLine }));
}

describe('writes-rely-on-implicit-transaction: an INSERT ending a try body, and its UPDATE on IntegrityError', () => {
  it('gajim store_roster: quiet, the UPDATE runs only when the INSERT raised, and a statement that raised wrote nothing', () => {
    expect(reported(gajimStoreRoster())).toEqual([]);
  });
  it('quiet with `except IntegrityError as e`', () => {
    expect(reported(gajimStoreRoster({ caught: 'IntegrityError as e' }))).toEqual([]);
  });
  it('reported when a write follows the INSERT in the try body: it can raise after the INSERT wrote', () => {
    const body = "            self._con.execute(insert_sql, (account, roster))\n            self._con.execute('UPDATE meta SET n = n + 1')";
    expect(reported(gajimStoreRoster({ body }))).toEqual([{ messageId: 'impliedTransaction', line: 8 }]);
  });
  it('reported for a broader except: IntegrityError or OperationalError, Exception, bare', () => {
    for (const caught of ['(sqlite3.IntegrityError, sqlite3.OperationalError)', 'Exception']) {
      expect(reported(gajimStoreRoster({ caught }))).toEqual([{ messageId: 'impliedTransaction', line: 8 }]);
    }
    const bare = gajimStoreRoster().replace('except sqlite3.IntegrityError:', 'except:');
    expect(reported(bare)).toEqual([{ messageId: 'impliedTransaction', line: 8 }]);
  });
  it('reported when the INSERT is not spelled out as one row (second reading): interpolated, or a SELECT ending in VALUES', () => {
    for (const insert of ['INSERT INTO roster (account, {col}) VALUES (?, ?)', 'INSERT INTO roster (account) SELECT account FROM staging UNION ALL VALUES (?)']) {
      expect(reported(gajimStoreRoster({ insert }))).toEqual([{ messageId: 'impliedTransaction', line: 8 }]);
    }
  });
});
