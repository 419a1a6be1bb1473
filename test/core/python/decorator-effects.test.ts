// Effects a call of a decorated function has through its same-module
// decorator's wrapper (src/core/python/decorator-effects.ts), table style.
// The shape is persist-queue's sqlbase.py `with_conditional_transaction`.
import { describe, expect, it } from 'vitest';
import { dbEffects, py, type EffectCase } from './python-source.ts';



const PERSIST_QUEUE = py`
  def with_conditional_transaction(func):
      def _execute(obj, *args, **kwargs):
          with obj.tran_lock:
              with obj._putter as tran:
                  stat, param = func(obj, *args, **kwargs)
                  cur = tran.cursor()
                  cur.execute(stat, param)
                  cur.close()
                  tran.commit()
                  return cur.lastrowid

      return _execute


  class SQLiteQueue:
      _SQL_DELETE = 'DELETE FROM {table_name} WHERE {key_column} {op} ?'

      @with_conditional_transaction
      def _delete(self, key, op='='):
          sql = self._SQL_DELETE.format(table_name=self._table_name, key_column='_id', op=op)
          return sql, (key,)

      @with_conditional_transaction
      def _insert_into(self, *record):
          return 'INSERT INTO queue (data, timestamp) VALUES (?, ?)', record

      def _pop(self, rowid):
          self._delete(rowid)

      def put(self, obj):
          return self._insert_into(obj, 1.0)
`;

const cases: EffectCase[] = [
  {
    name: 'the caller of a decorated function gets the wrapper\'s execute, with the SQL the function returns (through a local)',
    code: PERSIST_QUEUE,
    fn: 'SQLiteQueue._pop',
    effects: ['28 db-write DELETE FROM {table_name} WHERE {key_column} {op} ?', '28 db-commit -'],
  },
  {
    name: 'the same with a literal returned',
    code: PERSIST_QUEUE,
    fn: 'SQLiteQueue.put',
    effects: ['31 db-write INSERT INTO queue (data, timestamp) VALUES (?, ?)', '31 db-commit -'],
  },
  {
    name: 'a decorator from elsewhere (not a function of the module) adds nothing',
    code: py`
      import functools

      class C:
          @functools.lru_cache
          def cached(self):
              return 1

          def f(self):
              return self.cached()
    `,
    fn: 'C.f',
    effects: [],
  },
  {
    name: 'a decorator whose wrapper has no effect adds nothing',
    code: py`
      def logged(func):
          def wrapper(*args):
              print(func.__name__)
              return func(*args)
          return wrapper

      @logged
      def compute(x):
          return x * 2

      def caller():
          return compute(3)
    `,
    fn: 'caller',
    effects: [],
  },
];

describe('decorator-built statements', () => {
  for (const testCase of cases) {
    it(testCase.name, () => {
      expect(dbEffects(testCase.code, testCase.fn, 'sql-text')).toEqual(testCase.effects);
    });
  }
});
