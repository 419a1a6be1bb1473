// Where the default-mode rules' claims are wrong, read with the whole repository (when-evident):
//  - with-conn-opens-no-transaction: every write of the block is its own plain INSERT/UPDATE/DELETE/REPLACE, in a
//    loop or under an `if` too: whichever runs first begins, and the `with` commits or rolls back them all
//    (IPython's _writeout_input_cache);
//  - writes-rely-on-implicit-transaction: a helper's statement the caller builds from a SELECT and only appends to
//    reads (built-select.ts, hamster's __get_facts), and a DELETE per row of a loop over the function's own read of
//    that table, with no other write, leaves only rows the next read finds again (reread-deletes.ts,
//    jupyter_server's list_sessions).
// Each quiet case has near-misses beside it that keep the surface and break the property.
import { describe, expect, it } from 'vitest';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { scanRepository } from '../../../../src/core/python/scan.ts';
import { dedent } from './rule-tester.ts';

const RULES = new Set(['commit-without-begin', 'writes-rely-on-implicit-transaction', 'with-conn-opens-no-transaction']);

type Repository = Record<string, string>;

function findings(repository: Repository): string[] {
  const modules = Object.entries(repository).map(([path, code]) => parseModule(path, dedent(code)));
  return scanRepository(modules, undefined, { assumeAutocommit: 'when-evident' }).files.flatMap((file) =>
    file.reports.flatMap((report) => report.findings.filter((finding) => RULES.has(finding.ruleId)).map((finding) => `${file.path}:${finding.range.startLine} ${finding.ruleId}`)),
  );
}

/** IPython's HistoryManager in small: the cache written row by row in one `with conn:`. */
function history(block: string, extra = ''): Repository {
  return {
    'history.py': `
      import sqlite3

      class History:
          def __init__(self, path):
              self.db = sqlite3.connect(path)
              self.cache = []
${extra}
          def _writeout(self, conn):
              with conn:
${block}
          def flush(self):
              self._writeout(self.db)
              self.cache = []
    `,
  };
}

/** The lines, dedented, then indented by `columns` (the templates' own 6 columns included). */
function indent(lines: string, columns: number): string {
  return dedent(lines)
    .split('\n')
    .map((line) => (line.trim() === '' ? '' : `${' '.repeat(columns)}${line}`))
    .join('\n');
}

const block = (lines: string): string => indent(lines, 18);

describe('with-conn-opens-no-transaction: every write of the block opens the transaction when it runs first', () => {
  it('quiet: the writes in a loop of the block (IPython _writeout_input_cache)', () => {
    const repository = history(block(`
      for line in self.cache:
          conn.execute("INSERT INTO history VALUES (?, ?)", line)
    `));
    expect(findings(repository)).toEqual([]);
  });

  it('quiet: a first write under an `if`, then plain DML', () => {
    const repository = history(block(`
      if self.cache:
          conn.execute("DELETE FROM pending")
      for line in self.cache:
          conn.execute("INSERT INTO history VALUES (?, ?)", line)
    `));
    expect(findings(repository)).toEqual([]);
  });

  it('reported: the same loop on a connection the repository switches to autocommit', () => {
    const repository = history(
      block(`
      for line in self.cache:
          conn.execute("INSERT INTO history VALUES (?, ?)", line)
    `),
      `
          def fast(self):
              self.db.isolation_level = None
    `,
    );
    expect(findings(repository)).toEqual(['history.py:12 with-conn-opens-no-transaction']);
  });

  it('reported: DDL in the block that may run first when the loop is empty', () => {
    const repository = history(block(`
      for line in self.cache:
          conn.execute("INSERT INTO history VALUES (?, ?)", line)
      conn.execute("CREATE TABLE seen (line integer)")
      conn.execute("INSERT INTO seen VALUES (1)")
    `));
    expect(findings(repository)).toEqual(['history.py:9 with-conn-opens-no-transaction']);
  });

  it('reported: SQL the reader cannot see in the loop', () => {
    const repository = history(block(`
      for sql, line in self.cache:
          conn.execute(sql, line)
      conn.execute("UPDATE sessions SET n = n + 1")
    `));
    expect(findings(repository)).toEqual(['history.py:9 with-conn-opens-no-transaction']);
  });

  it('reported: a comprehension of writes in the block', () => {
    const repository = history(block(`
      cursors = [conn.execute("INSERT INTO history VALUES (?, ?)", line) for line in self.cache]
      conn.execute("UPDATE sessions SET n = ?", (len(cursors),))
    `));
    expect(findings(repository)).toEqual(['history.py:9 with-conn-opens-no-transaction']);
  });
});

/** hamster's Storage in small: fetchall runs the statement it is given; executemany commits once. */
function storage(search: string, extra = ''): Repository {
  return {
    'storage.py': `
      import sqlite3

      class Storage:
          def __init__(self, path):
              self.con = sqlite3.connect(path)

          def fetchall(self, query, params=None):
              cur = self.con.cursor()
              cur.execute(query, params)
              res = cur.fetchall()
              cur.close()
              return res

          def executemany(self, statement, params):
              cur = self.con.cursor()
              cur.executemany(statement, params)
              self.con.commit()

          def check_index(self, day):
              ids = self.fetchall("SELECT id FROM facts WHERE day = ? AND id NOT IN (SELECT id FROM fact_index)", (day,))
              if ids:
                  self.executemany("INSERT INTO fact_index (id) VALUES (?)", [(row[0],) for row in ids])
${extra}
          def get_facts(self, day, terms=""):
${search}
    `,
  };
}

const body = (lines: string): string => indent(lines, 14);

const SEARCH = body(`
  query = "SELECT id, name FROM facts WHERE day = ?"
  if terms:
      self.check_index(day)
      query += " AND id IN (SELECT id FROM fact_index WHERE fact_index MATCH '%s')" % terms
  query += " ORDER BY id"
  return self.fetchall(query, (day,))
`);

describe('writes-rely-on-implicit-transaction: a statement built from a SELECT reads', () => {
  it('quiet: the only write is one executemany its helper commits (hamster __get_facts)', () => {
    expect(findings(storage(SEARCH))).toEqual([]);
  });

  it('reported: the built statement starts with DELETE', () => {
    expect(findings(storage(SEARCH.replace('"SELECT id, name FROM facts WHERE day = ?"', '"DELETE FROM facts WHERE day = ?"')))).toEqual(['storage.py:27 writes-rely-on-implicit-transaction']);
  });

  it('reported: the statement is rebuilt from itself, not only appended to', () => {
    expect(findings(storage(SEARCH.replace('query += " ORDER BY id"', 'query = query.replace("SELECT id, name", "DELETE")')))).toEqual(['storage.py:27 writes-rely-on-implicit-transaction']);
  });

  it('reported: a conditional statement that may be a DELETE', () => {
    expect(findings(storage(SEARCH.replace('"SELECT id, name FROM facts WHERE day = ?"', '"SELECT id, name FROM facts WHERE day = ?" if terms else "DELETE FROM facts WHERE day = ?"')))).toEqual(['storage.py:27 writes-rely-on-implicit-transaction']);
  });

  it('reported: the statement comes from the caller', () => {
    const search = body(`
      self.check_index(day)
      query = terms
      query += " ORDER BY id"
      return self.fetchall(query, (day,))
    `);
    expect(findings(storage(search))).toEqual(['storage.py:25 writes-rely-on-implicit-transaction']);
  });

  it('reported: the executemany is followed by another write of the function', () => {
    const search = body(`
      query = "SELECT id, name FROM facts WHERE day = ?"
      self.check_index(day)
      query += " ORDER BY id"
      self.con.execute("UPDATE stats SET searches = searches + 1")
      return self.fetchall(query, (day,))
    `);
    expect(findings(storage(search))).toEqual(['storage.py:26 writes-rely-on-implicit-transaction']);
  });
});

/** jupyter_server's SessionManager in small: an autocommit connection, stale rows deleted as they are listed. */
function sessions(list: string, toModel = DELETE_STALE): Repository {
  return {
    'sessions.py': `
      import sqlite3

      class Sessions:
          def __init__(self, kernels, path):
              self.kernels = kernels
              self.conn = sqlite3.connect(path, isolation_level=None)

          def to_model(self, row, tolerate=False):
${toModel}
              return {"id": row["id"], "kernel": row["kernel"]}

          def list_sessions(self, ids=()):
${list}
    `,
  };
}

const DELETE_STALE = body(`
  if row["kernel"] not in self.kernels:
      self.conn.execute("DELETE FROM session WHERE id = ?", (row["id"],))
      if tolerate:
          return None
      raise KeyError(row["id"])
`);

const LIST = body(`
  c = self.conn.execute("SELECT * FROM session")
  result = []
  for row in c.fetchall():
      try:
          result.append(self.to_model(row))
      except KeyError:
          pass
  return result
`);

describe('writes-rely-on-implicit-transaction: one DELETE per row of the function\'s own read of that table', () => {
  it('quiet: stale rows deleted as they are listed (jupyter_server list_sessions)', () => {
    expect(findings(sessions(LIST))).toEqual([]);
  });

  it('quiet: the loop runs over the read itself', () => {
    expect(findings(sessions(LIST.replace('c = self.conn.execute("SELECT * FROM session")\n', '').replace('c.fetchall()', 'self.conn.execute("SELECT * FROM session")')))).toEqual([]);
  });

  it('reported: the loop runs over the caller\'s ids', () => {
    expect(findings(sessions(LIST.replace('c.fetchall()', 'ids')))).toEqual(['sessions.py:22 writes-rely-on-implicit-transaction']);
  });

  it('reported: the rows read are of another table', () => {
    expect(findings(sessions(LIST.replace('SELECT * FROM session', 'SELECT * FROM kernel_log')))).toEqual(['sessions.py:22 writes-rely-on-implicit-transaction']);
  });

  it('reported: each delete is followed by another write', () => {
    const toModel = body(`
      if row["kernel"] not in self.kernels:
          self.conn.execute("DELETE FROM session WHERE id = ?", (row["id"],))
          self.conn.execute("INSERT INTO audit (id) VALUES (?)", (row["id"],))
          if tolerate:
              return None
          raise KeyError(row["id"])
    `);
    expect(findings(sessions(LIST, toModel))).toEqual(['sessions.py:10 writes-rely-on-implicit-transaction', 'sessions.py:23 writes-rely-on-implicit-transaction']);
  });
});

// The reviewer's near-misses (rev-D, /work/notes/s27/rev-D): each keeps a quiet case's surface and breaks its property.
describe('with-conn-opens-no-transaction: near-misses of the block proof (rev-D)', () => {
  it('reported: another module switches the same connection to autocommit (`hist.db.isolation_level = None`)', () => {
    const repository = {
      'history.py': `
        import sqlite3


        class History:
            def __init__(self, path):
                self.db = sqlite3.connect(path)
                self.cache = []

            def store(self, line):
                self.cache.append(line)

            def flush(self):
                with self.db:
                    for session, line in self.cache:
                        self.db.execute("INSERT INTO history (session, line) VALUES (?, ?)", (session, line))
                        self.db.execute("UPDATE sessions SET lines = lines + 1 WHERE id = ?", (session,))
                self.cache = []
      `,
      'shell.py': `
        from history import History


        def start(path, fast=False):
            hist = History(path)
            if fast:
                hist.db.isolation_level = None
            return hist
      `,
    };
    expect(findings(repository)).toEqual(['history.py:13 with-conn-opens-no-transaction']);
  });

  it('reported: the first write directly in the block, the mode switched by another module', () => {
    const repository = {
      'cli.py': `
        import sys
        from store import Store


        def main():
            store = Store(sys.argv[1])
            store.db.isolation_level = None
            for line in sys.stdin:
                item, _, tags = line.partition(":")
                store.replace_tags(int(item), tags.split(","))


        if __name__ == "__main__":
            main()
      `,
      'store.py': `
        import sqlite3


        class Store:
            def __init__(self, path):
                self.db = sqlite3.connect(path)

            def replace_tags(self, item_id, tags):
                with self.db:
                    self.db.execute("DELETE FROM tags WHERE item = ?", (item_id,))
                    for tag in tags:
                        self.db.execute("INSERT INTO tags (item, tag) VALUES (?, ?)", (item_id, tag))
      `,
    };
    expect(findings(repository)).toEqual(['store.py:9 with-conn-opens-no-transaction']);
  });

  it('reported: `__init__` hands the connection to another module\'s `configure(conn)`, which sets `isolation_level = None`', () => {
    const repository = {
      'dbutil.py': `
        def configure(conn):
            """Fast settings for the cache database."""
            conn.isolation_level = None
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
      `,
      'history.py': `
        import sqlite3

        from dbutil import configure


        class History:
            def __init__(self, path):
                self.db = sqlite3.connect(path)
                configure(self.db)
                self.cache = []

            def flush(self):
                with self.db:
                    for session, line in self.cache:
                        self.db.execute("INSERT INTO history (session, line) VALUES (?, ?)", (session, line))
                        self.db.execute("UPDATE sessions SET lines = lines + 1 WHERE id = ?", (session,))
                self.cache = []
      `,
    };
    expect(findings(repository)).toEqual(['history.py:13 with-conn-opens-no-transaction']);
  });

  it('reported: `PRAGMA user_version = 3` runs before any BEGIN, then a loop of UPDATEs', () => {
    const repository = {
      'logs.py': `
        import sqlite3


        def open_log(path):
            return sqlite3.connect(path, isolation_level=None)
      `,
      'migrate.py': `
        import sqlite3


        class Database:
            def __init__(self, path):
                self.conn = sqlite3.connect(path)

            def migrate_v3(self):
                with self.conn:
                    self.conn.execute("PRAGMA user_version = 3")
                    for (row_id, name) in self.conn.execute("SELECT id, name FROM people").fetchall():
                        self.conn.execute("UPDATE people SET name = ? WHERE id = ?", (name.strip().title(), row_id))
      `,
    };
    expect(findings(repository)).toEqual(['migrate.py:9 with-conn-opens-no-transaction']);
  });

  it('reported: a write in the block on a second connection, which the with does not commit', () => {
    const repository = {
      'queue.py': `
        import sqlite3


        class Queue:
            def __init__(self, path, log_path):
                self.db = sqlite3.connect(path)
                self.log = sqlite3.connect(log_path)

            def complete(self, job_ids):
                with self.db:
                    for job_id in job_ids:
                        self.db.execute("DELETE FROM jobs WHERE id = ?", (job_id,))
                        self.log.execute("INSERT INTO done (id) VALUES (?)", (job_id,))
      `,
      'tail.py': `
        import sqlite3


        def follow(path):
            return sqlite3.connect(path, isolation_level=None)
      `,
    };
    expect(findings(repository)).toEqual(['queue.py:10 with-conn-opens-no-transaction']);
  });

  it('reported: a `with conn:` nested in the loop commits one row at a time', () => {
    const repository = {
      'logs.py': `
        import sqlite3


        def open_log(path):
            return sqlite3.connect(path, isolation_level=None)
      `,
      'sync.py': `
        import sqlite3


        class Sync:
            def __init__(self, path):
                self.conn = sqlite3.connect(path)

            def resync(self, rows):
                conn = self.conn
                with conn:
                    conn.execute("DELETE FROM mirror")
                    for row in rows:
                        with conn:
                            conn.execute("INSERT INTO mirror (id, body) VALUES (?, ?)", row)
      `,
    };
    expect(findings(repository)).toEqual(['sync.py:10 with-conn-opens-no-transaction']);
  });
});

describe('writes-rely-on-implicit-transaction: near-misses of the commit two calls down (rev-D)', () => {
  it('reported: the inner helper commits only `if commit:`, and the caller passes commit=False', () => {
    const repository = {
      'ledger.py': `
        import sqlite3


        class Ledger:
            def __init__(self, path):
                self.con = sqlite3.connect(path, isolation_level=None)

            def run(self, statement, params, commit=True):
                cur = self.con.cursor()
                cur.execute(statement, params)
                if commit:
                    self.con.commit()

            def _move(self, src, dst, amount):
                self.run("UPDATE accounts SET balance = balance - ? WHERE id = ?", (amount, src), commit=False)
                self.run("UPDATE accounts SET balance = balance + ? WHERE id = ?", (amount, dst), commit=False)

            def transfer(self, src, dst, amount):
                self._move(src, dst, amount)
      `,
    };
    expect(findings(repository)).toEqual(['ledger.py:19 writes-rely-on-implicit-transaction']);
  });

  it('reported: the inner helper commits only when not batching', () => {
    const repository = {
      'tags.py': `
        import contextlib
        import sqlite3


        class TagStore:
            def __init__(self, path):
                self.con = sqlite3.connect(path, isolation_level=None)
                self.batching = False

            @contextlib.contextmanager
            def batch(self):
                self.batching = True
                try:
                    yield
                finally:
                    self.batching = False

            def execute(self, statement, params=()):
                self.con.execute(statement, params)
                if not self.batching:
                    self.con.commit()

            def _retag(self, item, old, new):
                self.execute("DELETE FROM item_tags WHERE item = ? AND tag = ?", (item, old))
                self.execute("INSERT INTO item_tags (item, tag) VALUES (?, ?)", (item, new))

            def rename_tag(self, item, old, new):
                with self.batch():
                    self._retag(item, old, new)
      `,
    };
    expect(findings(repository)).toEqual(['tags.py:29 writes-rely-on-implicit-transaction']);
  });
});

describe('writes-rely-on-implicit-transaction: near-misses of the re-read deletes (rev-D)', () => {
  it('reported: the read is a recursive WITH over the tree (orphans a re-read cannot reach)', () => {
    const repository = {
      'tree.py': `
        import sqlite3

        SUBTREE = """
        WITH RECURSIVE sub(id) AS (
            SELECT ?
            UNION ALL
            SELECT n.id FROM nodes n JOIN sub ON n.parent = sub.id
        )
        SELECT id FROM sub
        """


        class Tree:
            def __init__(self, path):
                self.conn = sqlite3.connect(path, isolation_level=None)

            def delete_subtree(self, root_id):
                rows = self.conn.execute(SUBTREE, (root_id,)).fetchall()
                for (node_id,) in rows:
                    self.conn.execute("DELETE FROM nodes WHERE id = ?", (node_id,))
      `,
    };
    expect(findings(repository)).toEqual(['tree.py:20 writes-rely-on-implicit-transaction']);
  });

  it('reported: a hook after each delete that a subclass fills with an UPDATE', () => {
    const repository = {
      'sessions.py': `
        import sqlite3


        class Sessions:
            def __init__(self, path):
                self.conn = sqlite3.connect(path, isolation_level=None)

            def on_removed(self, row):
                """Hook for subclasses."""

            def prune(self, alive):
                for row in self.conn.execute("SELECT id, user FROM session").fetchall():
                    if row[0] not in alive:
                        self.conn.execute("DELETE FROM session WHERE id = ?", (row[0],))
                        self.on_removed(row)


        class CountingSessions(Sessions):
            def on_removed(self, row):
                self.conn.execute("UPDATE users SET sessions = sessions - 1 WHERE id = ?", (row[1],))
      `,
    };
    expect(findings(repository)).toEqual(['sessions.py:14 writes-rely-on-implicit-transaction']);
  });

  it('reported: a call on an object not resolved after each delete', () => {
    const repository = {
      'queue.py': `
        import sqlite3


        class Outbox:
            def __init__(self, path, index):
                self.conn = sqlite3.connect(path, isolation_level=None)
                self.index = index

            def drop_sent(self):
                rows = self.conn.execute("SELECT id, doc FROM outbox WHERE sent = 1").fetchall()
                for msg_id, doc in rows:
                    self.conn.execute("DELETE FROM outbox WHERE id = ?", (msg_id,))
                    self.index.forget(doc)


        class Index:
            def __init__(self, conn):
                self.conn = conn

            def forget(self, doc):
                self.conn.execute("UPDATE docs SET pending = pending - 1 WHERE id = ?", (doc,))
      `,
    };
    expect(findings(repository)).toEqual(['queue.py:12 writes-rely-on-implicit-transaction']);
  });

  it('reported: each delete is followed by removing the row\'s file', () => {
    const repository = {
      'cache.py': `
        import os
        import sqlite3
        import time


        class BlobCache:
            def __init__(self, path, root):
                self.root = root
                self.conn = sqlite3.connect(path, isolation_level=None)

            def expire(self):
                rows = self.conn.execute("SELECT key, filename FROM blobs WHERE expires < ?", (time.time(),)).fetchall()
                for key, filename in rows:
                    self.conn.execute("DELETE FROM blobs WHERE key = ?", (key,))
                    os.remove(os.path.join(self.root, filename))
      `,
    };
    expect(findings(repository)).toEqual(['cache.py:14 writes-rely-on-implicit-transaction']);
  });

  it('reported: the read is filtered by the caller\'s parameters', () => {
    const repository = {
      'playlists.py': `
        import sqlite3


        class Playlists:
            def __init__(self, path):
                self.conn = sqlite3.connect(path, isolation_level=None)

            def remove_artist(self, playlist_id, artist):
                cur = self.conn.execute(
                    "SELECT entry_id FROM playlist_entries WHERE playlist = ? AND artist = ?",
                    (playlist_id, artist),
                )
                for row in cur.fetchall():
                    self.conn.execute("DELETE FROM playlist_entries WHERE entry_id = ?", (row[0],))
      `,
    };
    expect(findings(repository)).toEqual(['playlists.py:14 writes-rely-on-implicit-transaction']);
  });
});

describe('writes-rely-on-implicit-transaction: near-misses of the built SELECT (rev-D)', () => {
  it('reported: on psycopg2, a SELECT of a server function may write', () => {
    const repository = {
      'archive.py': `
        import psycopg2


        class Archive:
            def __init__(self, dsn):
                self.conn = psycopg2.connect(dsn)
                self.conn.autocommit = True

            def fetchall(self, query, params=None):
                cur = self.conn.cursor()
                cur.execute(query, params)
                return cur.fetchall()

            def execute(self, statement, params=None):
                cur = self.conn.cursor()
                cur.execute(statement, params)

            def close_month(self, month, keep_days=0):
                self.conn.cursor().execute("UPDATE months SET closed = true WHERE month = %s", (month,))
                query = "SELECT archive_month(%s"
                if keep_days:
                    query += ", %d" % keep_days
                query += ")"
                return self.fetchall(query, (month,))
      `,
    };
    expect(findings(repository)).toEqual(['archive.py:19 writes-rely-on-implicit-transaction']);
  });

  it('reported: on psycopg2, `SELECT ... INTO` creates a table', () => {
    const repository = {
      'report.py': `
        import psycopg2


        class Reports:
            def __init__(self, dsn):
                self.conn = psycopg2.connect(dsn)
                self.conn.autocommit = True

            def fetchall(self, query, params=None):
                cur = self.conn.cursor()
                cur.execute(query, params)
                return cur.fetchall() if cur.description else []

            def execute(self, statement, params=None):
                cur = self.conn.cursor()
                cur.execute(statement, params)

            def snapshot(self, day, region=None):
                self.conn.cursor().execute("INSERT INTO snapshot_log (day) VALUES (%s)", (day,))
                query = "SELECT * INTO snapshot_%s FROM sales WHERE day = %%s" % day.strftime("%Y%m%d")
                if region:
                    query += " AND region = '%s'" % region
                query += " ORDER BY id"
                return self.fetchall(query, (day,))
      `,
    };
    expect(findings(repository)).toEqual(['report.py:19 writes-rely-on-implicit-transaction']);
  });

  it('reported: on sqlite3, a SELECT of a function the module registers with create_function', () => {
    const repository = {
      'store.py': `
        import sqlite3


        class Storage:
            def __init__(self, path):
                self.con = sqlite3.connect(path, isolation_level=None)

            def fetchall(self, query, params=()):
                cur = self.con.cursor()
                cur.execute(query, params)
                return cur.fetchall()

            def execute(self, statement, params=()):
                self.con.execute(statement, params)

            def purge_tag(self, tag, terms=""):
                self.con.execute("DELETE FROM tags WHERE name = ?", (tag,))
                query = "SELECT delete_facts(id) FROM facts WHERE tag = ?"
                if terms:
                    query += " AND id IN (SELECT id FROM fact_index WHERE fact_index MATCH '%s')" % terms
                return self.fetchall(query, (tag,))

            def register(self):
                def delete_facts(fact_id):
                    self.con.execute("DELETE FROM facts WHERE id = ?", (fact_id,))
                    return 1
                self.con.create_function("delete_facts", 1, delete_facts)
      `,
    };
    expect(findings(repository)).toEqual(['store.py:17 writes-rely-on-implicit-transaction']);
  });
});

describe('the rev-D fixes keep the quiet cases quiet', () => {
  it('quiet: a plain read of the table with a constant filter, one DELETE per row, logging between', () => {
    const repository = {
      'outbox.py': `
        import logging
        import sqlite3

        log = logging.getLogger(__name__)

        class Outbox:
            def __init__(self, path):
                self.conn = sqlite3.connect(path, isolation_level=None)

            def drop_sent(self):
                rows = self.conn.execute("SELECT id FROM outbox WHERE sent = 1").fetchall()
                for (msg_id,) in rows:
                    self.conn.execute("DELETE FROM outbox WHERE id = ?", (msg_id,))
                    log.info("dropped %s", msg_id)
      `,
    };
    expect(findings(repository)).toEqual([]);
  });

  it('quiet: a built SELECT of SQLite builtins only, on sqlite3', () => {
    const repository = {
      'store.py': `
        import sqlite3

        class Store:
            def __init__(self, path):
                self.con = sqlite3.connect(path, isolation_level=None)

            def fetchall(self, query, params=()):
                cur = self.con.cursor()
                cur.execute(query, params)
                return cur.fetchall()

            def search(self, day, keep=0):
                self.con.execute("UPDATE stats SET searches = searches + 1")
                query = "SELECT count(id), coalesce(name, '') FROM facts WHERE day = ?"
                if keep:
                    query += " AND id IN (SELECT id FROM kept WHERE n > %d)" % keep
                query += " ORDER BY id"
                return self.fetchall(query, (day,))
      `,
    };
    expect(findings(repository)).toEqual([]);
  });

  it('quiet: the writes of the block on a cursor of the with\'s own connection, evidence elsewhere', () => {
    const repository = {
      'logs.py': `
        import sqlite3

        def open_log(path):
            return sqlite3.connect(path, isolation_level=None)
      `,
      'history.py': `
        import sqlite3

        class History:
            def __init__(self, path):
                self.db = sqlite3.connect(path)
                self.cache = []

            def flush(self):
                with self.db:
                    cur = self.db.cursor()
                    for session, line in self.cache:
                        cur.execute("INSERT INTO history VALUES (?, ?)", (session, line))
                        cur.execute("UPDATE sessions SET lines = lines + 1 WHERE id = ?", (session,))
      `,
    };
    expect(findings(repository)).toEqual([]);
  });
});
