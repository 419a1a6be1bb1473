import { commitWithoutBegin } from '../../../../src/core/python/rules/commit-without-begin.ts';
import { testRule } from './rule-tester.ts';
import { AUTOCOMMIT_THEN_BEGIN, refund } from './snippets.ts';

/** buku's shape: BukuDb opens its one writable connection itself, in sqlite3's default mode (buku 4.7, lines 410, 493-513). */
function bukuDb(opens = 'sqlite3.connect(dbfile, check_same_thread=False)', extra = ''): string {
  return `
import sqlite3

class BukuDb:
    def __init__(self, dbfile=None):
        self.conn, self.cur = BukuDb.initdb(dbfile)

    @staticmethod
    def initdb(dbfile=None):
        conn = ${opens}
        cur = conn.cursor()
        return (conn, cur)

    def fixtags(self, rows):
        for row in rows:
            self.cur.execute("UPDATE bookmarks SET tags = ? WHERE id = ?", (row[1], row[0]))
        self.cur.execute("DELETE FROM bookmarks WHERE tags = ''")
        self.conn.commit()
${extra}`;
}

/** A module-level private helper that writes twice and commits on its `conn` parameter; its one caller opens `conn` as `opens`. */
function privatePlaceOrder(opens: string): string {
  return `
import sqlite3
import storage

def _place_order(conn, order):
    conn.execute("INSERT INTO orders (id) VALUES (?)", (order,))
    conn.execute("UPDATE stock SET qty = qty - 1 WHERE item = ?", (order,))
    conn.commit()

def place_order(path, order):
    conn = ${opens}
    _place_order(conn, order)
    conn.close()
`;
}

/** coverage's shape with a commit: CoverageData keeps its SqliteDb per thread; the wrapper's `commit` runs on `commits_on`. */
function wrapperCommit(commitsOn = 'self.con'): string {
  return `
import sqlite3
import threading

class SqliteDb:
    def __init__(self, filename, other=None):
        self.filename = filename
        self.other = other
        self.con = None

    def __enter__(self):
        if self.con is None:
            self.con = sqlite3.connect(self.filename, check_same_thread=False)
        return self

    def __exit__(self, *exc):
        pass

    def execute(self, sql, parameters=()):
        return self.con.execute(sql, parameters)

    def commit(self):
        ${commitsOn}.commit()


class CoverageData:
    def __init__(self, filename):
        self._filename = filename
        self._dbs = {}

    def _connect(self):
        if threading.get_ident() not in self._dbs:
            self._dbs[threading.get_ident()] = SqliteDb(self._filename)
        return self._dbs[threading.get_ident()]

    def erase_contexts(self, names):
        with self._connect() as con:
            for name in names:
                con.execute("DELETE FROM context WHERE context = ?", (name,))
                con.execute("DELETE FROM line_bits WHERE context = ?", (name,))
            con.commit()
`;
}


/**
 * offlineimap3's LocalStatusSQLiteFolder (folder/LocalStatusSQLite.py 161-187, 332-368): one write per call
 * through a helper whose four execute arms exclude each other and whose loop only retries on a locked database.
 */
function sqlWriteHelper(handler = `if e.args[0] == 'database is locked':
                    success = False
                else:
                    raise`, call = `self._sql_write('INSERT INTO status (id,flags) VALUES (?,?)', (uid, flags))`): string {
  return `
import sqlite3 as sqlite

class LocalStatusSQLiteFolder:
    def _sql_write(self, sql, args=None, executemany=False):
        success = False
        while not success:
            try:
                with self._databaseFileLock.getLock():
                    if args is None:
                        if executemany:
                            self.connection.executemany(sql)
                        else:
                            self.connection.execute(sql)
                    else:
                        if executemany:
                            self.connection.executemany(sql, args)
                        else:
                            self.connection.execute(sql, args)
                    success = True
                    if not self._in_transactions:
                        self.connection.commit()
            except sqlite.OperationalError as e:
                ${handler}

    def savemessage(self, uid, flags):
        if self.uidexists(uid):
            self.savemessageflags(uid, flags)
            return uid
        ${call}
        return uid

    def savemessageflags(self, uid, flags):
        self._sql_write('UPDATE status SET flags=? WHERE id=?', (flags, uid))
`;
}

/** A helper that stores or deletes one key: its two writes are the arms of one if/else. */
function storeOrDelete(second = 'else:'): string {
  return `
def _store(conn, key, value):
    if value is None:
        conn.execute("DELETE FROM kv WHERE key = ?", (key,))
    ${second}
        conn.execute("INSERT OR REPLACE INTO kv VALUES (?, ?)", (key, value))

def put(conn, key, value):
    _store(conn, key, value)
    conn.commit()
`;
}

/** A helper whose executemany arm runs only when asked for; `call` is how put_one calls it. */
function manyOrOne(call: string, rebinds = ''): string {
  return `
def _save(conn, rows, many=False):${rebinds}
    if many:
        conn.executemany("INSERT INTO t VALUES (?)", rows)
    else:
        conn.execute("INSERT INTO t VALUES (?)", rows)

def put_one(conn, row, many):
    ${call}
    conn.commit()
`;
}

/** One INSERT in a loop: `body` is the loop, indented as the function body. */
function loggedInsert(body: string): string {
  return `
import sqlite3
import time

def record(conn, key):
${body}
    conn.commit()
`;
}

/**
 * The reviewer's near misses of the helper quieting: `helper` is the helper (a method of Store) and
 * `body` the body of save, which calls it and then commits.
 */
function storeMethod(helper: string, body: string): string {
  return `
import sqlite3
import time

class Store:
${helper}

    def save(self, item, flag):
${body}
        self.conn.commit()
`;
}

testRule(commitWithoutBegin, {
  valid: [
    {
      name: 'offlineimap3 savemessage: one INSERT through a helper whose executemany arms this call leaves off, retried only when it raised',
      code: sqlWriteHelper(),
    },
    {
      name: 'a helper’s DELETE and INSERT in the if and else arms of one test: one write per call',
      code: storeOrDelete(),
    },
    {
      name: 'a helper’s executemany arm under a flag the call leaves to its False default',
      code: manyOrOne('_save(conn, (row,))'),
    },
    {
      name: 'the same, the flag passed False by keyword',
      code: manyOrOne('_save(conn, (row,), many=False)'),
    },
    {
      name: 'one INSERT retried by `while True:` only after it raised a locked database, then break',
      code: loggedInsert(`    while True:
        try:
            conn.execute("INSERT INTO log (key) VALUES (?)", (key,))
            break
        except sqlite3.OperationalError:
            time.sleep(0.1)`),
    },
    {
      name: 'one INSERT retried by `while not done:`, done set after it and a commit in the try',
      code: loggedInsert(`    done = False
    while not done:
        try:
            conn.execute("INSERT INTO log (key) VALUES (?)", (key,))
            done = True
            conn.commit()
        except sqlite3.OperationalError as e:
            if e.args[0] != 'database is locked':
                raise`),
    },
    {
      name: 'coverage shape: the commit of a per-thread wrapper whose commit and execute run on its own default-mode self.con',
      code: wrapperCommit(),
    },
    {
      name: 'one DELETE run per chunk of keys (requests-cache 0.9.8 SQLiteDict.bulk_delete): a re-run deletes the rest of the same rows',
      code: `
        def bulk_delete(con, table_name, keys):
            for chunk in chunkify(keys, max_size=999):
                marks = ", ".join("?" * len(chunk))
                con.execute(f"DELETE FROM {table_name} WHERE key IN ({marks})", chunk)
            con.commit()
      `,
    },
    {
      name: 'only CREATE ... IF NOT EXISTS statements (nbformat 5.5 SQLiteSignatureStore.init_db): a re-run makes what a crash left out',
      code: `
        def init_db(db):
            db.execute("CREATE TABLE IF NOT EXISTS nbsignatures (id integer PRIMARY KEY, algorithm text, signature text)")
            db.execute("CREATE INDEX IF NOT EXISTS algosig ON nbsignatures(algorithm, signature)")
            db.commit()
      `,
    },
    {
      name: 'BEGIN ... commit()',
      code: refund({ before: ['conn.execute("BEGIN")'], after: ['conn.commit()'] }),
    },
    {
      name: 'BEGIN only when no transaction is open (composes with a caller)',
      code: refund({ before: ['own = not conn.in_transaction', 'if own:', '    conn.execute("BEGIN")'], after: ['if own:', '    conn.commit()'] }),
    },
    {
      name: 'isolation_level=None and BEGIN IMMEDIATE',
      code: refund({ params: 'path, order_id', before: AUTOCOMMIT_THEN_BEGIN, after: ['conn.commit()'] }),
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
    {
      name: 'chained assignment to an in-memory connection (stdlib test_backup.py)',
      code: `
        class BackupTests:
            def setUp(self):
                cx = self.cx = sqlite.connect(":memory:")
                cx.execute('CREATE TABLE foo (key INTEGER)')
                cx.executemany('INSERT INTO foo (key) VALUES (?)', [(3,), (4,)])
                cx.commit()
      `,
    },
    {
      name: 'an in-memory connection set up in the class’s setUp, through closing() and a cursor',
      code: `
        class T:
            def setUp(self):
                self.cx = closing(sqlite3.connect(":memory:"))
                self.cu = self.cx.cursor()

            def test_insert(self):
                self.cu.execute("insert into test(name) values ('a')")
                self.cu.execute("insert into test(name) values ('b')")
                self.cx.commit()
      `,
    },

    {
      name: 'buku fixtags: the connection is the module\u2019s own, opened in the default mode, and nothing switches it (the autocommit harm cannot happen)',
      code: bukuDb(),
    },
    {
      name: 'buku update_rec: the commit is in a helper of the class, on the same connection',
      code: bukuDb(undefined, `
    def append_tag_at_index(self, index, tags_in, delay_commit=False):
        self.cur.execute("UPDATE bookmarks SET tags = tags || ? WHERE id = ?", (tags_in, index))
        if not delay_commit:
            self.conn.commit()

    def update_rec(self, index, tags_in, url):
        self.cur.execute("UPDATE bookmarks SET URL = ? WHERE id = ?", (url, index))
        self.append_tag_at_index(index, tags_in)
`),
    },
    {
      name: 'buku exportdb: a second database opened through the same class (outdb = BukuDb(dbfile=path))',
      code: bukuDb(undefined, `
    def exportdb(self, filepath, resultset):
        outdb = BukuDb(dbfile=filepath)
        for row in resultset:
            outdb.cur.execute("INSERT INTO bookmarks(URL) VALUES (?)", (row[1],))
        outdb.conn.commit()
`),
    },
    {
      name: 'a local connection opened in the default mode in the function itself',
      code: `
        import sqlite3

        def place_order(path, order):
            conn = sqlite3.connect(path)
            conn.execute("INSERT INTO orders (id) VALUES (?)", (order,))
            conn.execute("UPDATE stock SET qty = qty - 1 WHERE item = ?", (order,))
            conn.commit()
      `,
    },
    {
      name: 'buku\u2019s shape, and another method sets isolation_level = "IMMEDIATE" (coverage 6.5 CoverageData.update): still a transactional mode',
      code: bukuDb(undefined, `
    def update(self):
        self.conn.isolation_level = "IMMEDIATE"
`),
    },
    {
      name: 'buku\u2019s shape, opened with isolation_level="EXCLUSIVE": implicit transactions, only of another kind',
      code: bukuDb('sqlite3.connect(dbfile, isolation_level="EXCLUSIVE")'),
    },
    {
      name: 'a private helper committing on its parameter, whose only caller passes a default-mode sqlite3.connect(path)',
      code: privatePlaceOrder('sqlite3.connect(path)'),
    },
  ],
  invalid: [
    {
      name: 'offlineimap3 shape near miss: the helper is called in a loop of the caller',
      code: sqlWriteHelper(undefined, `for flag in flags:
            self._sql_write('INSERT INTO status (id,flags) VALUES (?,?)', (uid, flag))`),
      errors: [{ messageId: 'commitWithoutBegin', line: 33 }],
    },
    {
      name: 'offlineimap3 shape near miss: the call asks for executemany (one call, many statements)',
      code: sqlWriteHelper(undefined, `self._sql_write('INSERT INTO status (id,flags) VALUES (?,?)', [(uid, flags)], True)`),
      errors: [{ messageId: 'commitWithoutBegin', line: 32 }],
    },
    {
      name: 'a helper’s two writes under two ifs that can both run',
      code: storeOrDelete('if value is not None:'),
      errors: [{ messageId: 'commitWithoutBegin', line: 9 }],
    },
    {
      name: 'a helper’s executemany arm under a flag the call passes on from its own parameter',
      code: manyOrOne('_save(conn, (row,), many)'),
      errors: [{ messageId: 'commitWithoutBegin', line: 9 }],
    },
    {
      name: 'a helper’s executemany arm under a flag the helper may set itself',
      code: manyOrOne('_save(conn, (row,))', '\n    many = many or len(rows) > 1'),
      errors: [{ messageId: 'commitWithoutBegin', line: 10 }],
    },
    {
      name: 'a loop over items whose except continues: one INSERT per item',
      code: loggedInsert(`    for item in key:
        try:
            conn.execute("INSERT INTO log (key) VALUES (?)", (item,))
        except sqlite3.OperationalError:
            continue`),
      errors: [{ messageId: 'commitWithoutBegin', line: 10 }],
    },
    {
      name: 'a retry loop whose except writes before the retry',
      code: loggedInsert(`    while True:
        try:
            conn.execute("INSERT INTO log (key) VALUES (?)", (key,))
            break
        except sqlite3.OperationalError:
            conn.execute("INSERT INTO errors (key) VALUES (?)", (key,))`),
      errors: [{ messageId: 'commitWithoutBegin', line: 11 }],
    },
    {
      name: 'a retry loop whose except falls through to another write in the loop',
      code: loggedInsert(`    while True:
        try:
            conn.execute("INSERT INTO log (key) VALUES (?)", (key,))
            break
        except sqlite3.OperationalError:
            pass
        conn.execute("INSERT INTO errors (key) VALUES (?)", (key,))`),
      errors: [{ messageId: 'commitWithoutBegin', line: 12 }],
    },
    {
      name: 'a retry loop whose read after the write may fail and run the write again',
      code: loggedInsert(`    while True:
        try:
            conn.execute("INSERT INTO log (key) VALUES (?)", (key,))
            total = conn.execute("SELECT count(*) FROM log").fetchone()
            break
        except sqlite3.OperationalError:
            time.sleep(0.1)`),
      errors: [{ messageId: 'commitWithoutBegin', line: 12 }],
    },
    {
      name: 'a retry loop catching any Exception: the lock’s exit after the write may raise and run it again',
      code: loggedInsert(`    while True:
        try:
            with lock:
                conn.execute("INSERT INTO log (key) VALUES (?)", (key,))
            break
        except Exception:
            time.sleep(0.1)`),
      errors: [{ messageId: 'commitWithoutBegin', line: 12 }],
    },
    {
      name: 'a while-not-flag loop whose flag is set only on another arm: the write runs again after it succeeded',
      code: loggedInsert(`    done = False
    while not done:
        try:
            if key:
                conn.execute("INSERT INTO log (key) VALUES (?)", (key,))
            else:
                done = True
        except sqlite3.OperationalError:
            time.sleep(0.1)`),
      errors: [{ messageId: 'commitWithoutBegin', line: 14 }],
    },
    {
      name: 'near miss: a helper’s if arm calls the helper again with the flag off, so one call runs the INSERT and the else DELETE',
      code: storeMethod(`    def _move(self, item_id, to_archive):
        if to_archive:
            self.conn.execute("INSERT INTO archive SELECT * FROM items WHERE id = ?", (item_id,))
            self._move(item_id, False)
        else:
            self.conn.execute("DELETE FROM items WHERE id = ?", (item_id,))`, `        self._move(item, flag)`),
      errors: [{ messageId: 'commitWithoutBegin', line: 14 }],
    },
    {
      name: 'near miss: the same helper with the flag left to its True default: the else arm runs through the inner call',
      code: storeMethod(`    def _move(self, item_id, to_archive=True):
        if to_archive:
            self.conn.execute("INSERT INTO archive SELECT * FROM items WHERE id = ?", (item_id,))
            self._move(item_id, False)
        else:
            self.conn.execute("DELETE FROM items WHERE id = ?", (item_id,))`, `        self._move(item)`),
      errors: [{ messageId: 'commitWithoutBegin', line: 14 }],
    },
    {
      name: 'near miss: a helper’s == guards on one parameter, the first arm calling the helper again with the second value',
      code: storeMethod(`    def _step(self, item_id, phase):
        if phase == "copy":
            self.conn.execute("INSERT INTO archive SELECT * FROM items WHERE id = ?", (item_id,))
            self._step(item_id, "drop")
        if phase == "drop":
            self.conn.execute("DELETE FROM items WHERE id = ?", (item_id,))`, `        self._step(item, flag)`),
      errors: [{ messageId: 'commitWithoutBegin', line: 14 }],
    },
    {
      name: 'near miss: a helper’s write in an elif condition runs before its else arm’s write',
      code: storeMethod(`    def _open(self, user, token, admin):
        if admin:
            return
        elif self.conn.execute("DELETE FROM sessions WHERE user = ?", (user,)).rowcount > 100:
            self.log.warning("flood")
        else:
            self.conn.execute("INSERT INTO sessions(user, token) VALUES (?, ?)", (user, token))`, `        self._open(item, flag, self.is_admin(item))`),
      errors: [{ messageId: 'commitWithoutBegin', line: 15 }],
    },
    {
      name: 'near miss: a helper that retries one INSERT, called in the caller’s while condition: an INSERT per pass',
      code: storeMethod(`    def _append_next(self, it):
        item = next(it, None)
        if item is None:
            return False
        while True:
            try:
                self.conn.execute("INSERT INTO log(msg) VALUES (?)", (item,))
                return True
            except sqlite3.OperationalError:
                time.sleep(0.1)`, `        it = iter(item)
        while self._append_next(it):
            pass`),
      errors: [{ messageId: 'commitWithoutBegin', line: 20 }],
    },
    {
      name: 'near miss: a helper’s arm under a list default it fills in place is not dead for a call that leaves it to the default',
      code: storeMethod(`    def _tag(self, order, tags=[]):
        tags.extend(order.default_tags)
        if tags:
            self.conn.execute("INSERT INTO order_tags(order_id, tags) VALUES (?, ?)", (order.id, ",".join(tags)))`, `        self.conn.execute("INSERT INTO orders(id) VALUES (?)", (item.id,))
        self._tag(item)`),
      errors: [{ messageId: 'commitWithoutBegin', line: 13 }],
    },
    {
      name: 'near miss: the same, the call passing an empty list the helper fills in place',
      code: storeMethod(`    def _tag(self, order, tags):
        tags.extend(order.default_tags)
        if tags:
            self.conn.execute("INSERT INTO order_tags(order_id, tags) VALUES (?, ?)", (order.id, ",".join(tags)))`, `        self.conn.execute("INSERT INTO orders(id) VALUES (?)", (item.id,))
        self._tag(item, [])`),
      errors: [{ messageId: 'commitWithoutBegin', line: 13 }],
    },
    {
      name: 'a private helper committing on its parameter, whose only caller gets the connection from another module',
      code: privatePlaceOrder('storage.connect(path)'),
      errors: [
        { messageId: 'commitWithoutBegin', line: 7 },
        { messageId: 'commitWithoutBegin', line: 11 },
      ],
    },
    {
      name: 'coverage shape near miss: the wrapper commits on a connection its constructor was given',
      code: wrapperCommit('self.other'),
      errors: [{ messageId: 'commitWithoutBegin', line: 40 }],
    },
    {
      name: 'two DELETE statements on two tables in a loop: a crash can leave one table done and not the other',
      code: `
        def purge(con, ids):
            for chunk in chunks(ids):
                con.execute("DELETE FROM orders WHERE id IN (?)", chunk)
                con.execute("DELETE FROM order_items WHERE order_id IN (?)", chunk)
            con.commit()
      `,
      errors: [{ messageId: 'commitWithoutBegin', line: 5 }],
    },
    {
      name: 'one UPDATE repeated: each run changes rows a re-run cannot tell from the others',
      code: `
        def bump(con, ids):
            for chunk in chunks(ids):
                con.execute("UPDATE counters SET n = n + 1 WHERE id IN (?)", chunk)
            con.commit()
      `,
      errors: [{ messageId: 'commitWithoutBegin', line: 4 }],
    },
    {
      name: 'CREATE TABLE IF NOT EXISTS then an INSERT: the row write is not re-run safe',
      code: `
        def init_db(db):
            db.execute("CREATE TABLE IF NOT EXISTS settings (key text PRIMARY KEY, value text)")
            db.execute("INSERT INTO settings VALUES ('version', '1')")
            db.commit()
      `,
      errors: [{ messageId: 'commitWithoutBegin', line: 4 }],
    },
    {
      name: 'CREATE TABLE without IF NOT EXISTS beside one with it',
      code: `
        def init_db(db):
            db.execute("CREATE TABLE IF NOT EXISTS nbsignatures (id integer PRIMARY KEY)")
            db.execute("CREATE TABLE audit (id integer PRIMARY KEY)")
            db.commit()
      `,
      errors: [{ messageId: 'commitWithoutBegin', line: 4 }],
    },
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
      {
      name: 'buku\u2019s shape, but the class receives its connection from a caller (its mode is the caller\u2019s)',
      code: `
        class BukuDb:
            def __init__(self, conn):
                self.conn = conn
                self.cur = conn.cursor()

            def fixtags(self, rows):
                for row in rows:
                    self.cur.execute("UPDATE bookmarks SET tags = ? WHERE id = ?", (row[1], row[0]))
                self.conn.commit()
      `,
      errors: [{ messageId: 'commitWithoutBegin', line: 9 }],
    },
    {
      name: 'buku\u2019s shape, but another method of the module sets isolation_level = None',
      code: bukuDb(undefined, `
    def bulk_mode(self):
        self.conn.isolation_level = None
`),
      errors: [{ messageId: 'commitWithoutBegin', line: 17 }],
    },
    {
      name: 'buku\u2019s shape, but the connection is opened with isolation_level=None',
      code: bukuDb('sqlite3.connect(dbfile, isolation_level=None)'),
      errors: [{ messageId: 'commitWithoutBegin', line: 17 }],
    },
    {
      name: 'sqlitedict\u2019s shape: the module keeps an autocommit switch (self.autocommit = autocommit), so the harm is latent',
      code: bukuDb(undefined, `
    def configure(self, autocommit=False):
        self.autocommit = autocommit
`),
      errors: [{ messageId: 'commitWithoutBegin', line: 17 }],
    },
    {
      name: 'buku\u2019s shape, but code outside the class may put another connection in self.conn',
      code: bukuDb(undefined, `

def reuse(db, other):
    db.conn = other
`),
      errors: [{ messageId: 'commitWithoutBegin', line: 17 }],
    },
      {
      name: 'buku\u2019s shape, but isolation_level=None passed fourth positionally to connect',
      code: bukuDb('sqlite3.connect(dbfile, 5.0, 0, None)'),
      errors: [{ messageId: 'commitWithoutBegin', line: 17 }],
    },
    {
      name: 'buku\u2019s shape, but connect takes **options, which may set isolation_level',
      code: bukuDb('sqlite3.connect(dbfile, **options)'),
      errors: [{ messageId: 'commitWithoutBegin', line: 17 }],
    },
    {
      name: 'buku\u2019s shape, but isolation_level is set from a name (it may be None)',
      code: bukuDb(undefined, `
    def set_mode(self, mode):
        self.conn.isolation_level = mode
`),
      errors: [{ messageId: 'commitWithoutBegin', line: 17 }],
    },
    {
      name: 'buku\u2019s shape, but connect is given autocommit=True (Python 3.12)',
      code: bukuDb('sqlite3.connect(dbfile, autocommit=True)'),
      errors: [{ messageId: 'commitWithoutBegin', line: 17 }],
    },
  ],
});
