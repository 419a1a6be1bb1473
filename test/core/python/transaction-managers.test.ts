// Transactions opened by a context manager (src/core/python/effects.ts), table
// style: a manager named as a transaction (`with db.atomic():`) and a
// same-repository manager followed as a helper (diskcache's `_transact`) give a
// BEGIN where the block starts and a COMMIT/ROLLBACK where it ends, also to the
// callers of a helper that uses one. Cases from sqlite-utils/db.py and diskcache/core.py.
import { describe, expect, it } from 'vitest';
import { dbEffects, py, type EffectCase } from './python-source.ts';



const DISKCACHE = py`
  import contextlib as cl

  class Cache:
      @cl.contextmanager
      def _transact(self, retry=False):
          self._con.execute('BEGIN IMMEDIATE')
          try:
              yield self._con.execute, None
          except BaseException:
              self._con.execute('ROLLBACK')
              raise
          else:
              self._con.execute('COMMIT')

      def get(self, key, retry=False):
          with self._transact(retry) as (sql, _):
              self._con.execute('UPDATE Settings SET value = value + 1 WHERE key = "hits"')
              self._con.execute('UPDATE Cache SET access_count = access_count + 1 WHERE key = ?', (key,))

      def __getitem__(self, key):
          return self.get(key, retry=True)
`;

const cases: EffectCase[] = [
  {
    name: 'sqlite-utils: with self.db.atomic(): BEGIN before the block, COMMIT after it',
    code: py`
      class Table:
          def rebuild_fts(self, fts_table):
              with self.db.atomic():
                  self.db.execute("INSERT INTO t(t) VALUES('rebuild')")
                  self.db.execute("VACUUM")
              return self
    `,
    fn: 'Table.rebuild_fts',
    effects: ['3 db-begin', '4 db-write', '5 db-ddl', '3 db-commit'],
  },
  {
    name: 'Django: with transaction.atomic():',
    code: py`
      def move(cursor):
          with transaction.atomic():
              cursor.execute("UPDATE a SET n = n - 1")
              cursor.execute("UPDATE b SET n = n + 1")
    `,
    fn: 'move',
    effects: ['2 db-begin', '3 db-write', '4 db-write', '2 db-commit'],
  },
  {
    name: 'a call of atomic() that is not a with item is nothing',
    code: py`
      def f(db):
          db.atomic()
          db.execute("DELETE FROM t")
    `,
    fn: 'f',
    effects: ['3 db-write'],
  },
  {
    name: 'a method named begin() outside a with is nothing either',
    code: py`
      def f(parser):
          parser.begin()
    `,
    fn: 'f',
    effects: [],
  },
  {
    name: 'beets: with self.transaction() is the class\'s own method, followed as a helper (here it opens nothing), not taken by its name',
    code: py`
      class Database:
          def transaction(self):
              return Transaction(self)

          def _make_table(self, setup_sql):
              with self.transaction() as tx:
                  self._conn.execute(setup_sql)
    `,
    fn: 'Database._make_table',
    effects: ['7 db-write'],
  },
  {
    name: 'diskcache: the helper that uses the manager',
    code: DISKCACHE,
    fn: 'Cache.get',
    effects: ['16 db-begin', '17 db-write', '18 db-write', '16 db-rollback', '16 db-commit'],
  },
  {
    name: 'diskcache: a caller of that helper sees its transaction, not bare writes',
    code: DISKCACHE,
    fn: 'Cache.__getitem__',
    effects: ['21 db-begin', '21 db-write', '21 db-write', '21 db-rollback', '21 db-commit'],
  },
];

describe('transactions opened by context managers', () => {
  for (const testCase of cases) {
    it(testCase.name, () => {
      expect(dbEffects(testCase.code, testCase.fn, 'none')).toEqual(testCase.effects);
    });
  }
});
