// Methods that pass their SQL on to execute (src/core/python/execute-forwarder.ts),
// table style. The shape is beets' dbcore/db.py: Transaction.mutate / script, called
// as `tx.mutate(...)` inside `with self.db.transaction() as tx:`.
import { describe, expect, it } from 'vitest';
import { dbEffects, py, type EffectCase } from './python-source.ts';



const BEETS = py`
  class Transaction:
      def mutate(self, statement, subvals=()):
          with self._handle_mutate():
              return self.db._connection().execute(statement, subvals).lastrowid

      def script(self, statements):
          self._mutated = True
          self.db._connection().executescript(statements)

      def log(self, message):
          self.db._log.write(message)

  class Model:
      def remove(self):
          with self._db.transaction() as tx:
              tx.mutate(f"DELETE FROM {self._table} WHERE id=?", (self.id,))
              tx.mutate(f"DELETE FROM {self._flex_table} WHERE entity_id=?", (self.id,))

      def setup(self, sql):
          with self._db.transaction() as tx:
              tx.script(sql)

      def note(self, tx):
          tx.log("DELETE FROM nothing")
`;

const cases: EffectCase[] = [
  {
    name: 'beets Model.remove: tx.mutate read as execute with the caller\'s SQL, inside the transaction block',
    code: BEETS,
    fn: 'Model.remove',
    effects: ['15 db-begin -', '16 db-write write', '17 db-write write', '15 db-commit -'],
  },
  {
    name: 'a method forwarding to executescript',
    code: BEETS,
    fn: 'Model.setup',
    effects: ['20 db-begin -', '21 db-script unknown', '20 db-commit -'],
  },
  {
    name: 'a method that does not pass its first parameter to execute is no forwarder',
    code: BEETS,
    fn: 'Model.note',
    effects: [],
  },
  {
    name: 'a call of a name no method of the module forwards is nothing',
    code: py`
      def f(tx):
          tx.mutate("DELETE FROM t")
    `,
    fn: 'f',
    effects: [],
  },
];

describe('execute forwarders', () => {
  for (const testCase of cases) {
    it(testCase.name, () => {
      expect(dbEffects(testCase.code, testCase.fn, 'sql-kind')).toEqual(testCase.effects);
    });
  }
});
