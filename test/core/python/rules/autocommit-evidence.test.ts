// The default-mode rules read with the whole repository (autocommit-evidence.ts): under `when-evident` (the
// default) they speak where the repository shows autocommit can happen to the connection; under `unless-proven`
// wherever the connection is not proven default-mode. Each quiet case is reported under `unless-proven`, so the
// quiet comes from the evidence standard and not from some other rule's silence.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { scanRepository } from '../../../../src/core/python/scan.ts';
import { dedent } from './rule-tester.ts';
import type { AssumeAutocommit } from '../../../../src/core/python/callgraph.ts';
import { configSchema } from '../../../../src/core/config/schema.ts';

const RULES = new Set(['commit-without-begin', 'writes-rely-on-implicit-transaction', 'with-conn-opens-no-transaction']);

type Repository = Record<string, string>;

const READERS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/autocommit-evidence');

/** A reader's repository (test/fixtures/autocommit-evidence, README there) as path → code, dedent-safe (no leading indent). */
function readerRepository(dir: string, root = dir): Repository {
  return Object.assign(
    {},
    ...readdirSync(dir).map((entry) => {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) return readerRepository(full, root);
      return entry.endsWith('.py') ? { [path.relative(root, full)]: readFileSync(full, 'utf8') } : {};
    }),
  );
}

function findings(repository: Repository, assumeAutocommit: AssumeAutocommit = 'when-evident'): string[] {
  const modules = Object.entries(repository).map(([path, code]) => parseModule(path, dedent(code)));
  return scanRepository(modules, undefined, { assumeAutocommit }).files.flatMap((file) =>
    file.reports.flatMap((report) => report.findings.filter((finding) => RULES.has(finding.ruleId)).map((finding) => `${file.path}:${finding.range.startLine} ${finding.ruleId}`)),
  );
}

const OPENER = `
  import sqlite3

  def open_db(path):
      return sqlite3.connect(path)
`;

const STORE = `
  class Store:
      def __init__(self, conn):
          self.conn = conn

      def move(self, a, b):
          self.conn.execute("UPDATE t SET n = n - 1 WHERE id = ?", (a,))
          self.conn.execute("UPDATE t SET n = n + 1 WHERE id = ?", (b,))
          self.conn.commit()
`;

const APP = `
  from opener import open_db
  from store import Store

  def main(path):
      Store(open_db(path)).move(1, 2)
`;

/** The constructor taken as a value: it hides what mode the connections it makes get, so the proof gives up; it names no autocommit. */
const HIDDEN = 'import sqlite3\nopener = sqlite3.connect\n';

const QUIET: [string, Repository][] = [
  ['a connection the repository opens and hands on, where the proof gives up but nothing names autocommit', { 'opener.py': OPENER, 'store.py': STORE, 'app.py': APP, 'hidden.py': HIDDEN }],
  [
    "gPodder's VACUUM toggle: None, one VACUUM, the mode restored",
    {
      'opener.py': OPENER,
      'store.py': STORE,
      'app.py': APP,
      'tools.py': `
        def compact(conn):
            conn.isolation_level = None
            conn.execute("VACUUM")
            conn.isolation_level = ""
      `,
    },
  ],
  [
    'a connection kept in a registry dict (the reader cannot follow it; nothing asks for autocommit)',
    {
      'opener.py': OPENER,
      'registry.py': 'CONNS = {}\n',
      'app.py': `
        import registry
        from opener import open_db

        def main(name):
            registry.CONNS["main"] = open_db("x.db")
            registry.CONNS[name].execute("UPDATE t SET n = n - 1 WHERE id = 1")
            registry.CONNS[name].execute("UPDATE t SET n = n + 1 WHERE id = 2")
            registry.CONNS[name].commit()
      `,
    },
  ],
  [
    'a with-wrapper whose __exit__ does not commit',
    {
      'opener.py': OPENER,
      'hidden.py': HIDDEN,
      'cursor.py': `
        from opener import open_db

        class SqlCursor:
            def __init__(self, path):
                self.path = path

            def __enter__(self):
                self.conn = open_db(self.path)
                return self.conn

            def __exit__(self, *exc):
                self.conn.close()
      `,
      'app.py': `
        from cursor import SqlCursor

        def move(path, a, b):
            with SqlCursor(path) as sql:
                sql.execute("UPDATE t SET n = n - 1 WHERE id = ?", (a,))
                sql.execute("UPDATE t SET n = n + 1 WHERE id = ?", (b,))
                sql.commit()

        def main():
            move("x.db", 1, 2)
      `,
    },
  ],
];

const REPORTED: [string, Repository][] = [
  ['isolation_level=None given to a constructor anywhere', { 'opener.py': OPENER, 'store.py': STORE, 'app.py': APP, 'other.py': 'import sqlite3\nLOG = sqlite3.connect("log.db", isolation_level=None)\n' }],
  ['an options dict naming isolation_level None', { 'opener.py': OPENER, 'store.py': STORE, 'app.py': APP, 'settings.py': 'DB_OPTIONS = {"isolation_level": None}\n' }],
  ['kwargs.setdefault("isolation_level", None)', { 'opener.py': OPENER, 'store.py': STORE, 'app.py': APP, 'tools.py': 'def options(kwargs):\n    kwargs.setdefault("isolation_level", None)\n    return kwargs\n' }],
  ['options["autocommit"] = True', { 'opener.py': OPENER, 'store.py': STORE, 'app.py': APP, 'tools.py': 'def options(kwargs):\n    kwargs["autocommit"] = True\n    return kwargs\n' }],
  ['a parameter named isolation_level defaulting to None', { 'opener.py': OPENER, 'store.py': STORE, 'app.py': APP, 'tools.py': 'def configure(conn, isolation_level=None):\n    pass\n' }],
  [
    'the toggle left on for two statements',
    {
      'opener.py': OPENER,
      'store.py': STORE,
      'app.py': APP,
      'tools.py': `
        def compact(conn):
            conn.isolation_level = None
            conn.execute("VACUUM")
            conn.execute("UPDATE t SET n = 0")
            conn.isolation_level = ""
      `,
    },
  ],
  ['a library entry point: the connection is the caller\'s', { 'opener.py': OPENER, 'store.py': STORE }],
  [
    'a function whose connection parameter no repository code passes',
    {
      'opener.py': OPENER,
      'api.py': `
        def move(conn, a, b):
            cur = conn.cursor()
            cur.execute("UPDATE t SET n = n - 1 WHERE id = ?", (a,))
            cur.execute("UPDATE t SET n = n + 1 WHERE id = ?", (b,))
            conn.commit()
      `,
    },
  ],
  [
    'a connection from a third party\'s opener (an import fallback)',
    {
      'opener.py': `
        import sqlite3
        try:
            from fastdb import open_db
        except ImportError:
            def open_db(path):
                return sqlite3.connect(path)
      `,
      'app.py': `
        from opener import open_db

        def main(path):
            conn = open_db(path)
            conn.execute("UPDATE t SET n = n - 1 WHERE id = 1")
            conn.execute("UPDATE t SET n = n + 1 WHERE id = 2")
            conn.commit()
      `,
    },
  ],
  [
    'a connection from a third party\'s pool',
    {
      'opener.py': OPENER,
      'app.py': `
        import dbpool

        def main(url):
            pool = dbpool.Pool(url)
            conn = pool.connect()
            conn.execute("UPDATE t SET n = n - 1 WHERE id = 1")
            conn.execute("UPDATE t SET n = n + 1 WHERE id = 2")
            conn.commit()
      `,
    },
  ],
  [
    "writes on Django's connection (autocommit by Django's choice)",
    {
      'opener.py': OPENER,
      'hidden.py': HIDDEN,
      'views.py': `
        from django.db import connection

        def move(a, b):
            with connection.cursor() as c:
                c.execute("UPDATE t SET n = n - 1 WHERE id = %s", [a])
                c.execute("UPDATE t SET n = n + 1 WHERE id = %s", [b])

        def main():
            move(1, 2)
      `,
    },
  ],
  [
    'a self attribute a third party\'s base class may set',
    {
      'opener.py': OPENER,
      'store.py': `
        from opener import open_db
        from dbkit import BaseRepository

        class Store(BaseRepository):
            def reopen(self, path):
                self.conn = open_db(path)

            def move(self, a, b):
                self.conn.execute("UPDATE t SET n = n - 1 WHERE id = ?", (a,))
                self.conn.execute("UPDATE t SET n = n + 1 WHERE id = ?", (b,))
                self.conn.commit()
      `,
      'app.py': 'from store import Store\n\ndef main(p):\n    Store().move(1, 2)\n',
    },
  ],
  [
    'writes through a repository wrapper whose execute commits each call',
    {
      'opener.py': OPENER,
      'db.py': `
        from opener import open_db

        class Db:
            def __init__(self, path):
                self.path = path

            def execute(self, sql, args=()):
                conn = open_db(self.path)
                conn.execute(sql, args)
                conn.commit()
                conn.close()
      `,
      'app.py': `
        from db import Db

        def main(path):
            db = Db(path)
            db.execute("UPDATE t SET n = n - 1 WHERE id = 1")
            db.execute("UPDATE t SET n = n + 1 WHERE id = 2")
      `,
    },
  ],
];

describe('default-mode rules under when-evident', () => {
  for (const [name, repository] of QUIET) {
    it(`quiet: ${name}`, () => {
      expect(findings(repository)).toEqual([]);
      expect(findings(repository, 'unless-proven').length).toBeGreaterThan(0);
    });
  }
  for (const [name, repository] of REPORTED) {
    it(`reported: ${name}`, () => {
      expect(findings(repository).length).toBeGreaterThan(0);
    });
  }

  it('speaks of separate steps for writes a committing with-wrapper saves one by one (lollypop add_uri)', () => {
    const repository: Repository = {
      'opener.py': OPENER,
      'cursor.py': `
        from opener import open_db

        class SqlCursor:
            def __init__(self, path, commit=False):
                self.path = path
                self.commit = commit

            def __enter__(self):
                self.conn = open_db(self.path)
                return self.conn

            def __exit__(self, *exc):
                if self.commit:
                    self.conn.commit()
                self.conn.close()
      `,
      'playlists.py': `
        from cursor import SqlCursor

        class Playlists:
            def add_uri(self, uri):
                with SqlCursor("x.db", True) as sql:
                    sql.execute("INSERT INTO tracks VALUES (?)", (uri,))

            def add_uris(self, uris):
                for uri in uris:
                    self.add_uri(uri)

        def main():
            Playlists().add_uris(["a", "b"])
      `,
    };
    const modules = Object.entries(repository).map(([path, code]) => parseModule(path, dedent(code)));
    const messages = scanRepository(modules).files.flatMap((file) => file.reports.flatMap((report) => report.findings.filter((finding) => finding.ruleId === 'writes-rely-on-implicit-transaction').map((finding) => `${report.fn.qualname}: ${finding.message}`)));
    expect(messages).toEqual([expect.stringMatching(/^Playlists\.add_uris: .*each such call saves its writes as a step of its own/)]);
  });

  for (const kind of ['reported', 'quiet'] as const) {
    for (const name of readdirSync(path.join(READERS, kind)).sort()) {
      it(`reader's ${name}: ${kind}`, () => {
        const found = findings(readerRepository(path.join(READERS, kind, name)));
        if (kind === 'reported') expect(found.length).toBeGreaterThan(0);
        else expect(found).toEqual([]);
      });
    }
  }

  it('names the evidence in the message, and nothing under unless-proven', () => {
    const messages = (repository: Repository, assumeAutocommit: AssumeAutocommit) =>
      scanRepository(Object.entries(repository).map(([path, code]) => parseModule(path, dedent(code))), undefined, { assumeAutocommit }).files.flatMap((file) => file.reports.flatMap((report) => report.findings.filter((finding) => RULES.has(finding.ruleId)).map((finding) => finding.message)));
    const library = { 'opener.py': OPENER, 'store.py': STORE };
    expect(messages(library, 'when-evident')).toContainEqual(expect.stringMatching(/\(here: the connection is Store\.__init__'s parameter conn, which no repository code passes: its callers pick the mode\)$/));
    const named = { ...library, 'app.py': APP, 'other.py': 'import sqlite3\nLOG = sqlite3.connect("log.db", isolation_level=None)\n' };
    expect(messages(named, 'when-evident')).toContainEqual(expect.stringMatching(/\(here: other\.py:2: sqlite3\.connect\(isolation_level=None\) may make a connection autocommit\)$/));
    expect(messages(named, 'unless-proven').every((message) => !message.includes('(here:'))).toBe(true);
  });

  it('takes the standard from the config, when-evident by default', () => {
    expect(configSchema.parse({}).assume_autocommit).toBe('when-evident');
    expect(configSchema.parse({ assume_autocommit: 'unless-proven' }).assume_autocommit).toBe('unless-proven');
    expect(() => configSchema.parse({ assume_autocommit: 'never' })).toThrow();
  });
});
