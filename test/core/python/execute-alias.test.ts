// The execute-alias detector (src/core/python/execute-alias.ts), table style:
// each case a module, a function, and the database effects expected of it.
// Cases taken from diskcache/core.py (Debian's python3-diskcache 5.4.0-1, as the corpus runs it:
// /usr/lib/python3/dist-packages/diskcache/core.py; see harness/corpus/diskcache/SOURCE.md).
import { describe, expect, it } from 'vitest';
import { detectTxStyle } from '../../../src/core/python/tx-style.ts';
import { dbEffects, functionOf, moduleOf, py, type EffectCase } from './python-source.ts';



const DISKCACHE_CLASS = py`
  import sqlite3
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
              yield sql, self._names.append
          except BaseException:
              sql('ROLLBACK')
              raise
          else:
              sql('COMMIT')

      def _row_insert(self, key, raw, now, columns):
          sql = self._sql
          sql('INSERT INTO Cache(key, raw) VALUES (?, ?)', (key, raw))

      def touch(self, key, expire=None, retry=False):
          with self._transact(retry) as (sql, _):
              rows = sql('SELECT rowid FROM Cache WHERE key = ?', (key,)).fetchall()
              sql('UPDATE Cache SET expire_time = ? WHERE rowid = ?', (expire, rows[0][0]))
`;

const found: EffectCase[] = [
  {
    name: 'a local alias of conn.execute',
    code: py`
      def save(conn, a, b):
          sql = conn.execute
          sql("INSERT INTO t VALUES (?)", (a,))
          sql("UPDATE u SET x = ?", (b,))
    `,
    fn: 'save',
    effects: ['3 db-write write', '4 db-write write'],
  },
  {
    name: 'an alias of executemany',
    code: py`
      def save_all(conn, rows):
          many = conn.executemany
          many("INSERT INTO t VALUES (?)", rows)
    `,
    fn: 'save_all',
    effects: ['3 db-write write'],
  },
  {
    name: 'diskcache: sql = self._sql, _sql a property returning self._con.execute',
    code: DISKCACHE_CLASS,
    fn: 'Cache._row_insert',
    effects: ['23 db-write write'],
  },
  {
    name: 'diskcache: the context manager itself, BEGIN IMMEDIATE / ROLLBACK / COMMIT through the alias',
    code: DISKCACHE_CLASS,
    fn: 'Cache._transact',
    effects: ['12 db-begin begin', '16 db-rollback rollback', '19 db-commit commit'],
  },
  {
    name: 'diskcache: with self._transact() as (sql, _), the manager yielding the alias; its BEGIN first, its COMMIT/ROLLBACK after the block',
    code: DISKCACHE_CLASS,
    fn: 'Cache.touch',
    effects: ['26 db-begin begin', '27 db-read read', '28 db-write write', '26 db-rollback rollback', '26 db-commit commit'],
  },
];

const notFound: EffectCase[] = [
  {
    name: 'a name bound to something else',
    code: py`
      def log(logger, msg):
          sql = logger.info
          sql("INSERT INTO t VALUES (1)")
    `,
    fn: 'log',
    effects: [],
  },
  {
    name: 'a property that returns something other than execute',
    code: py`
      class C:
          @property
          def _sql(self):
              return self._log.write

          def f(self):
              sql = self._sql
              sql("DELETE FROM t")
    `,
    fn: 'C.f',
    effects: [],
  },
  {
    name: 'a plain method (not a property) named like one: self._sql is then a bound method, not execute',
    code: py`
      class C:
          def _sql(self):
              return self._con.execute

          def f(self):
              sql = self._sql
              sql("DELETE FROM t")
    `,
    fn: 'C.f',
    effects: [],
  },
  {
    name: 'partial: an alias passed in as a parameter is not followed (diskcache _cull(now, sql, cleanup))',
    code: py`
      def cull(now, sql, cleanup):
          sql("DELETE FROM Cache WHERE expire_time < ?", (now,))
    `,
    fn: 'cull',
    effects: [],
  },
];

describe('execute aliases', () => {
  for (const testCase of [...found, ...notFound]) {
    it(testCase.name, () => {
      expect(dbEffects(testCase.code, testCase.fn, 'sql-kind')).toEqual(testCase.effects);
    });
  }

  it('an alias running BEGIN IMMEDIATE gives the function an explicit transaction style', () => {
    const module = moduleOf(DISKCACHE_CLASS);
    expect(detectTxStyle(functionOf(module, 'Cache._transact'), module).style).toBe('explicit_begin');
  });
});
