// The repository-level default-mode proof (autocommit-switches.ts, repository-connections.ts): a class that
// receives its sqlite3 connection as a parameter cannot prove on its own that the connection keeps sqlite3's
// implicit transaction, so commit-without-begin, writes-rely-on-implicit-transaction and
// with-conn-opens-no-transaction speak about the autocommit harm. With the whole repository at hand they can
// be quieted, but only when BOTH hold: no code anywhere in the repository can switch any sqlite3 connection to
// autocommit, and every path the connection comes by ends in a repository sqlite3 constructor. The checked
// module (store.py) is the same text in every case, and each near miss is one change to a valid repository,
// made in another module whenever possible: the proof must read the other modules, and be broken by them.
import { describe, expect, it } from 'vitest';
import { analyzeModule } from '../../../../src/core/python/analyze.ts';
import { buildRepoIndex, type AssumeAutocommit } from '../../../../src/core/python/callgraph.ts';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { dedent } from './rule-tester.ts';

type Modules = Record<string, string>;

/**
 * The checked module, never changed: a bank store handed its connection by its caller. transfer() writes twice
 * and commits (commit-without-begin, line 8), rename() writes twice in `with self.conn:` (with-conn-opens-no-transaction,
 * line 11), close_account() writes twice and leaves the commit to its caller (writes-rely-on-implicit-transaction, line 16).
 */
const STORE = `
class Store:
    def __init__(self, conn):
        self.conn = conn

    def transfer(self, src, dst, amount):
        self.conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (amount, src))
        self.conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (amount, dst))
        self.conn.commit()

    def rename(self, old, new):
        with self.conn:
            self.conn.execute("UPDATE accounts SET owner = ? WHERE owner = ?", (new, old))
            self.conn.execute("UPDATE audit SET owner = ? WHERE owner = ?", (new, old))

    def close_account(self, account):
        self.conn.execute("INSERT INTO closed (id) SELECT id FROM accounts WHERE id = ?", (account,))
        self.conn.execute("DELETE FROM accounts WHERE id = ?", (account,))
`;

/** What the three rules say about Store when nothing is proven. */
const REPORTED = ['commit-without-begin:8', 'with-conn-opens-no-transaction:11', 'writes-rely-on-implicit-transaction:16'];

const RULES = ['commit-without-begin', 'with-conn-opens-no-transaction', 'writes-rely-on-implicit-transaction'];

/**
 * The three rules' findings in store.py's Store methods, as `rule:line`, sorted. `index`: 'complete' as
 * scanRepository builds it (every module given), 'partial' (an index not said to hold the whole repository,
 * as a bounded read builds it), or none (a lone module).
 */
function storeFindings(modules: Modules, index: 'complete' | 'partial' | 'none' = 'complete', assumeAutocommit: AssumeAutocommit = 'unless-proven'): string[] {
  const parsed = Object.entries(modules).map(([path, code]) => parseModule(path, dedent(code)));
  const checked = parsed.find((module) => module.path === 'store.py')!;
  const reports = index === 'none' ? analyzeModule(checked) : analyzeModule(checked, buildRepoIndex(parsed, { complete: index === 'complete', assumeAutocommit }));
  return reports
    .filter((report) => report.fn.qualname.startsWith('Store.'))
    .flatMap((report) => report.findings.filter((finding) => RULES.includes(finding.ruleId)).map((finding) => `${finding.ruleId}:${finding.range.startLine}`))
    .sort();
}

/** The one change of a near miss: each `[from, to]` must occur exactly once in `modules[path]`. */
function change(modules: Modules, path: string, ...edits: [from: string, to: string][]): Modules {
  let code = modules[path];
  if (code === undefined) throw new Error(`no module ${path}`);
  for (const [from, to] of edits) {
    if (code.split(from).length !== 2) throw new Error(`${path}: ${JSON.stringify(from)} does not occur exactly once`);
    code = code.replace(from, () => to);
  }
  return { ...modules, [path]: code };
}

function without(modules: Modules, path: string): Modules {
  const { [path]: _dropped, ...rest } = modules;
  return rest;
}

/** The smallest app: Store handed a fresh `sqlite3.connect(path)`. */
const APP = `
import sqlite3

from store import Store


def main(path):
    store = Store(sqlite3.connect(path))
    store.transfer(1, 2, 10)
    store.rename("alice", "bob")
    store.close_account(3)
`;

/** Maintenance scripts on their own connections: where the invariant's near misses are made. */
const TOOLS = `
import sqlite3


def backup(path, target):
    source = sqlite3.connect(path)
    copy = sqlite3.connect(target)
    source.backup(copy)
    copy.close()
    source.close()


def vacuum(path):
    conn = sqlite3.connect(path)
    conn.execute("VACUUM")
    conn.close()
`;

const MINIMAL: Modules = { 'store.py': STORE, 'app.py': APP };
const DIRECT: Modules = { ...MINIMAL, 'tools.py': TOOLS };

const LOCAL = change(DIRECT, 'app.py', ['    store = Store(sqlite3.connect(path))', '    conn = sqlite3.connect(path)\n    store = Store(conn)']);

const WITH_CONNECTION = change(DIRECT, 'app.py', [
  `    store = Store(sqlite3.connect(path))
    store.transfer(1, 2, 10)
    store.rename("alice", "bob")
    store.close_account(3)`,
  `    with sqlite3.connect(path) as conn:
        store = Store(conn)
        store.transfer(1, 2, 10)
        store.rename("alice", "bob")
        store.close_account(3)`,
]);

const DBAPI2_ALIAS = change(DIRECT, 'app.py', ['import sqlite3\n', 'from sqlite3 import dbapi2 as sqlite\n'], ['Store(sqlite3.connect(path))', 'Store(sqlite.connect(path))']);

/** A repository function returns the connection (a call resolved in the repository). */
const OPENER_FUNCTION = change(
  DIRECT,
  'app.py',
  ['\n\ndef main(path):', '\n\ndef open_db(path):\n    conn = sqlite3.connect(path)\n    return conn\n\n\ndef main(path):'],
  ['    store = Store(sqlite3.connect(path))', '    conn = open_db(path)\n    store = Store(conn)'],
);

/** db.py's lazily opened connection behind a `@property`. */
const PROPERTY_DB = `
import sqlite3


class Database:
    def __init__(self, path):
        self.path = path
        self._conn = None

    @property
    def connection(self):
        if self._conn is None:
            self._conn = sqlite3.connect(self.path)
        return self._conn
`;

const PROPERTY: Modules = {
  'store.py': STORE,
  'db.py': PROPERTY_DB,
  'app.py': `
from db import Database
from store import Store


def main(path):
    db = Database(path)
    store = Store(db.connection)
    store.transfer(1, 2, 10)
    store.rename("alice", "bob")
    store.close_account(3)
`,
};

/** A context manager whose `__enter__` opens the connection. */
const ENTER: Modules = {
  'store.py': STORE,
  'db.py': `
import sqlite3


class Db:
    def __init__(self, path):
        self.path = path

    def __enter__(self):
        return sqlite3.connect(self.path)

    def __exit__(self, exc_type, exc, tb):
        return False
`,
  'app.py': `
from db import Db
from store import Store


def main(path):
    with Db(path) as c:
        store = Store(c)
        store.transfer(1, 2, 10)
        store.rename("alice", "bob")
        store.close_account(3)
`,
  'tools.py': TOOLS,
};

/** A private helper forwarding its own `**kwargs` to sqlite3.connect, called with detect_types only. */
const FORWARDING: Modules = {
  'store.py': STORE,
  'db.py': `
import sqlite3

from store import Store


class Database:
    def __init__(self, path):
        self.path = path

    def _connect(self, **kwargs):
        return sqlite3.connect(self.path, **kwargs)

    def open_store(self):
        return Store(self._connect(detect_types=sqlite3.PARSE_DECLTYPES))

    def open_reader(self):
        return self._connect(detect_types=sqlite3.PARSE_COLNAMES)
`,
  'app.py': `
from db import Database


def main(path):
    store = Database(path).open_store()
    store.transfer(1, 2, 10)
    store.rename("alice", "bob")
    store.close_account(3)
`,
};

/** The same, one level further: open_reader forwards its own `**kwargs` to _connect, and app.py calls it. */
const FORWARDING_TWICE = change(
  change(FORWARDING, 'db.py', ['    def open_reader(self):\n        return self._connect(detect_types=sqlite3.PARSE_COLNAMES)', '    def open_reader(self, **kwargs):\n        return self._connect(**kwargs)']),
  'app.py',
  ['    store.close_account(3)\n', '    store.close_account(3)\n    Database(path).open_reader(timeout=5.0).close()\n'],
);

/** tools.py also reads a sqlitedict cache, in its default (non-autocommit) mode said outright. */
const WRAPPER = change(DIRECT, 'tools.py', [
  'import sqlite3\n',
  'import sqlite3\n\nfrom sqlitedict import SqliteDict\n\n\ndef cache(path):\n    return SqliteDict(path, autocommit=False)\n',
]);

/** A settings object filled by computed names (setattr) in a repository that never spells the mode. */
const SETTINGS: Modules = {
  ...DIRECT,
  'settings.py': `
DEFAULTS = {"theme": "dark", "page_size": 50}


class Settings:
    def __init__(self, **overrides):
        for name, value in {**DEFAULTS, **overrides}.items():
            setattr(self, name, value)
`,
};

/** Store built at two places, both on default-mode connections. */
const TWO_SITES = change(DIRECT, 'app.py', [
  '    store.close_account(3)\n',
  '    store.close_account(3)\n\n\ndef close_all(path, accounts):\n    with sqlite3.connect(path) as conn:\n        for account in accounts:\n            Store(conn).close_account(account)\n',
]);

/** app.py hands the connection to its own function run(conn), which builds Store on it. */
const THROUGH_PARAMETER = change(
  DIRECT,
  'app.py',
  ['\n\ndef main(path):\n    store = Store(sqlite3.connect(path))\n', '\n\ndef run(conn):\n    store = Store(conn)\n'],
  ['    store.close_account(3)\n', '    store.close_account(3)\n\n\ndef main(path):\n    run(sqlite3.connect(path))\n'],
);

/** A subclass in another module, inheriting Store.__init__, built on a default-mode connection. */
const INHERITED_INIT: Modules = {
  ...DIRECT,
  'cached.py': `
import sqlite3

from store import Store


class CachedStore(Store):
    pass


def open_cached(url):
    return CachedStore(sqlite3.connect(url))
`,
};

/** A subclass in another module passing a default-mode connection to `super().__init__`. */
const SUPER_INIT: Modules = {
  ...DIRECT,
  'cached.py': `
import sqlite3

from store import Store


class CachedStore(Store):
    def __init__(self, url):
        super().__init__(sqlite3.connect(url))
`,
};

type Expected = 'quiet' | 'reported';

interface Case {
  name: string;
  modules: Modules;
  expected: Expected;
}

const cases: Case[] = [
  // Valid: the repository opens Store's connection in the default mode and nothing can switch any connection.
  { name: 'valid: app.py hands Store a fresh sqlite3.connect(path)', modules: DIRECT, expected: 'quiet' },
  { name: 'valid: the smallest two-module app (store.py, app.py)', modules: MINIMAL, expected: 'quiet' },
  { name: 'valid: the connection through a local variable', modules: LOCAL, expected: 'quiet' },
  { name: 'valid: `with sqlite3.connect(path) as conn:` (a sqlite3 connection enters as itself)', modules: WITH_CONNECTION, expected: 'quiet' },
  {
    name: 'valid: `import sqlite3 as lite`, lite.connect(path)',
    modules: change(DIRECT, 'app.py', ['import sqlite3\n', 'import sqlite3 as lite\n'], ['Store(sqlite3.connect(path))', 'Store(lite.connect(path))']),
    expected: 'quiet',
  },
  { name: "valid: gPodder's `from sqlite3 import dbapi2 as sqlite`, sqlite.connect(path)", modules: DBAPI2_ALIAS, expected: 'quiet' },
  {
    name: 'valid: `from sqlite3 import connect as open_db`, open_db(path)',
    modules: change(DIRECT, 'app.py', ['import sqlite3\n', 'from sqlite3 import connect as open_db\n'], ['Store(sqlite3.connect(path))', 'Store(open_db(path))']),
    expected: 'quiet',
  },
  { name: 'valid: a repository function opens and returns the connection', modules: OPENER_FUNCTION, expected: 'quiet' },
  // Partial on purpose: an attribute read off an object other than self (`db.connection`) is not followed to the
  // object's class, so a third-party object or an uncalled parameter with such an attribute cannot pass for one.
  { name: 'reported (not followed): a `@property` read off a local instance of another class', modules: PROPERTY, expected: 'reported' },
  { name: 'valid: `with Db(path) as c:`, Db.__enter__ returning sqlite3.connect(self.path)', modules: ENTER, expected: 'quiet' },
  { name: 'valid: a private `_connect(self, **kwargs)` forwarding to sqlite3.connect, every call passing detect_types only', modules: FORWARDING, expected: 'quiet' },
  { name: 'valid: forwarded two levels, the outer call in app.py passing timeout only', modules: FORWARDING_TWICE, expected: 'quiet' },
  {
    name: "valid: isolation_level='IMMEDIATE' (a string literal keeps the implicit transaction)",
    modules: change(DIRECT, 'app.py', ['Store(sqlite3.connect(path))', 'Store(sqlite3.connect(path, isolation_level="IMMEDIATE"))']),
    expected: 'quiet',
  },
  {
    name: 'valid: autocommit=False',
    modules: change(DIRECT, 'app.py', ['Store(sqlite3.connect(path))', 'Store(sqlite3.connect(path, autocommit=False))']),
    expected: 'quiet',
  },
  {
    name: 'valid: three positional arguments (database, timeout, detect_types)',
    modules: change(DIRECT, 'app.py', ['Store(sqlite3.connect(path))', 'Store(sqlite3.connect(path, 30.0, sqlite3.PARSE_DECLTYPES))']),
    expected: 'quiet',
  },
  {
    name: 'valid: sqlite3.Connection in an annotation, a cast and an isinstance elsewhere (no subclass, no value use)',
    modules: change(DIRECT, 'tools.py', [
      'import sqlite3\n',
      'import sqlite3\nfrom typing import cast\n\n\ndef size(conn: sqlite3.Connection, other):\n    assert isinstance(other, sqlite3.Connection)\n    return cast(sqlite3.Connection, other).total_changes\n',
    ]),
    expected: 'quiet',
  },
  { name: 'valid: a wrapper call passing autocommit=False elsewhere', modules: WRAPPER, expected: 'quiet' },
  { name: 'valid: a computed-name setattr elsewhere, no string naming the mode anywhere', modules: SETTINGS, expected: 'quiet' },
  { name: 'valid: Store built at two places, both on default-mode connections', modules: TWO_SITES, expected: 'quiet' },
  {
    name: 'valid: `cast(sqlite3.Connection, sqlite3.connect(path))` traces to its value',
    modules: change(DIRECT, 'app.py', ['import sqlite3\n', 'import sqlite3\nfrom typing import cast\n'], ['Store(sqlite3.connect(path))', 'Store(cast(sqlite3.Connection, sqlite3.connect(path)))']),
    expected: 'quiet',
  },
  {
    name: 'valid: Store(conn=sqlite3.connect(path)) by keyword',
    modules: change(DIRECT, 'app.py', ['Store(sqlite3.connect(path))', 'Store(conn=sqlite3.connect(path))']),
    expected: 'quiet',
  },
  { name: "valid: Store built on a parameter of app.py's run(conn), whose one call passes sqlite3.connect(path)", modules: THROUGH_PARAMETER, expected: 'quiet' },
  { name: "valid: a subclass inheriting Store.__init__, built on sqlite3.connect(url) in another module", modules: INHERITED_INIT, expected: 'quiet' },
  { name: 'valid: a subclass passing sqlite3.connect(url) to `super().__init__`', modules: SUPER_INIT, expected: 'quiet' },

  // Invariant near misses: somewhere in the repository a sqlite3 connection may be made autocommit.
  {
    name: "near miss: app.py's connect passes isolation_level=None",
    modules: change(DIRECT, 'app.py', ['Store(sqlite3.connect(path))', 'Store(sqlite3.connect(path, isolation_level=None))']),
    expected: 'reported',
  },
  {
    name: "near miss: app.py's connect passes autocommit=True",
    modules: change(DIRECT, 'app.py', ['Store(sqlite3.connect(path))', 'Store(sqlite3.connect(path, autocommit=True))']),
    expected: 'reported',
  },
  {
    name: 'near miss: a fourth positional argument (isolation_level None)',
    modules: change(DIRECT, 'app.py', ['Store(sqlite3.connect(path))', 'Store(sqlite3.connect(path, 30.0, sqlite3.PARSE_DECLTYPES, None))']),
    expected: 'reported',
  },
  {
    name: 'near miss: factory= (a connection class the repository does not show)',
    modules: change(DIRECT, 'app.py', ['import sqlite3\n', 'import sqlite3\n\nfrom sqltrace import TracedConnection\n'], ['Store(sqlite3.connect(path))', 'Store(sqlite3.connect(path, factory=TracedConnection))']),
    expected: 'reported',
  },
  {
    name: "near miss: `*args` in app.py's connect (main's own positional star)",
    modules: change(DIRECT, 'app.py', ['def main(path):', 'def main(path, *connect_args):'], ['Store(sqlite3.connect(path))', 'Store(sqlite3.connect(path, *connect_args))']),
    expected: 'reported',
  },
  {
    name: "near miss: `**opts` in app.py's connect, opts a plain parameter (not main's own `**`)",
    modules: change(DIRECT, 'app.py', ['def main(path):', 'def main(path, opts):'], ['Store(sqlite3.connect(path))', 'Store(sqlite3.connect(path, **opts))']),
    expected: 'reported',
  },
  {
    name: "near miss: the alias `sqlite` connects with isolation_level=None",
    modules: change(DBAPI2_ALIAS, 'app.py', ['Store(sqlite.connect(path))', 'Store(sqlite.connect(path, isolation_level=None))']),
    expected: 'reported',
  },
  {
    name: 'near miss: isolation_level=None on another connection, in tools.py (the invariant is repository-wide)',
    modules: change(DIRECT, 'tools.py', ['    copy = sqlite3.connect(target)', '    copy = sqlite3.connect(target, isolation_level=None)']),
    expected: 'reported',
  },
  {
    name: 'near miss: `conn.isolation_level = None` in tools.py',
    modules: change(DIRECT, 'tools.py', ['    conn.execute("VACUUM")', '    conn.isolation_level = None\n    conn.execute("VACUUM")']),
    expected: 'reported',
  },
  {
    name: "near miss: gPodder's VACUUM toggle in tools.py (a raise between leaves the connection in autocommit)",
    modules: change(DIRECT, 'tools.py', ['    conn.execute("VACUUM")', '    conn.isolation_level = None\n    conn.execute("VACUUM")\n    conn.isolation_level = ""']),
    expected: 'reported',
  },
  {
    name: 'near miss: `conn.autocommit = True` in tools.py',
    modules: change(DIRECT, 'tools.py', ['    conn.execute("VACUUM")', '    conn.autocommit = True\n    conn.execute("VACUUM")']),
    expected: 'reported',
  },
  {
    name: 'near miss: an unpacked assignment to `conn.isolation_level` in tools.py',
    modules: change(DIRECT, 'tools.py', ['    conn.execute("VACUUM")', '    conn.isolation_level, conn.row_factory = None, sqlite3.Row\n    conn.execute("VACUUM")']),
    expected: 'reported',
  },
  {
    name: "near miss: `setattr(conn, 'isolation_level', None)` in tools.py",
    modules: change(DIRECT, 'tools.py', ['    conn.execute("VACUUM")', '    setattr(conn, "isolation_level", None)\n    conn.execute("VACUUM")']),
    expected: 'reported',
  },
  {
    name: "near miss: `object.__setattr__(conn, 'isolation_level', None)` in tools.py",
    modules: change(DIRECT, 'tools.py', ['    conn.execute("VACUUM")', '    object.__setattr__(conn, "isolation_level", None)\n    conn.execute("VACUUM")']),
    expected: 'reported',
  },
  {
    name: 'near miss: the computed-name setattr, and "isolation_level" now a key of the options dict',
    modules: change(SETTINGS, 'settings.py', ['DEFAULTS = {"theme": "dark", "page_size": 50}', 'DEFAULTS = {"theme": "dark", "page_size": 50, "isolation_level": None}']),
    expected: 'reported',
  },
  {
    name: 'near miss: the computed-name setattr, and a docstring in tools.py spelling "Autocommit" (any case)',
    modules: change(SETTINGS, 'tools.py', ['def vacuum(path):\n', 'def vacuum(path):\n    """Autocommit is not needed: VACUUM runs outside any open transaction."""\n']),
    expected: 'reported',
  },
  {
    name: 'near miss: `opener = sqlite3.connect` in tools.py (the constructor as a value)',
    modules: change(DIRECT, 'tools.py', ['    source = sqlite3.connect(path)', '    opener = sqlite3.connect\n    source = opener(path)']),
    expected: 'reported',
  },
  {
    name: 'near miss: `functools.partial(sqlite3.connect, ...)` in tools.py',
    modules: change(DIRECT, 'tools.py', ['import sqlite3\n', 'import functools\nimport sqlite3\n\nslow_connect = functools.partial(sqlite3.connect, timeout=60)\n']),
    expected: 'reported',
  },
  {
    name: 'near miss: `class TracingConnection(sqlite3.Connection)` in tools.py',
    modules: change(DIRECT, 'tools.py', ['import sqlite3\n', 'import sqlite3\n\n\nclass TracingConnection(sqlite3.Connection):\n    pass\n']),
    expected: 'reported',
  },
  {
    name: 'near miss: the wrapper call passes autocommit=flag',
    modules: change(WRAPPER, 'tools.py', ['def cache(path):\n    return SqliteDict(path, autocommit=False)', 'def cache(path, flag):\n    return SqliteDict(path, autocommit=flag)']),
    expected: 'reported',
  },
  {
    name: 'near miss: another caller of _connect passes isolation_level=None through it',
    modules: change(FORWARDING, 'db.py', ['self._connect(detect_types=sqlite3.PARSE_COLNAMES)', 'self._connect(isolation_level=None)']),
    expected: 'reported',
  },
  {
    name: 'near miss: another caller of _connect passes `*self.connect_args`',
    modules: change(FORWARDING, 'db.py', ['self._connect(detect_types=sqlite3.PARSE_COLNAMES)', 'self._connect(*self.connect_args)']),
    expected: 'reported',
  },
  {
    name: 'near miss: another caller of _connect passes `**self.options` (not its own `**` parameter)',
    modules: change(FORWARDING, 'db.py', ['self._connect(detect_types=sqlite3.PARSE_COLNAMES)', 'self._connect(**self.options)']),
    expected: 'reported',
  },
  {
    name: 'near miss: another caller of _connect passes factory= through it',
    modules: change(FORWARDING, 'db.py', ['import sqlite3\n', 'import sqlite3\n\nfrom sqltrace import TracedConnection\n'], ['self._connect(detect_types=sqlite3.PARSE_COLNAMES)', 'self._connect(factory=TracedConnection)']),
    expected: 'reported',
  },
  {
    name: 'near miss: _connect spreads `**self.options` into sqlite3.connect (not its own `**` parameter)',
    modules: change(FORWARDING, 'db.py', ['return sqlite3.connect(self.path, **kwargs)', 'return sqlite3.connect(self.path, **self.options)']),
    expected: 'reported',
  },
  {
    name: 'near miss: _connect uses its kwargs other than as `**kwargs` (`kwargs.setdefault("isolation_level", None)`)',
    modules: change(FORWARDING, 'db.py', ['        return sqlite3.connect(self.path, **kwargs)', '        kwargs.setdefault("isolation_level", None)\n        return sqlite3.connect(self.path, **kwargs)']),
    expected: 'reported',
  },
  {
    name: 'near miss: _connect taken as a value (`self.reopen = self._connect`)',
    modules: change(FORWARDING, 'db.py', ['        self.path = path\n', '        self.path = path\n        self.reopen = self._connect\n']),
    expected: 'reported',
  },
  {
    name: 'near miss: forwarded two levels, the outer call in app.py passing isolation_level=None',
    modules: change(FORWARDING_TWICE, 'app.py', ['open_reader(timeout=5.0)', 'open_reader(isolation_level=None)']),
    expected: 'reported',
  },
  {
    name: 'near miss: forwarded two levels, the outer call spreading a module-level dict (`**READER_OPTIONS`)',
    modules: change(FORWARDING_TWICE, 'app.py', ['\n\ndef main(path):', '\nREADER_OPTIONS = {"timeout": 5.0}\n\n\ndef main(path):'], ['open_reader(timeout=5.0)', 'open_reader(**READER_OPTIONS)']),
    expected: 'reported',
  },

  // Origin near misses: the invariant holds, but Store's connection is not shown to come from a repository sqlite3 constructor.
  { name: 'near miss: Store never constructed in the repository (a library class: a parameter with no call site)', modules: without(DIRECT, 'app.py'), expected: 'reported' },
  {
    name: 'near miss: Store handed a third-party connection (`apsw_helpers.connect(path)`)',
    modules: change(DIRECT, 'app.py', ['import sqlite3\n', 'import sqlite3\n\nimport apsw_helpers\n'], ['Store(sqlite3.connect(path))', 'Store(apsw_helpers.connect(path))']),
    expected: 'reported',
  },
  {
    name: 'near miss: Store handed a module-level global, though it is sqlite3.connect(...) (globals are not followed)',
    modules: change(LOCAL, 'app.py', ['\n\ndef main(path):\n    conn = sqlite3.connect(path)\n', '\nconn = sqlite3.connect("bank.db")\n\n\ndef main(path):\n']),
    expected: 'reported',
  },
  {
    name: 'near miss: the connection unpacked from a tuple the repository function returns',
    modules: change(OPENER_FUNCTION, 'app.py', ['    return conn\n', '    return conn, conn.cursor()\n'], ['    conn = open_db(path)\n', '    conn, cursor = open_db(path)\n']),
    expected: 'reported',
  },
  {
    name: 'near miss: a second place builds Store on a third-party connection (every call site must trace)',
    modules: change(TWO_SITES, 'app.py', ['import sqlite3\n', 'import sqlite3\n\nimport apsw_helpers\n'], ['    with sqlite3.connect(path) as conn:\n        for', '    with apsw_helpers.connect(path) as conn:\n        for']),
    expected: 'reported',
  },
  {
    name: "near miss: a public setter (nobody in the repository calls it) may set the property's backing attribute",
    modules: change(PROPERTY, 'db.py', ['\n    @property\n', '\n    def attach(self, conn):\n        self._conn = conn\n\n    @property\n']),
    expected: 'reported',
  },
  {
    name: 'near miss: Db.__enter__ returns a third-party pool connection',
    modules: change(ENTER, 'db.py', ['import sqlite3\n', 'import sqlite3\n\nimport dbpool\n'], ['return sqlite3.connect(self.path)', 'return dbpool.acquire(self.path)']),
    expected: 'reported',
  },
  {
    name: 'near miss: app.py reassigns `store.conn` to a third-party connection (every `.conn = ...` anywhere counts)',
    modules: change(DIRECT, 'app.py', ['import sqlite3\n', 'import sqlite3\n\nimport apsw_helpers\n'], ['    store.close_account(3)\n', '    store.close_account(3)\n    store.conn = apsw_helpers.connect(path)\n']),
    expected: 'reported',
  },
  {
    name: 'near miss: a subclass of Store in another module sets self.conn from a third-party function',
    modules: {
      ...DIRECT,
      'cached.py': `
import apsw_helpers

from store import Store


class CachedStore(Store):
    def __init__(self, path):
        self.conn = apsw_helpers.connect(path)
`,
    },
    expected: 'reported',
  },
  {
    name: "near miss: run(conn) is never called in the repository (main removed): its parameter is not traced",
    modules: change(THROUGH_PARAMETER, 'app.py', ['\n\ndef main(path):\n    run(sqlite3.connect(path))\n', '\n']),
    expected: 'reported',
  },
  {
    name: 'near miss: run(conn) called with `*connections` (the argument is not seen)',
    modules: change(THROUGH_PARAMETER, 'app.py', ['    run(sqlite3.connect(path))\n', '    connections = [sqlite3.connect(path)]\n    run(*connections)\n']),
    expected: 'reported',
  },
  {
    name: 'near miss: Store taken as a value and called under another name on a third-party connection (a call site not spelled Store)',
    modules: change(DIRECT, 'app.py', ['import sqlite3\n', 'import sqlite3\n\nimport apsw_helpers\n'], ['    store.close_account(3)\n', '    store.close_account(3)\n\n\ndef open_remote(url):\n    factory = Store\n    return factory(apsw_helpers.connect(url))\n']),
    expected: 'reported',
  },
  {
    name: "near miss: the subclass inheriting Store.__init__ is built on a third-party connection (CachedStore(...) calls Store's __init__)",
    modules: change(INHERITED_INIT, 'cached.py', ['import sqlite3\n', 'import apsw_helpers\n'], ['CachedStore(sqlite3.connect(url))', 'CachedStore(apsw_helpers.connect(url))']),
    expected: 'reported',
  },
  {
    name: 'near miss: the subclass passes a third-party connection to `super().__init__`',
    modules: change(SUPER_INIT, 'cached.py', ['import sqlite3\n', 'import apsw_helpers\n'], ['super().__init__(sqlite3.connect(url))', 'super().__init__(apsw_helpers.connect(url))']),
    expected: 'reported',
  },
  {
    name: 'near miss: no sqlite3 constructor in the repository at all (app.py imports pysqlite3 under the name sqlite3)',
    modules: change(MINIMAL, 'app.py', ['import sqlite3\n', 'from pysqlite3 import dbapi2 as sqlite3\n']),
    expected: 'reported',
  },
  {
    name: 'near miss: apsw imported under the name sqlite3 (an apsw Connection does not open transactions by itself)',
    modules: change(MINIMAL, 'app.py', ['import sqlite3\n', 'import apsw as sqlite3\n'], ['Store(sqlite3.connect(path))', 'Store(sqlite3.Connection(path))']),
    expected: 'reported',
  },
  { name: 'near miss: store.py alone in the index', modules: { 'store.py': STORE }, expected: 'reported' },
];

describe('repository default-mode proof: Store in store.py, handed its connection by the rest of the repository', () => {
  it('reports the three findings on Store when no repository is given (a lone module changes nothing), even for a valid repository', () => {
    expect(storeFindings(DIRECT, 'none')).toEqual(REPORTED);
  });

  it('reports them when the index is not said to hold the whole repository (a bounded read may miss the module that switches)', () => {
    expect(storeFindings(DIRECT, 'partial')).toEqual(REPORTED);
  });

  for (const testCase of cases) {
    it(testCase.name, () => {
      expect(storeFindings(testCase.modules)).toEqual(testCase.expected === 'quiet' ? [] : REPORTED);
    });
  }
});
