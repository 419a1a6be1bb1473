import { describe, expect, it } from 'vitest';
import { findEffects, writesOutside } from '../../../src/core/python/effects.ts';
import type { Effect } from '../../../src/core/python/model.ts';
import { functionOf, moduleOf, py } from './python-source.ts';

function summary(effects: Effect[]): string[] {
  return effects.map((effect) => {
    const extras = [
      effect.mode !== undefined ? `mode=${effect.mode}` : '',
      effect.inLoop ? 'loop' : '',
      effect.via ? `via=${effect.via.qualname}@${effect.via.line}` : '',
      effect.idempotencyKey ? 'key' : '',
    ].filter(Boolean);
    return [`${effect.range.startLine}`, effect.kind, effect.call, ...extras].join(' ');
  });
}

const module = moduleOf(py`
  import os, io, codecs, shutil, smtplib, requests, httpx, sqlite3
  from pathlib import Path
  from urllib.request import urlopen, Request

  def db(conn, rows):
      conn.execute("SELECT 1 FROM t")
      for row in rows:
          conn.execute("INSERT INTO t VALUES (?)", row)
      conn.executemany("UPDATE t SET x = ?", rows)
      cur = conn.cursor()
      cur.execute("CREATE TABLE u (a)")
      conn.executescript("BEGIN; DELETE FROM t; COMMIT;")
      conn.execute("BEGIN IMMEDIATE")
      conn.execute(sql_from_somewhere)
      conn.commit()
      conn.rollback()

  def files(path, data):
      with open(path) as f:
          f.read()
      with open(path, "w") as f:
          f.write(data)
      open(path, mode="ab")
      io.open(path, "r+")
      codecs.open(path, "x", "utf-8")
      Path(path).open("w")
      Path(path).write_text(data)
      Path(path).write_bytes(b"")
      fd = os.open(path, os.O_WRONLY | os.O_CREAT)
      os.write(fd, b"x")
      os.rename(path, path + ".old")
      os.replace(path + ".tmp", path)
      shutil.move(path, "/tmp")
      Path(path).rename("b")
      Path(path).replace("c")
      os.remove(path)
      os.unlink(path)
      Path(path).unlink(missing_ok=True)
      shutil.rmtree(path)
      os.rmdir(path)
      "a-b".replace("-", "_")
      when.replace(tzinfo=None)

  def sends(mailer, msg, url, key):
      mailer.send(msg)
      send_email("a@b", "hi")
      smtplib.SMTP("localhost").sendmail("a", ["b"], "m")
      server.send_message(msg)
      requests.post(url, json={}, headers={"Idempotency-Key": key})
      requests.get(url)
      httpx.put(url, json={})
      client.post(url, json={}, idempotency_key=key)
      urlopen(url)
      urlopen(url, data=b"x")
      urlopen(Request(url, data=b"x"))
      headers = {"Idempotency-Key": key}
      requests.delete(url, headers=headers)

  def record(conn, item):
      conn.execute("INSERT INTO log VALUES (?)", (item,))

  class Service:
      def process(self, items):
          for item in items:
              record(self.conn, item)
          self._notify()

      def _notify(self):
          self.mailer.send("done")

      def outer(self):
          def nested():
              os.remove("x")
          return nested
`);

describe('findEffects', () => {
  it('finds database effects and classifies them through their SQL', () => {
    expect(summary(findEffects(functionOf(module, 'db'), module))).toEqual([
      '6 db-read conn.execute',
      '8 db-write conn.execute loop',
      '9 db-write conn.executemany',
      '11 db-ddl cur.execute',
      '12 db-script conn.executescript',
      '13 db-begin conn.execute',
      '14 db-write conn.execute',
      '15 db-commit conn.commit',
      '16 db-rollback conn.rollback',
    ]);
    const unresolved = findEffects(functionOf(module, 'db'), module)[6]!;
    expect(unresolved.sql).toEqual({ kind: 'unknown', tables: [], resolvedFrom: 'unresolved' });
  });

  it('finds file writes in write modes, renames, replaces and deletes, not reads or str.replace', () => {
    expect(summary(findEffects(functionOf(module, 'files'), module))).toEqual([
      '21 file-write open mode=w',
      '23 file-write open mode=ab',
      '24 file-write io.open mode=r+',
      '25 file-write codecs.open mode=x',
      '26 file-write Path().open mode=w',
      '27 file-write Path().write_text',
      '28 file-write Path().write_bytes',
      '29 file-write os.open mode=os.O_WRONLY | os.O_CREAT',
      '30 file-write os.write',
      '31 file-rename os.rename',
      '32 file-replace os.replace',
      '33 file-rename shutil.move',
      '34 file-rename Path().rename',
      '35 file-replace Path().replace',
      '36 file-delete os.remove',
      '37 file-delete os.unlink',
      '38 file-delete Path().unlink',
      '39 file-delete shutil.rmtree',
      '40 file-delete os.rmdir',
    ]);
  });

  it('sees no file in an archive opened with no name, written to the file object it is handed (dulwich tar_stream)', () => {
    const archives = moduleOf(py`
      import tarfile, gzip
      from io import BytesIO

      def in_memory(buf):
          with tarfile.open(None, 'w:gz', buf) as tar:
              tar.addfile(info)
          with tarfile.open(name=None, mode='w', fileobj=buf) as tar:
              tar.addfile(info)

      def named(path, buf):
          with tarfile.open(path, 'w:gz', buf) as tar:
              tar.addfile(info)
          with tarfile.open(name='out.tar', mode='w') as tar:
              tar.addfile(info)
    `);
    expect(summary(findEffects(functionOf(archives, 'in_memory'), archives))).toEqual([]);
    expect(summary(findEffects(functionOf(archives, 'named'), archives))).toEqual(['11 file-write tarfile.open mode=w:gz', '13 file-write tarfile.open mode=w']);
  });

  it('finds sends to outside services and notices idempotency keys', () => {
    expect(summary(findEffects(functionOf(module, 'sends'), module))).toEqual([
      '45 send mailer.send',
      '46 send send_email',
      '47 send smtplib.SMTP().sendmail',
      '48 send server.send_message',
      '49 send requests.post key',
      '51 send httpx.put',
      '52 send client.post key',
      '54 send urlopen',
      '55 send urlopen',
      '57 send requests.delete key',
    ]);
  });

  it('follows same-module helpers one level, anchored at the call, marked via', () => {
    const effects = findEffects(functionOf(module, 'Service.process'), module);
    expect(summary(effects)).toEqual([
      '65 db-write conn.execute loop via=record@60',
      '66 send self.mailer.send via=Service._notify@69',
    ]);
    expect(effects[0]!.via!.path).toBe('app/x.py');
    expect(effects[0]!.sql?.tables).toEqual(['log']);
    expect(writesOutside(effects)).toBe(true);
  });

  it("leaves nested functions' own effects out of the enclosing function", () => {
    expect(findEffects(functionOf(module, 'Service.outer'), module)).toEqual([]);
    expect(summary(findEffects(functionOf(module, 'Service.outer.nested'), module))).toEqual(['73 file-delete os.remove']);
    expect(writesOutside([])).toBe(false);
  });
});

describe('SQL followed through aliases and attributes; commits a call turns off', () => {
  const m = moduleOf(py`
    INSERT_LOG = "INSERT INTO log (msg) VALUES (?)"

    class Store:
        TABLE_SQL = "UPDATE accounts SET balance = balance - ? WHERE id = ?"

        def __init__(self, conn):
            self.conn = conn
            self._sql = "DELETE FROM sessions WHERE user_id = ?"

        def withdraw(self, amount, user):
            sql = self.TABLE_SQL
            self.conn.execute(sql, (amount, user))
            statement = INSERT_LOG
            self.conn.execute(statement, ("withdraw",))

        def logout(self, user):
            sql = self._sql
            self.conn.execute(sql, (user,))

    def save(conn, commit=True):
        conn.execute("INSERT INTO t VALUES (1)")
        if commit:
            conn.commit()

    def caller(conn):
        save(conn, commit=False)
        save(conn, delay_commit=True)
        conn.commit()
  `);

  it('resolves SQL from a class constant, an attribute set once in __init__ and a module constant, through a local alias', () => {
    const withdraw = findEffects(functionOf(m, 'Store.withdraw'), m);
    expect(withdraw.map((e) => [e.kind, e.sql?.tables])).toEqual([['db-write', ['accounts']], ['db-write', ['log']]]);
    const logout = findEffects(functionOf(m, 'Store.logout'), m);
    expect(logout.map((e) => [e.kind, e.sql?.tables])).toEqual([['db-write', ['sessions']]]);
  });

  it('drops the helper\'s commit when the call passes commit=False or delay_commit=True', () => {
    const kinds = findEffects(functionOf(m, 'caller'), m).map((e) => `${e.kind}${e.via ? ' via' : ''}`);
    expect(kinds).toEqual(['db-write via', 'db-write via', 'db-commit']);
  });
});
