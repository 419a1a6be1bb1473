// facts.ts severalWrites and describeWrites, through a helper: the writes of one call of it that can
// both run (its if/else arms cannot), that its call's arguments allow, and that a retry loop repeats.
import { describe, expect, it } from 'vitest';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { listFunctions } from '../../../../src/core/python/functions.ts';
import { findEffects } from '../../../../src/core/python/effects.ts';
import { describeWrites, severalWrites } from '../../../../src/core/python/rules/facts.ts';
import { dedent } from './rule-tester.ts';

/** The DML writes of `fnName` in the module, as the sqlite rules see them, with what the two helpers answer. */
function writesOf(code: string, fnName: string): { several: boolean; described: string } {
  const module = parseModule('snippet.py', dedent(code));
  const fn = listFunctions(module).find((candidate) => candidate.name === fnName)!;
  const writes = findEffects(fn, module).filter((effect) => effect.kind === 'db-write');
  return { several: severalWrites(writes, fn.node), described: describeWrites(writes) };
}

/** gPodder 3.11 Database._save_object (dbsqlite.py 202-224): INSERT when the object has no id, else UPDATE. */
function saveObject(elseArm = 'else:'): string {
  return `
class Database:
    def save_podcast(self, podcast):
        self._save_object(podcast, 'podcast', COLUMNS)

    def _save_object(self, o, table, columns):
        with self.lock:
            try:
                cur = self.cursor()
                if o.id is None:
                    cur.execute('INSERT INTO podcast (title) VALUES (?)', (o.title,))
                    o.id = cur.lastrowid
                ${elseArm}
                    cur.execute('UPDATE podcast SET title = ? WHERE id = ?', (o.title, o.id))
            except Exception as e:
                logger.error('Cannot save %s: %s', o, e)
            cur.close()
`;
}

describe('severalWrites through a helper', () => {
  it('gPodder save_podcast: the INSERT and UPDATE arms of one if/else are one write per call', () => {
    expect(writesOf(saveObject(), 'save_podcast')).toEqual({ several: false, described: '2 writes' });
  });

  it('two ifs on different tests in the helper can both run', () => {
    expect(writesOf(saveObject('if o.title:'), 'save_podcast').several).toBe(true);
  });

  it('an executemany arm the call turns off by its default, in a loop that only retries on failure: one write, said so', () => {
    const code = `
      import sqlite3

      def _log(conn, args, many=False):
          while True:
              try:
                  if many:
                      conn.executemany("INSERT INTO log (key) VALUES (?)", args)
                  else:
                      conn.execute("INSERT INTO log (key) VALUES (?)", args)
                  break
              except sqlite3.OperationalError:
                  pass

      def add(conn, key):
          conn.execute("DELETE FROM queue WHERE key = ?", (key,))
          _log(conn, (key,))
    `;
    expect(writesOf(code, 'add')).toEqual({ several: true, described: '2 writes' });
    expect(writesOf(code.replace('conn.execute("DELETE FROM queue WHERE key = ?", (key,))', 'pass'), 'add').several).toBe(false);
  });

  it('the same helper called with many=True: only its executemany arm counts, and it repeats', () => {
    const code = `
      import sqlite3

      def _log(conn, args, many=False):
          while True:
              try:
                  if many:
                      conn.executemany("INSERT INTO log (key) VALUES (?)", args)
                  else:
                      conn.execute("INSERT INTO log (key) VALUES (?)", args)
                  break
              except sqlite3.OperationalError:
                  pass

      def add(conn, rows):
          _log(conn, rows, True)
    `;
    expect(writesOf(code, 'add')).toEqual({ several: true, described: 'repeated writes' });
  });
});

/** The reviewer's near misses (holes 10-14 and the recursive default): each can save one write of a call without the other. */
describe('severalWrites through a helper: near misses that stay several', () => {
  it('a helper whose if arm calls the helper again with the flag off: one call runs both arms', () => {
    const code = `
      class Store:
          def _move(self, item_id, to_archive):
              if to_archive:
                  self.conn.execute("INSERT INTO archive SELECT * FROM items WHERE id = ?", (item_id,))
                  self._move(item_id, False)
              else:
                  self.conn.execute("DELETE FROM items WHERE id = ?", (item_id,))

          def archive(self, item_id, flag):
              self._move(item_id, flag)
    `;
    expect(writesOf(code, 'archive')).toEqual({ several: true, described: '2 writes' });
  });

  it('the same, the flag left to its True default: the else arm runs through the helper calling itself', () => {
    const code = `
      class Store:
          def _move(self, item_id, to_archive=True):
              if to_archive:
                  self.conn.execute("INSERT INTO archive SELECT * FROM items WHERE id = ?", (item_id,))
                  self._move(item_id, False)
              else:
                  self.conn.execute("DELETE FROM items WHERE id = ?", (item_id,))

          def archive(self, item_id):
              self._move(item_id)
    `;
    expect(writesOf(code, 'archive')).toEqual({ several: true, described: '2 writes' });
  });

  it('a helper whose == guards exclude each other, but whose first arm calls it again with the second value', () => {
    const code = `
      class Store:
          def _step(self, item_id, phase):
              if phase == "copy":
                  self.conn.execute("INSERT INTO archive SELECT * FROM items WHERE id = ?", (item_id,))
                  self._step(item_id, "drop")
              if phase == "drop":
                  self.conn.execute("DELETE FROM items WHERE id = ?", (item_id,))

          def archive(self, item_id, phase):
              self._step(item_id, phase)
    `;
    expect(writesOf(code, 'archive')).toEqual({ several: true, described: '2 writes' });
  });

  it('a helper’s write in an elif condition runs before its else arm’s write', () => {
    const code = `
      class Sessions:
          def _open(self, user, token, admin):
              if admin:
                  return
              elif self.conn.execute("DELETE FROM sessions WHERE user = ?", (user,)).rowcount > 100:
                  self.log.warning("flood")
              else:
                  self.conn.execute("INSERT INTO sessions(user, token) VALUES (?, ?)", (user, token))

          def login(self, user, token):
              self._open(user, token, self.is_admin(user))
    `;
    expect(writesOf(code, 'login')).toEqual({ several: true, described: '2 writes' });
  });

  it('the same in the function’s own code: a write in an elif condition and one in the else arm', () => {
    const code = `
      def login(conn, user, token, admin):
          if admin:
              return
          elif conn.execute("DELETE FROM sessions WHERE user = ?", (user,)).rowcount > 100:
              log.warning("flood")
          else:
              conn.execute("INSERT INTO sessions(user, token) VALUES (?, ?)", (user, token))
    `;
    expect(writesOf(code, 'login')).toEqual({ several: true, described: '2 writes' });
  });

  it('a helper that retries one INSERT, called in a while condition: one INSERT per pass of the caller’s loop', () => {
    const code = `
      import sqlite3, time

      class Q:
          def _append_next(self, it):
              item = next(it, None)
              if item is None:
                  return False
              while True:
                  try:
                      self.conn.execute("INSERT INTO log(msg) VALUES (?)", (item,))
                      return True
                  except sqlite3.OperationalError:
                      time.sleep(0.1)

          def copy_all(self, items):
              it = iter(items)
              while self._append_next(it):
                  pass
    `;
    expect(writesOf(code, 'copy_all')).toEqual({ several: true, described: 'repeated writes' });
  });

  it('a helper’s arm under a list default the helper fills in place: not dead for a call leaving it to the default', () => {
    const code = `
      class Store:
          def _tag(self, order, tags=[]):
              tags.extend(order.default_tags)
              if tags:
                  self.conn.execute("INSERT INTO order_tags(order_id, tags) VALUES (?, ?)", (order.id, ",".join(tags)))

          def save(self, order):
              self.conn.execute("INSERT INTO orders(id) VALUES (?)", (order.id,))
              self._tag(order)
    `;
    expect(writesOf(code, 'save')).toEqual({ several: true, described: '2 writes' });
  });

  it('the same, the call passing an empty list the helper fills in place', () => {
    const code = `
      class Store:
          def _tag(self, order, tags):
              tags.extend(order.default_tags)
              if tags:
                  self.conn.execute("INSERT INTO order_tags(order_id, tags) VALUES (?, ?)", (order.id, ",".join(tags)))

          def save(self, order):
              self.conn.execute("INSERT INTO orders(id) VALUES (?)", (order.id,))
              self._tag(order, [])
    `;
    expect(writesOf(code, 'save')).toEqual({ several: true, described: '2 writes' });
  });
});

describe('severalWrites in a function that calls itself', () => {
  it("counts both arms of a recursive function's own if/else: one call runs the INSERT, recurses, and the recursion runs the DELETE", () => {
    const code = `
      def move(conn, item, to_archive=True):
          if to_archive:
              conn.execute('INSERT INTO archive SELECT * FROM items WHERE id = ?', (item,))
              move(conn, item, False)
          else:
              conn.execute('DELETE FROM items WHERE id = ?', (item,))
    `;
    expect(writesOf(code, 'move').several).toBe(true);
  });
  it('the same arms without the recursive call are alternatives', () => {
    const code = `
      def move(conn, item, to_archive=True):
          if to_archive:
              conn.execute('INSERT INTO archive SELECT * FROM items WHERE id = ?', (item,))
          else:
              conn.execute('DELETE FROM items WHERE id = ?', (item,))
    `;
    expect(writesOf(code, 'move').several).toBe(false);
  });
});

describe('severalWrites in a helper reached again through another function (third reading)', () => {
  it("counts both arms when the helper's arm calls a function that calls the helper", () => {
    const code = `
      def _store(conn, key, value):
          if value is None:
              conn.execute('DELETE FROM kv WHERE k = ?', (key,))
              _again(conn, key)
          else:
              conn.execute('INSERT INTO kv VALUES (?, ?)', (key, value))

      def _again(conn, key):
          _store(conn, key, 0)

      def put(conn, key, value):
          _store(conn, key, value)
          conn.commit()
    `;
    expect(writesOf(code, 'put').several).toBe(true);
  });
  it("counts both arms of a function's own if/else when it is reached again through another", () => {
    const code = `
      def move(conn, item, to_archive=True):
          if to_archive:
              conn.execute('INSERT INTO archive SELECT * FROM items WHERE id = ?', (item,))
              again(conn, item)
          else:
              conn.execute('DELETE FROM items WHERE id = ?', (item,))

      def again(conn, item):
          move(conn, item, False)
    `;
    expect(writesOf(code, 'move').several).toBe(true);
  });
});

/** gajim 1.7.3 Cache.store_roster (common/storage/cache.py 257-268): INSERT, or UPDATE when the row is there. */
function insertOrUpdate(variant: { body?: string; caught?: string; after?: string; tail?: string; insert?: string } = {}): string {
  return `
import sqlite3

class Cache:
    def store_roster(self, account, serialized):
        insert_sql = 'INSERT INTO roster(account, roster) VALUES(?, ?)'
        update_sql = 'UPDATE roster SET roster = ? WHERE account = ?'
        try:
${variant.body ?? '            self._con.execute(insert_sql, (account, serialized))'}
        except ${variant.caught ?? 'sqlite3.IntegrityError'}:
            self._con.execute(update_sql, (serialized, account))
${variant.after ?? ''}
        self._delayed_commit()
${variant.tail ?? ''}`;
}

describe('severalWrites: an INSERT that ends a try body and its UPDATE on IntegrityError', () => {
  it('are alternatives: the UPDATE runs only when the INSERT raised, and a statement that raised wrote nothing', () => {
    expect(writesOf(insertOrUpdate(), 'store_roster').several).toBe(false);
  });
  it('are alternatives with `except IntegrityError as e` and with another module alias of it', () => {
    expect(writesOf(insertOrUpdate({ caught: 'IntegrityError as e' }), 'store_roster').several).toBe(false);
    expect(writesOf(insertOrUpdate({ caught: 'db.IntegrityError' }), 'store_roster').several).toBe(false);
  });
  it('are alternatives in a helper the caller reaches once', () => {
    const code = `${insertOrUpdate()}
    def save(self, account, serialized):
        self.store_roster(account, serialized)
`;
    expect(writesOf(code, 'save').several).toBe(false);
  });
  it('counts both when a write follows the INSERT in the try body (it can raise after the INSERT wrote)', () => {
    const body = `            self._con.execute(insert_sql, (account, serialized))
            self._con.execute('UPDATE meta SET n = n + 1')`;
    expect(writesOf(insertOrUpdate({ body }), 'store_roster').several).toBe(true);
  });
  it('counts both when anything follows the INSERT in the try body, even a call that writes nothing', () => {
    const body = `            self._con.execute(insert_sql, (account, serialized))
            self.check(account)`;
    expect(writesOf(insertOrUpdate({ body }), 'store_roster').several).toBe(true);
  });
  it('counts both for a broader except: Exception, bare, or IntegrityError with OperationalError', () => {
    for (const caught of ['Exception', 'sqlite3.Error', '(sqlite3.IntegrityError, sqlite3.OperationalError)']) {
      expect(writesOf(insertOrUpdate({ caught }), 'store_roster').several).toBe(true);
    }
    const bare = insertOrUpdate().replace('except sqlite3.IntegrityError:', 'except:');
    expect(writesOf(bare, 'store_roster').several).toBe(true);
  });
  it('counts both when the attempt is an executemany (it can fail on a later row, the earlier ones written)', () => {
    const body = '            self._con.executemany(insert_sql, [(account, serialized)])';
    expect(writesOf(insertOrUpdate({ body }), 'store_roster').several).toBe(true);
  });
  it('counts both for INSERT OR FAIL, which keeps the rows written before the failing one', () => {
    const body = "            self._con.execute('INSERT OR FAIL INTO roster(account, roster) SELECT a, r FROM staged')";
    expect(writesOf(insertOrUpdate({ body }), 'store_roster').several).toBe(true);
  });
  it('counts both for an INSERT of several rows (a table that keeps the rows before the failing one, MyISAM or ON CONFLICT FAIL, leaves some written)', () => {
    const body = "            self._con.execute('INSERT INTO roster(account, roster) VALUES (?, ?), (?, ?)', (account, serialized, 'x', 'y'))";
    expect(writesOf(insertOrUpdate({ body }), 'store_roster').several).toBe(true);
    const select = "            self._con.execute('INSERT INTO roster(account, roster) SELECT a, r FROM staged')";
    expect(writesOf(insertOrUpdate({ body: select }), 'store_roster').several).toBe(true);
  });
  it('counts both when the INSERT goes through a helper named execute, which can raise after its INSERT wrote', () => {
    const tail = `
    def execute(self, sql, args):
        self._con.execute('INSERT INTO roster(account, roster) VALUES(?, ?)', args)
        self.check(args)
`;
    const code = insertOrUpdate({ body: '            self.execute(insert_sql, (account, serialized))', tail });
    expect(writesOf(code, 'store_roster').several).toBe(true);
  });
  it('counts both when an argument of the INSERT is a call (it could write, then raise)', () => {
    const body = '            self._con.execute(insert_sql, (account, self.serialize(serialized)))';
    expect(writesOf(insertOrUpdate({ body }), 'store_roster').several).toBe(true);
  });
  it('counts both when the INSERT sits in a with block in the try (its __exit__ runs after the INSERT and can raise)', () => {
    const body = `            with self.lock:
                self._con.execute(insert_sql, (account, serialized))`;
    expect(writesOf(insertOrUpdate({ body }), 'store_roster').several).toBe(true);
  });
  it('counts the INSERT with a write after the try', () => {
    const after = "        self._con.execute('UPDATE meta SET changed = 1')";
    expect(writesOf(insertOrUpdate({ after }), 'store_roster').several).toBe(true);
  });
  it('counts both when the try has a finally or an else', () => {
    const withFinally = insertOrUpdate({ after: "        finally:\n            self._con.execute('UPDATE meta SET changed = 1')" });
    expect(writesOf(withFinally, 'store_roster').several).toBe(true);
    const withElse = insertOrUpdate({ after: "        else:\n            self._con.execute('UPDATE meta SET changed = 1')" });
    expect(writesOf(withElse, 'store_roster').several).toBe(true);
  });
  it('counts both in a function that calls itself (the except arm can reach an INSERT of another call of it)', () => {
    const tail = `
    def _again(self, account, serialized):
        self.store_roster(account, serialized)
`;
    const code = insertOrUpdate({ tail }).replace('        self._delayed_commit()', '        self._again(account, serialized)');
    expect(writesOf(code, 'store_roster').several).toBe(true);
  });
});

describe('the IntegrityError fallback through a wrapper named execute (second reading)', () => {
  it('a helper whose self.execute is the module\'s own wrapper (it writes an audit row first): several writes', () => {
    const code = `
      class Db:
          def execute(self, sql, args=()):
              self.conn.execute("INSERT INTO audit (q) VALUES (?)", (sql,))
              return self.conn.execute(sql, args)

          def upsert(self, x):
              try:
                  self.execute("INSERT INTO t (a) VALUES (?)", (x,))
              except sqlite3.IntegrityError:
                  self.execute("UPDATE t SET n = n + 1 WHERE a = ?", (x,))

          def main(self, x):
              self.upsert(x)
    `;
    expect(writesOf(code, 'main').several).toBe(true);
  });
});
