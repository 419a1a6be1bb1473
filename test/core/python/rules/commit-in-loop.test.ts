import { commitInLoop } from '../../../../src/core/python/rules/commit-in-loop.ts';
import { dedent, testRule } from './rule-tester.ts';

const BUKU_TAGS = `
class BukuDb:
    def append_tag_at_index(self, index, tags_in, delay_commit=False):
        self.cur.execute("UPDATE bookmarks SET tags = ? WHERE id = ?", (tags_in, index))
        if not delay_commit:
            self.conn.commit()

    def add_rec(self, url, title_in=None, tags_in=None, desc=None, immutable=0, delay_commit=False, fetch=True):
        self.cur.execute("INSERT INTO bookmarks(URL, metadata, tags) VALUES (?, ?, ?)", (url, title_in, tags_in))
        if not delay_commit:
            self.conn.commit()
`;

/** buku's BukuDb with its importers: what `for item in <generator>: self.add_rec(*item)` iterates. */
function bukuImport(importer: string, method: string): string {
  const indented = dedent(method).split('\n').map((line) => (line ? `    ${line}` : line)).join('\n');
  return `${BUKU_TAGS}${indented}\n${dedent(importer)}`;
}

/** buku's importdb (2583-2667): the iterable assigned in branches, one importer each, after `items = []`. */
const BUKU_IMPORTDB = `
def importdb(self, filepath, newtag):
    items = []
    if filepath.endswith('.md'):
        items = import_md(filepath=filepath, newtag=newtag)
    elif filepath.endswith('json'):
        items = import_firefox_json(filepath, newtag)
    else:
        items = import_html(filepath, newtag)
    for item in items:
        self.add_rec(*item)
    self.conn.commit()
`;

/** A method of buku's BukuDb (dedented to class level) added below the class's helpers. */
function bukuMethod(method: string): string {
  return BUKU_TAGS + dedent(method).split('\n').map((line) => (line ? `    ${line}` : line)).join('\n');
}

testRule(commitInLoop, {
  valid: [
    {
      name: 'resumable: each iteration begins, writes the item and its mark, and commits (the items commit whole)',
      code: `
        def process_pending(conn):
            rows = conn.execute("SELECT id FROM jobs WHERE status = 'pending'").fetchall()
            for (job_id,) in rows:
                conn.execute("BEGIN")
                conn.execute("INSERT INTO results (job_id) VALUES (?)", (job_id,))
                conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (job_id,))
                conn.commit()
      `,
    },
    {
      name: 'one commit after the loop',
      code: `
        def import_rows(conn, rows):
            for row in rows:
                conn.execute("INSERT INTO customers (email) VALUES (?)", (row,))
            conn.commit()
      `,
    },
    {
      name: 'retry loop: the commit is followed by break',
      code: `
        def transfer(conn, a, b):
            while True:
                try:
                    conn.execute("UPDATE accounts SET balance = balance - 1 WHERE id = ?", (a,))
                    conn.execute("UPDATE accounts SET balance = balance + 1 WHERE id = ?", (b,))
                    conn.commit()
                    break
                except sqlite3.OperationalError:
                    time.sleep(0.1)
      `,
    },
    {
      name: 'commit in a loop that only reads',
      code: `
        def poll(conn):
            for _ in range(3):
                rows = conn.execute("SELECT id FROM jobs").fetchall()
                conn.commit()
      `,
    },
    {
      name: 'RELEASE of a savepoint per item is no commit of the outer transaction',
      code: `
        def import_rows(conn, rows):
            conn.execute("BEGIN")
            for row in rows:
                conn.execute("SAVEPOINT item")
                conn.execute("INSERT INTO customers (email) VALUES (?)", (row,))
                conn.execute("RELEASE item")
            conn.execute("COMMIT")
      `,
    },
    {
      name: 'a commit in a nested function belongs to that function',
      code: `
        def outer(conn, rows):
            for row in rows:
                def save():
                    conn.execute("INSERT INTO t VALUES (?)", (row,))
                    conn.commit()
                callbacks.append(save)
      `,
    },
    {
      name: 'an in-memory database: a crash leaves nothing behind (stdlib test_regression.py)',
      code: `
        def test_commit_cursor_reset(self):
            con = sqlite.connect(":memory:")
            for i, row in enumerate(con.execute("select c from t")):
                con.execute("insert into t2(c) values (?)", (i,))
                con.commit()
      `,
    },
    {
      name: 'diskcache _select_delete: batches of DELETEs, one transaction each through its _transact helper (a re-run repeats nothing)',
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

            def _select_delete(self, select, args, retry=False):
                delete = 'DELETE FROM Cache WHERE rowid IN (%s)'
                while True:
                    with self._transact(retry) as (sql, cleanup):
                        rows = sql(select, args).fetchall()
                        if not rows:
                            break
                        sql(delete % ','.join(str(row[0]) for row in rows))
      `,
    },
    {
      name: 'sqlite-utils _convert_multi: update() opens atomic() per row inside an outer atomic() block (a savepoint each)',
      code: `
        class Table:
            def update(self, pk, updates):
                with self.db.atomic():
                    self.db.execute("update t set x = ? where id = ?", (updates, pk))

            def _convert_multi(self, pk_to_values):
                with self.db.atomic():
                    for pk, updates in pk_to_values.items():
                        self.update(pk, updates)
      `,
    },
    {
      name: 'delete-only batches in a while loop, COMMIT as SQL: a crash keeps the rows already gone, a re-run deletes the rest (was reported before the delete-only exception)',
      code: `
        def archive(conn, table):
            while conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]:
                conn.execute(f"DELETE FROM {table} WHERE id IN (SELECT id FROM {table} LIMIT 100)")
                conn.execute("COMMIT")
      `,
    },
    {
      name: 'draining a queue by DELETE, commit per item: a re-run repeats nothing (was reported before the delete-only exception)',
      code: `
        def drain(conn, items):
            for item in items:
                conn.execute("DELETE FROM queue WHERE id = ?", (item,))
                conn.commit()
                if item == 0:
                    break
      `,
    },

    {
      name: 'buku set_tag: the helper is passed delay_commit=True positionally (third parameter), one commit after the loop',
      code: bukuMethod(`
        def set_tag(self, cmdstr, taglist):
            for id in taglist:
                self.append_tag_at_index(id, cmdstr, True)
            self.conn.commit()
      `),
    },
    {
      name: 'buku load_firefox_database: add_rec(url, title, tags, None, 0, True, False), delay_commit sixth',
      code: bukuMethod(`
        def load_firefox_database(self, rows):
            for url, title, tags in rows:
                self.add_rec(url, title, tags, None, 0, True, False)
      `),
    },
    {
      name: 'buku load_chrome_database: add_rec(*item), every item yielded by the recursive traverse_bm_folder as (url, name, tags, None, 0, True, False)',
      code: bukuMethod(`
        def traverse_bm_folder(self, sublist, folder_name):
            for item in sublist:
                if item['type'] == 'folder':
                    for i in self.traverse_bm_folder(item['children'], folder_name + ',' + item['name']):
                        yield i
                elif item['type'] == 'url':
                    yield (item['url'], item['name'], folder_name, None, 0, True, False)

        def load_chrome_database(self, roots):
            for entry in roots:
                for item in self.traverse_bm_folder(roots[entry]['children'], roots[entry]['name']):
                    self.add_rec(*item)
      `),
    },
    {
      name: 'buku importdb: items = [] then one importer per branch, each yielding delay_commit=True (one through a nested generator and yield from)',
      code: bukuImport(
        `
        def import_md(filepath, newtag):
            with open(filepath) as infp:
                for line in infp:
                    yield (line, None, newtag, None, 0, True, False)

        def import_firefox_json(json, unique_tag=None):
            def iterate_children(parent_folder, entry_list):
                for bm_entry in entry_list:
                    if bm_entry['typeCode'] == 1:
                        yield (bm_entry['uri'], bm_entry['title'], unique_tag, None, 0, True, False)
                    elif 'children' in bm_entry:
                        yield from iterate_children(bm_entry['title'], bm_entry['children'])
            if 'children' not in json:
                return []
            yield from iterate_children(None, json['children'])

        def import_html(soup, newtag):
            for tag in soup.findAll('a'):
                yield (
                    tag['href'], tag.string,
                    newtag, None, 0, True, False
                )
      `,
        BUKU_IMPORTDB,
      ),
    },
    {
      name: 'a tuple too short to reach delay_commit leaves it to its default, here True',
      code: `
        class Store:
            def put(self, key, value=None, delay_commit=True):
                self.conn.execute("INSERT INTO kv (key) VALUES (?)", (key,))
                if not delay_commit:
                    self.conn.commit()

            def pairs(self, keys):
                for key in keys:
                    yield (key, 1)

            def put_all(self, keys):
                for pair in self.pairs(keys):
                    self.put(*pair)
      `,
    },
    {
      name: 'a helper whose delay_commit defaults to True, not passed',
      code: `
        class Store:
            def put(self, key, delay_commit=True):
                self.conn.execute("INSERT INTO kv (key) VALUES (?)", (key,))
                if not delay_commit:
                    self.conn.commit()

            def put_all(self, keys):
                for key in keys:
                    self.put(key)
                self.conn.commit()
      `,
    },

    {
      name: 'buku compactdb: the loop runs over the rows of a LIMIT 1 query, so at most once',
      code: `
        class BukuDb:
            def compactdb(self, index, max_id):
                self.cur.execute('SELECT id, URL FROM bookmarks WHERE id = ? LIMIT 1', (max_id,))
                results = self.cur.fetchall()
                for row in results:
                    self.cur.execute('DELETE FROM bookmarks WHERE id = ?', (row[0],))
                    self.cur.execute('INSERT INTO bookmarks(id, URL) VALUES (?, ?)', (index, row[1]))
                    self.conn.commit()
      `,
    },
  ],
  invalid: [
    {
      name: "resumable on the module's own default-mode connection (buku 4.7 importdb, 2663-2667): which connection each write is on is not traced, so it still wants a look",
      code: `
        import sqlite3

        class BukuDb:
            def __init__(self, dbfile):
                self.conn = sqlite3.connect(dbfile)
                self.cur = self.conn.cursor()

            def importdb(self, items):
                for url, tags in items:
                    if self.cur.execute("SELECT id FROM bookmarks WHERE URL = ? LIMIT 1", (url,)).fetchone() is None:
                        self.cur.execute("INSERT INTO bookmarks (URL, tags) VALUES (?, ?)", (url, tags))
                    else:
                        self.cur.execute("UPDATE bookmarks SET tags = ? WHERE URL = ?", (tags, url))
                        self.conn.commit()
                self.conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 14 }],
    },
    {
      name: 'BEGIN, write, a continue before the mark and the commit: the item is left pending with the next one',
      code: `
        def process_pending(conn):
            rows = conn.execute("SELECT id FROM jobs WHERE status = 'pending'").fetchall()
            for (job_id,) in rows:
                conn.execute("BEGIN")
                conn.execute("INSERT INTO results (job_id) VALUES (?)", (job_id,))
                if job_id % 2:
                    continue
                conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (job_id,))
                conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 9 }],
    },
    {
      name: 'BEGIN and commit on conn, the result written on another connection',
      code: `
        def process_pending(conn, other):
            rows = conn.execute("SELECT id FROM jobs WHERE status = 'pending'").fetchall()
            for (job_id,) in rows:
                conn.execute("BEGIN")
                other.execute("INSERT INTO results (job_id) VALUES (?)", (job_id,))
                conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (job_id,))
                conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 7 }],
    },
    {
      name: 'the writes in a try whose handler swallows a failed one, then the commit',
      code: `
        def process_pending(conn):
            rows = conn.execute("SELECT id FROM jobs WHERE status = 'pending'").fetchall()
            for (job_id,) in rows:
                conn.execute("BEGIN")
                try:
                    conn.execute("INSERT INTO results (job_id) VALUES (?)", (job_id,))
                except sqlite3.IntegrityError:
                    pass
                conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (job_id,))
                conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 10 }],
    },
    {
      name: 'the buku shape, in a module that switches its connection to autocommit: the inserts before the commit are not held',
      code: `
        import sqlite3

        class BukuDb:
            def __init__(self, dbfile):
                self.conn = sqlite3.connect(dbfile)
                self.conn.isolation_level = None
                self.cur = self.conn.cursor()

            def importdb(self, items):
                for url, tags in items:
                    if self.cur.execute("SELECT id FROM bookmarks WHERE URL = ? LIMIT 1", (url,)).fetchone() is None:
                        self.cur.execute("INSERT INTO bookmarks (URL, tags) VALUES (?, ?)", (url, tags))
                    else:
                        self.cur.execute("UPDATE bookmarks SET tags = ? WHERE URL = ?", (tags, url))
                        self.conn.commit()
                self.conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 15 }],
    },
    {
      name: 'COMMIT as SQL in a while loop, table name from an f-string',
      code: `
        def archive(conn, table):
            while conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]:
                conn.execute(f"INSERT INTO {table}_archive SELECT * FROM {table} LIMIT 100")
                conn.execute(f"DELETE FROM {table} WHERE id IN (SELECT id FROM {table} LIMIT 100)")
                conn.execute("COMMIT")
      `,
      errors: [{ messageId: 'commitInLoop', line: 5 }],
    },
    {
      name: 'a conditional break does not make it a retry loop',
      code: `
        def drain(conn, items):
            for item in items:
                conn.execute("UPDATE queue SET done = 1 WHERE id = ?", (item,))
                conn.commit()
                if item == 0:
                    break
      `,
      errors: [{ messageId: 'commitInLoop', line: 4 }],
    },
    {
      name: 'atomic() per row with no outer block: each row its own transaction',
      code: `
        class Table:
            def update(self, pk, updates):
                with self.db.atomic():
                    self.db.execute("update t set x = ? where id = ?", (updates, pk))

            def convert_all(self, pk_to_values):
                for pk, updates in pk_to_values.items():
                    self.update(pk, updates)
      `,
      errors: [{ messageId: 'commitInLoop', line: 8 }],
    },
    {
      name: 'a DELETE per item together with an INSERT: not a delete-only batch',
      code: `
        def archive(conn, ids):
            for i in ids:
                conn.execute("INSERT INTO archive SELECT * FROM jobs WHERE id = ?", (i,))
                conn.execute("DELETE FROM jobs WHERE id = ?", (i,))
                conn.commit()
      `,
      errors: [{ messageId: 'commitInLoop', line: 5 }],
    },
    {
      name: 'commit per row of an import',
      code: `
        def import_rows(conn, rows):
            for row in rows:
                conn.execute("INSERT INTO customers (email) VALUES (?)", (row,))
                conn.commit()
      `,
      errors: [{ messageId: 'commitInLoop', line: 4 }],
    },
    {
      name: 'the commit happens in a helper called per item',
      code: `
        def save(conn, row):
            conn.execute("INSERT INTO customers (email) VALUES (?)", (row,))
            conn.commit()

        def import_rows(conn, rows):
            for row in rows:
                save(conn, row)
      `,
      errors: [{ messageId: 'commitInLoop', line: 7 }],
    },
    {
      name: 'resumable, but the BEGIN runs only on some iterations',
      code: `
        def process_pending(conn, strict):
            rows = conn.execute("SELECT id FROM jobs WHERE status = 'pending'").fetchall()
            for (job_id,) in rows:
                if strict:
                    conn.execute("BEGIN")
                conn.execute("INSERT INTO results (job_id) VALUES (?)", (job_id,))
                conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (job_id,))
                conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 8 }],
    },
    {
      name: 'resumable, but the mark is written after the commit: a crash between leaves the item done and unmarked',
      code: `
        def process_pending(conn):
            rows = conn.execute("SELECT id FROM jobs WHERE status = 'pending'").fetchall()
            for (job_id,) in rows:
                conn.execute("BEGIN")
                conn.execute("INSERT INTO results (job_id) VALUES (?)", (job_id,))
                conn.commit()
                conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (job_id,))
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 6 }],
    },
    {
      name: "resumable with the writes before the commit, on a caller's connection (its mode is unknown)",
      code: `
        def import_customers(conn, rows):
            for email in rows:
                if conn.execute("SELECT 1 FROM customers WHERE email = ?", (email,)).fetchone():
                    continue
                conn.execute("INSERT INTO customers (email) VALUES (?)", (email,))
                conn.execute("UPDATE stats SET imported = imported + 1")
                conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 7 }],
    },
    {
      name: 'resumable: each item is checked before it is inserted',
      code: `
        def import_customers(conn, rows):
            for email in rows:
                if conn.execute("SELECT 1 FROM customers WHERE email = ?", (email,)).fetchone():
                    continue
                conn.execute("INSERT INTO customers (email) VALUES (?)", (email,))
                conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 6 }],
    },
    {
      name: 'resumable: idempotent writes per item',
      code: `
        def import_customers(conn, rows):
            for email in rows:
                conn.execute("INSERT OR IGNORE INTO customers (email) VALUES (?)", (email,))
                conn.commit()
      `,
      errors: [{ messageId: 'commitPerItemResumable', line: 4 }],
    },
    {
      name: 'iterating all rows (no filter) is not resumable',
      code: `
        def process_all(conn):
            for (job_id,) in conn.execute("SELECT id FROM jobs").fetchall():
                conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (job_id,))
                conn.commit()
      `,
      errors: [{ messageId: 'commitInLoop', line: 4 }],
    },
      {
      name: 'the same helper passed delay_commit=False positionally: it commits per item',
      code: bukuMethod(`
        def set_tag(self, cmdstr, taglist):
            for id in taglist:
                self.append_tag_at_index(id, cmdstr, False)
      `),
      errors: [{ messageId: 'commitInLoop', line: 13 }],
    },
    {
      name: 'delay_commit not passed: its default, False, commits per item',
      code: bukuMethod(`
        def set_tag(self, cmdstr, taglist):
            for id in taglist:
                self.append_tag_at_index(id, cmdstr)
      `),
      errors: [{ messageId: 'commitInLoop', line: 13 }],
    },
    {
      name: 'add_rec(*item) over items passed in as a parameter: what the tuples hold is not known, so it is taken to commit',
      code: bukuMethod(`
        def load_chrome_database(self, items):
            for item in items:
                self.add_rec(*item)
      `),
      errors: [{ messageId: 'commitInLoop', line: 13 }],
    },
    {
      name: 'near miss: the generator yields delay_commit=False in one branch',
      code: bukuMethod(`
        def traverse(self, sublist):
            for item in sublist:
                if item['type'] == 'separator':
                    yield (item['url'], item['name'], None, None, 0, False, False)
                else:
                    yield (item['url'], item['name'], None, None, 0, True, False)

        def load(self, sublist):
            for item in self.traverse(sublist):
                self.add_rec(*item)
      `),
      errors: [{ messageId: 'commitInLoop', line: 20 }],
    },
    {
      name: 'near miss: one yield is not a tuple literal (a record built elsewhere)',
      code: bukuMethod(`
        def traverse(self, sublist):
            for item in sublist:
                if item['type'] == 'prepared':
                    yield item['record']
                else:
                    yield (item['url'], item['name'], None, None, 0, True, False)

        def load(self, sublist):
            for item in self.traverse(sublist):
                self.add_rec(*item)
      `),
      errors: [{ messageId: 'commitInLoop', line: 20 }],
    },
    {
      name: 'near miss: the generator yields from an iterable it was given, not from a generator of the project',
      code: bukuMethod(`
        def traverse(self, sublist, extra):
            for item in sublist:
                yield (item['url'], item['name'], None, None, 0, True, False)
            yield from extra

        def load(self, sublist, extra):
            for item in self.traverse(sublist, extra):
                self.add_rec(*item)
      `),
      errors: [{ messageId: 'commitInLoop', line: 18 }],
    },
    {
      name: 'near miss: importdb with one branch assigning a function that returns a list (not a generator: what it returns is not read)',
      code: bukuImport(
        `
        def import_md(filepath, newtag):
            for line in open(filepath):
                yield (line, None, newtag, None, 0, True, False)

        def import_firefox_json(json, unique_tag=None):
            return [(entry['uri'], entry['title'], unique_tag, None, 0, False, False) for entry in json['children']]

        def import_html(soup, newtag):
            for tag in soup.findAll('a'):
                yield (tag['href'], tag.string, newtag, None, 0, True, False)
      `,
        BUKU_IMPORTDB,
      ),
      errors: [{ messageId: 'commitInLoop', line: 20 }],
    },
    {
      name: 'near miss: the list the loop iterates is also appended to, so not only the generator\'s items',
      code: bukuImport(
        `
        def import_md(filepath, newtag):
            for line in open(filepath):
                yield (line, None, newtag, None, 0, True, False)
      `,
        `
        def importdb(self, filepath, newtag, extra):
            items = []
            if filepath.endswith('.md'):
                items = import_md(filepath=filepath, newtag=newtag)
            else:
                items.append(extra)
            for item in items:
                self.add_rec(*item)
      `,
      ),
      errors: [{ messageId: 'commitInLoop', line: 18 }],
    },
    {
      name: 'near miss: the loop variable is rebound in the body before the call',
      code: bukuMethod(`
        def traverse(self, sublist):
            for item in sublist:
                yield (item['url'], item['name'], None, None, 0, True, False)

        def load(self, sublist, fix):
            for item in self.traverse(sublist):
                item = fix(item)
                self.add_rec(*item)
      `),
      errors: [{ messageId: 'commitInLoop', line: 18 }],
    },
    {
      name: 'near miss: a tuple too short to reach delay_commit, whose default is False',
      code: bukuMethod(`
        def traverse(self, sublist):
            for item in sublist:
                yield (item['url'], item['name'])

        def load(self, sublist):
            for item in self.traverse(sublist):
                self.add_rec(*item)
      `),
      errors: [{ messageId: 'commitInLoop', line: 17 }],
    },
      {
      name: 'the same loop over LIMIT 10: up to ten iterations, each committed',
      code: `
        class BukuDb:
            def compactdb(self, index, max_id):
                self.cur.execute('SELECT id, URL FROM bookmarks WHERE id > ? LIMIT 10', (max_id,))
                results = self.cur.fetchall()
                for row in results:
                    self.cur.execute('DELETE FROM bookmarks WHERE id = ?', (row[0],))
                    self.cur.execute('INSERT INTO bookmarks(id, URL) VALUES (?, ?)', (index, row[1]))
                    self.conn.commit()
      `,
      errors: [{ messageId: 'commitInLoop', line: 8 }],
    },
    {
      name: 'a LIMIT 1 loop inside an outer loop still commits once per outer item',
      code: `
        def move_all(conn, ids):
            for item in ids:
                for row in conn.execute('SELECT id FROM staging WHERE id = ? LIMIT 1', (item,)).fetchall():
                    conn.execute('UPDATE stats SET moved = moved + 1')
                    conn.execute('INSERT INTO archive(id) VALUES (?)', (row[0],))
                    conn.commit()
      `,
      errors: [{ messageId: 'commitInLoop', line: 6 }],
    },
  ],
});
