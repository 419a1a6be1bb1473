// caller-batch.ts: a helper's commit guarded by a batch flag (`if not self.__con: con.commit()`), in a function every
// repository path reaches only inside the batch the flag marks, is not a commit in a loop nor a commit without a
// BEGIN. Two shapes from real code: a plain opener/closer pair around the call (hamster's start_transaction /
// end_transaction) and a @contextmanager opener around the caller of the caller (khal's at_once). Each near-miss
// keeps the surface and breaks one part of the property; each must still be reported.
import { describe, expect, it } from 'vitest';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { scanRepository } from '../../../../src/core/python/scan.ts';
import { dedent } from './rule-tester.ts';

const RULES = new Set(['commit-in-loop', 'commit-without-begin']);

type Repository = Record<string, string>;

/** `rule function` for each finding of the two rules. */
function findings(repository: Repository): string[] {
  const modules = Object.entries(repository).map(([path, code]) => parseModule(path, dedent(code)));
  return scanRepository(modules).files.flatMap((file) =>
    file.reports.flatMap((report) => report.findings.filter((finding) => RULES.has(finding.ruleId)).map((finding) => `${finding.ruleId} ${finding.function ?? report.fn.qualname}`)),
  );
}

// hamster's shape: execute commits only when no batch is open; add_items opens one around the looping helper.
const PLAIN = `
  import sqlite3

  class Store:
      def __init__(self, path):
          self.path = path
          self.con = None
          self.__con = None
          self.__cur = None

      def get_connection(self):
          if self.con is None:
              self.con = sqlite3.connect(self.path)
          return self.con

      connection = property(get_connection, None)

      def execute(self, statement, params=()):
          con = self.__con or self.connection
          cur = self.__cur or con.cursor()
          cur.execute(statement, params)
          if not self.__con:
              con.commit()
              cur.close()

      def start_transaction(self):
          self.__con = self.connection
          self.__cur = self.__con.cursor()

      def end_transaction(self):
          self.__con.commit()
          self.__cur.close()
          self.__con, self.__cur = None, None

      def add_items(self, items):
          self.start_transaction()
          self.__add_items(items)
          self.end_transaction()

      def __add_items(self, items):
          for item in items:
              self.__insert(item)
              self.execute("UPDATE totals SET n = n + 1 WHERE id = 1")

      def __insert(self, item):
          self.execute("INSERT INTO items (name) VALUES (?)", (item,))
`;

// khal's shape: sql_ex commits only outside at_once(); the loop's function is reached through a bound method in a
// helper that only the with block calls.
const BACKEND = `
  import contextlib
  import sqlite3

  class Db:
      def __init__(self, path):
          self._at_once = False
          self.conn = sqlite3.connect(path)
          self.cursor = self.conn.cursor()

      @contextlib.contextmanager
      def at_once(self):
          assert not self._at_once
          self._at_once = True
          try:
              yield self
          except:
              raise
          else:
              self.conn.commit()
          finally:
              self._at_once = False

      def sql_ex(self, statement, stuple):
          self.cursor.execute(statement, stuple)
          result = self.cursor.fetchall()
          if not self._at_once:
              self.conn.commit()
          return result

      def update_dates(self, card, key):
          for date in card:
              self._insert(date, key)
              self.sql_ex("UPDATE counts SET n = n + 1 WHERE href = ?", (key,))

      def _insert(self, date, key):
          self.sql_ex("INSERT INTO events (item, href) VALUES (?, ?)", (date, key))
`;

const COLLECTION = `
  from backend import Db

  class Collection:
      def __init__(self, path):
          self._backend = Db(path)

      def refresh(self, cards):
          with self._backend.at_once():
              for key, card in cards:
                  self._update_one(key, card)

      def _update_one(self, key, card):
          update = self._backend.update_dates
          update(card, key)
`;

function plain(edit: (code: string) => string = (code) => code): Repository {
  return { 'store.py': edit(PLAIN) };
}

function managed(editBackend: (code: string) => string = (code) => code, editCollection: (code: string) => string = (code) => code): Repository {
  return { 'backend.py': editBackend(BACKEND), 'collection.py': editCollection(COLLECTION) };
}

function replaced(from: string, to: string): (code: string) => string {
  return (code) => {
    expect(code).toContain(from);
    return code.replace(from, to);
  };
}

describe('caller-batch: quiet where every path runs inside the batch', () => {
  it('plain opener and closer around the only call (hamster)', () => {
    expect(findings(plain())).toEqual([]);
  });

  it('a context manager opener around the caller of a bound method (khal)', () => {
    expect(findings(managed())).toEqual([]);
  });

  it('a helper between opener and call that does not touch the flag', () => {
    const edit = replaced('        self.start_transaction()\n        self.__add_items(items)', '        self.start_transaction()\n        self.execute("DELETE FROM staging")\n        self.__add_items(items)');
    expect(findings(plain((code) => edit(dedent(code))))).toEqual([]);
  });
});

// commit-without-begin: a function with several writes, each committed by the helper outside a batch.
const MOVE = (callers: string): Repository =>
  plain((code) =>
    dedent(code).replace(
      '    def __insert(self, item):',
      `${callers}\n    def __move(self, a, b):\n        self.__insert(b)\n        self.execute("DELETE FROM items WHERE name = ?", (a,))\n\n    def __insert(self, item):`,
    ),
  );

describe('caller-batch: commit-without-begin', () => {
  it('quiet when the only caller runs it inside the batch', () => {
    expect(findings(MOVE('    def move(self, a, b):\n        self.start_transaction()\n        self.__move(a, b)\n        self.end_transaction()\n'))).toEqual([]);
  });

  it('reported when a caller runs it outside the batch', () => {
    expect(findings(MOVE('    def move(self, a, b):\n        self.__move(a, b)\n'))).toContain('commit-without-begin Store.__move');
  });
});

describe('caller-batch: near-misses stay loud', () => {
  const loop = (repository: Repository, fn: string): void => {
    expect(findings(repository)).toContain(`commit-in-loop ${fn}`);
  };

  it('the function has a caller outside any batch', () => {
    const edit = replaced('    def __add_items(self, items):', '    def add_quick(self, items):\n        self.__add_items(items)\n\n    def __add_items(self, items):');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('the commit is not guarded by the flag', () => {
    const edit = replaced('        if not self.__con:\n            con.commit()', '        if self.path:\n            con.commit()');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('the guard is negated (commits only inside the batch)', () => {
    const edit = replaced('        if not self.__con:\n            con.commit()', '        if self.__con:\n            con.commit()');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('the opener is called through an alias of the object', () => {
    const edit = replaced('        self.start_transaction()\n        self.__add_items(items)', '        store = self\n        store.start_transaction()\n        self.__add_items(items)');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('the guard tests another flag than the opener sets', () => {
    const edit = replaced('        if not self.__con:\n            con.commit()', '        if not self.con:\n            con.commit()');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('the connection is opened in autocommit', () => {
    const edit = replaced('sqlite3.connect(self.path)', 'sqlite3.connect(self.path, isolation_level=None)');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('the closer runs in a finally, committing half a batch on an exception', () => {
    const edit = replaced(
      '        self.start_transaction()\n        self.__add_items(items)\n        self.end_transaction()',
      '        self.start_transaction()\n        try:\n            self.__add_items(items)\n        finally:\n            self.end_transaction()',
    );
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('an except handler swallows the exception and the closer then commits', () => {
    const edit = replaced(
      '        self.start_transaction()\n        self.__add_items(items)\n        self.end_transaction()',
      '        self.start_transaction()\n        try:\n            self.__add_items(items)\n        except Exception:\n            pass\n        self.end_transaction()',
    );
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('the batch is closed before the call', () => {
    const edit = replaced('        self.start_transaction()\n        self.__add_items(items)', '        self.start_transaction()\n        self.end_transaction()\n        self.__add_items(items)');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('a helper called before the call closes the batch', () => {
    const edit = (code: string): string =>
      replaced('        self.start_transaction()\n        self.__add_items(items)', '        self.start_transaction()\n        self.flush()\n        self.__add_items(items)')(code).replace(
        '    def add_items(self, items):',
        '    def flush(self):\n        self.end_transaction()\n\n    def add_items(self, items):',
      );
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('the looping function itself closes the batch inside the loop', () => {
    const edit = replaced('            self.execute("UPDATE totals SET n = n + 1 WHERE id = 1")', '            self.execute("UPDATE totals SET n = n + 1 WHERE id = 1")\n            self.end_transaction()\n            self.start_transaction()');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('the opener sets a value that may be falsy', () => {
    const edit = replaced('        self.__con = self.connection\n        self.__cur = self.__con.cursor()', '        self.__con = self.pending\n        self.__cur = self.connection.cursor()');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('the opener sets the flag only under a condition', () => {
    const edit = replaced('        self.__con = self.connection\n        self.__cur = self.__con.cursor()', '        if self.path:\n            self.__con = self.connection\n        self.__cur = self.connection.cursor()');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('the helper writes on another connection than it commits', () => {
    const edit = replaced('        cur = self.__cur or con.cursor()', '        cur = sqlite3.connect("other.db").cursor()');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('the context manager commits in its finally', () => {
    const edit = replaced('        finally:\n            self._at_once = False', '        finally:\n            self.conn.commit()\n            self._at_once = False');
    loop(managed((code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('the context manager swallows the exception', () => {
    const edit = replaced('        except:\n            raise', '        except:\n            pass');
    loop(managed((code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('another caller calls the bound method outside the with block', () => {
    const edit = replaced('    def _update_one(self, key, card):', '    def quick(self, key, card):\n        self._backend.update_dates(card, key)\n\n    def _update_one(self, key, card):');
    loop(managed(undefined, (code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('the batch object is reassigned outside __init__', () => {
    const edit = replaced('    def _update_one(self, key, card):', '    def reopen(self, path):\n        self._backend = Db(path)\n\n    def _update_one(self, key, card):');
    loop(managed(undefined, (code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('the with block opens the batch on another object', () => {
    const edit = replaced('        with self._backend.at_once():', '        with Db(":memory:").at_once():');
    loop(managed(undefined, (code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('the opener is decorated', () => {
    const edit = replaced('    def start_transaction(self):', '    @deferred\n    def start_transaction(self):');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('a method of the class sets attributes by computed name', () => {
    const edit = replaced('    def add_items(self, items):', '    def reset(self, name):\n        setattr(self, name, None)\n\n    def add_items(self, items):');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('the bound method escapes the helper', () => {
    const edit = replaced('        update(card, key)', '        update(card, key)\n        return update');
    loop(managed(undefined, (code) => edit(dedent(code))), 'Db.update_dates');
  });
});

// rev-B (stop 27): each near-miss an adversarial reviewer found hidden, in small form; each must be reported.
describe('caller-batch: rev-B near-misses stay loud', () => {
  const loop = (repository: Repository, fn: string): void => {
    expect(findings(repository)).toContain(`commit-in-loop ${fn}`);
  };
  const plainEdit = (from: string, to: string): Repository => plain((code) => replaced(from, to)(dedent(code)));
  const ADD_ITEMS = '    def add_items(self, items):\n        self.start_transaction()\n        self.__add_items(items)\n        self.end_transaction()\n';
  const addItems = (body: string, extra = ''): Repository => plainEdit(ADD_ITEMS, `${extra}    def add_items(self, groups):\n${body}`);

  it('case23: the caller handler continues on one path, raises on the other', () => {
    loop(
      addItems(
        '        self.start_transaction()\n        for items in groups:\n            try:\n                self.__add_items(items)\n            except sqlite3.IntegrityError as error:\n                if "UNIQUE" in str(error):\n                    continue\n                raise\n        self.end_transaction()\n',
      ),
      'Store.__add_items',
    );
  });

  it('case23c: the context manager handler returns on one path, raises on the other', () => {
    const edit = replaced('        except:\n            raise', '        except Exception as error:\n            if error.args:\n                return\n            raise');
    loop(managed((code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('case12: contextlib.suppress around the call inside the batch', () => {
    const edit = replaced('                self._update_one(key, card)', '                with contextlib.suppress(ValueError):\n                    self._update_one(key, card)');
    loop(managed(undefined, (code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('case11: a self-batching method called after the call in the batch loop', () => {
    loop(
      addItems(
        '        self.start_transaction()\n        for items in groups:\n            self.__add_items(items)\n            self.tag("imported")\n        self.end_transaction()\n',
        '    def tag(self, name):\n        self.start_transaction()\n        self.execute("INSERT INTO tags (name) VALUES (?)", (name,))\n        self.end_transaction()\n\n',
      ),
      'Store.__add_items',
    );
  });

  it('case18: a nested with-batch after the call in the batch loop', () => {
    const backend = replaced('    def _insert(self, date, key):', '    def set_ctag(self, ctag):\n        with self.at_once():\n            self.sql_ex("UPDATE meta SET ctag = ?", (ctag,))\n\n    def _insert(self, date, key):');
    const collection = replaced('                self._update_one(key, card)', '                self._update_one(key, card)\n                self._backend.set_ctag(key)');
    loop(managed((code) => backend(dedent(code)), (code) => collection(dedent(code))), 'Db.update_dates');
  });

  it('case01: the closer inside the loop that holds the call', () => {
    loop(addItems('        self.start_transaction()\n        for items in groups:\n            self.__add_items(items)\n            self.end_transaction()\n'), 'Store.__add_items');
  });

  it('case07: the context manager finally writes through the committing helper', () => {
    const edit = replaced('        finally:\n            self._at_once = False', '        finally:\n            self._at_once = False\n            self.sql_ex("UPDATE meta SET n = 1", ())');
    loop(managed((code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('case07b: the context manager finally calls a method that commits', () => {
    const edit = (code: string): string =>
      replaced('        finally:\n            self._at_once = False', '        finally:\n            self._at_once = False\n            self.save()')(code).replace('    def sql_ex(', '    def save(self):\n        self.conn.commit()\n\n    def sql_ex(');
    loop(managed((code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('case19: a subclass overrides the helper with an unconditional commit', () => {
    const edit = (code: string): string =>
      `${code}\n\nclass EagerDb(Db):\n    def sql_ex(self, statement, stuple):\n        self.cursor.execute(statement, stuple)\n        self.conn.commit()\n`;
    loop(managed((code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('case03: a subclass overrides the opener with a no-op', () => {
    const edit = (code: string): string => `${code}\n\nclass LazyStore(Store):\n    def start_transaction(self):\n        pass\n`;
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('case03c: a subclass overrides the context manager opener with a no-op one', () => {
    const edit = (code: string): string => `${code}\n\nclass LazyDb(Db):\n    @contextlib.contextmanager\n    def at_once(self):\n        yield self\n`;
    loop(managed((code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('case05b: getattr with a computed name on a family object', () => {
    const edit = (code: string): string => `${code}\n\ndef handle(db, kind, *args):\n    return getattr(db, 'update_' + kind)(*args)\n`;
    loop(managed(undefined, (code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('case22: the batch is opened in a generator that yields between calls', () => {
    loop(addItems('        self.start_transaction()\n        for items in groups:\n            self.__add_items(items)\n            yield len(items)\n        self.end_transaction()\n'), 'Store.__add_items');
  });

  it('case21: the batch region awaits between calls', () => {
    loop(
      plainEdit(ADD_ITEMS, '    async def add_items(self, groups):\n        self.start_transaction()\n        async for items in groups:\n            self.__add_items(items)\n        self.end_transaction()\n'),
      'Store.__add_items',
    );
  });

  it('case06b: the batch object is a property (nothing assigns it)', () => {
    const edit = replaced('        self._backend = Db(path)', '        self._backends = {"main": Db(path)}\n\n    @property\n    def _backend(self):\n        return self._backends["main"]');
    loop(managed(undefined, (code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('case06: the batch object is assigned in __init__ and also a property in the family', () => {
    const edit = (code: string): string => `${code}\n\nclass FreshCollection(Collection):\n    @property\n    def _backend(self):\n        return Db(":memory:")\n`;
    loop(managed(undefined, (code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('case13: the target is decorated (registered where no call is seen)', () => {
    const edit = (code: string): string =>
      replaced('    def update_dates(self, card, key):', '    @updater("vcard")\n    def update_dates(self, card, key):')(code).replace('class Db:', 'UPDATERS = {}\n\ndef updater(kind):\n    def register(fn):\n        UPDATERS[kind] = fn\n        return fn\n    return register\n\nclass Db:');
    loop(managed((code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('case13: the target is stored as a value in a dict', () => {
    const edit = (code: string): string => `${code}\n\nHANDLERS = {"dates": Db.update_dates}\n`;
    loop(managed(undefined, (code) => edit(dedent(code))), 'Db.update_dates');
  });

  it('case16: the caller handler rolls back another object and swallows', () => {
    loop(
      addItems(
        '        self.start_transaction()\n        for items in groups:\n            try:\n                self.__add_items(items)\n            except sqlite3.IntegrityError:\n                self.cache.rollback()\n        self.end_transaction()\n',
      ),
      'Store.__add_items',
    );
  });

  it('case15: a method called in the loop re-runs __init__ (clearing the flag)', () => {
    const edit = (code: string): string =>
      replaced('            self.__insert(item)', '            self.__insert(item)\n            self.reset()')(code).replace('    def add_items(self, items):', '    def reset(self):\n        self.__init__(self.path)\n\n    def add_items(self, items):');
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('case17: a subclass calls the private target by its mangled name', () => {
    const edit = (code: string): string => `${code}\n\nclass QuickStore(Store):\n    def quick(self, items):\n        self._Store__add_items(items)\n`;
    loop(plain((code) => edit(dedent(code))), 'Store.__add_items');
  });

  it('case02: the call is inside a lambda run after the batch closed', () => {
    loop(addItems('        self.start_transaction()\n        jobs = [lambda: self.__add_items(items) for items in groups]\n        self.end_transaction()\n        for job in jobs:\n            job()\n'), 'Store.__add_items');
  });

  it('case04: a subclass opener assigns its own mangled flag', () => {
    const store = replaced('    def __add_items(self, items):', '    def _add_items(self, items):\n        self.__add_items(items)\n\n    def __add_items(self, items):');
    const bulk = `
      from store import Store

      class BulkStore(Store):
          def begin_bulk(self):
              self.__con = self.connection
              self.__cur = self.__con.cursor()

          def import_items(self, items):
              self.begin_bulk()
              self._add_items(items)
    `;
    const repository = { 'store.py': store(dedent(PLAIN)), 'bulk.py': bulk };
    expect(findings(repository).some((finding) => finding.startsWith('commit-in-loop Store.'))).toBe(true);
  });
});

describe('caller-batch: rev-B controls stay quiet', () => {
  it('a caller handler that rolls back the batch connection and skips the group', () => {
    const edit = replaced(
      '    def add_items(self, items):\n        self.start_transaction()\n        self.__add_items(items)\n        self.end_transaction()\n',
      '    def add_items(self, groups):\n        self.start_transaction()\n        for items in groups:\n            try:\n                self.__add_items(items)\n            except sqlite3.IntegrityError:\n                self.connection.rollback()\n        self.end_transaction()\n',
    );
    expect(findings(plain((code) => edit(dedent(code))))).toEqual([]);
  });

  it('opener and closer inside the loop body around the call', () => {
    const edit = replaced(
      '    def add_items(self, items):\n        self.start_transaction()\n        self.__add_items(items)\n        self.end_transaction()\n',
      '    def add_items(self, groups):\n        for items in groups:\n            self.start_transaction()\n            self.__add_items(items)\n            self.end_transaction()\n',
    );
    // add_items's own end_transaction per group is a commit in a loop of its own; __add_items runs inside each batch.
    expect(findings(plain((code) => edit(dedent(code)))).filter((finding) => finding.includes('__add_items'))).toEqual([]);
  });
});
