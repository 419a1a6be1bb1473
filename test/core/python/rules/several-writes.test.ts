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
