import { describe, expect, it } from 'vitest';
import { detectTxStyle } from '../../../src/core/python/tx-style.ts';
import type { TxStyle } from '../../../src/core/python/model.ts';
import { functionOf, moduleOf, py } from './python-source.ts';

interface Case {
  name: string;
  source: string;
  style: TxStyle;
  patterns: string[];
}

const cases: Case[] = [
  {
    name: 'BEGIN literal',
    source: py`
      def target(conn):
          conn.execute("BEGIN")
          conn.execute("INSERT INTO t VALUES (1)")
          conn.commit()
    `,
    style: 'explicit_begin',
    patterns: ['begin-statement'],
  },
  {
    name: 'BEGIN IMMEDIATE TRANSACTION',
    source: py`
      def target(conn):
          conn.execute("begin immediate transaction")
          conn.execute("UPDATE t SET x = 1")
          conn.execute("COMMIT")
    `,
    style: 'explicit_begin',
    patterns: ['begin-immediate'],
  },
  {
    name: 'SAVEPOINT',
    source: py`
      def target(conn):
          conn.execute("SAVEPOINT sp")
          conn.execute("DELETE FROM t")
          conn.execute("RELEASE sp")
    `,
    style: 'explicit_begin',
    patterns: ['savepoint'],
  },
  {
    name: 'BEGIN or SAVEPOINT chosen by a conditional expression',
    source: py`
      def target(conn):
          own = not conn.in_transaction
          conn.execute("BEGIN IMMEDIATE" if own else "SAVEPOINT sp")
          conn.execute("INSERT INTO t VALUES (1)")
          conn.execute("COMMIT" if own else "RELEASE sp")
    `,
    style: 'explicit_begin',
    patterns: ['begin-immediate'],
  },
  {
    name: 'BEGIN inside executescript text',
    source: py`
      SCRIPT = """
      -- move the money
      BEGIN;
      UPDATE a SET x = 1;
      COMMIT;
      """
      def target(conn):
          conn.executescript(SCRIPT)
    `,
    style: 'explicit_begin',
    patterns: ['begin-in-script'],
  },
  {
    name: 'BEGIN issued by a helper (a context manager)',
    source: py`
      from contextlib import contextmanager
      @contextmanager
      def transaction(conn):
          conn.execute("BEGIN EXCLUSIVE")
          yield
          conn.execute("COMMIT")
      def target(conn):
          with transaction(conn):
              conn.execute("INSERT INTO t VALUES (1)")
    `,
    style: 'explicit_begin',
    patterns: ['begin-via-helper'],
  },
  {
    name: 'with conn: whose body starts with BEGIN',
    source: py`
      def target(conn):
          with conn:
              conn.execute("BEGIN")
              conn.execute("INSERT INTO t VALUES (1)")
    `,
    style: 'explicit_begin',
    patterns: ['with-conn', 'begin-statement'],
  },
  {
    name: 'with conn: that opens nothing',
    source: py`
      def target(conn, rows):
          with conn:
              conn.executemany("INSERT INTO t VALUES (?)", rows)
    `,
    style: 'with_conn',
    patterns: ['with-conn'],
  },
  {
    name: 'with self.db:',
    source: py`
      class Repo:
          def target(self):
              with self.db:
                  self.db.execute("DELETE FROM t")
    `,
    style: 'with_conn',
    patterns: ['with-conn'],
  },
  {
    name: 'with sqlite3.connect(...) as c:',
    source: py`
      import sqlite3
      def target(path):
          with sqlite3.connect(path) as c:
              c.execute("INSERT INTO t VALUES (1)")
    `,
    style: 'with_conn',
    patterns: ['with-connect-as'],
  },
  {
    name: 'with on a local connection of any name',
    source: py`
      import sqlite3
      def target(path):
          store = sqlite3.connect(path)
          with store:
              store.execute("INSERT INTO t VALUES (1)")
    `,
    style: 'with_conn',
    patterns: ['with-conn'],
  },
  {
    name: 'isolation_level assignment',
    source: py`
      def target(conn):
          conn.isolation_level = None
          conn.execute("INSERT INTO t VALUES (1)")
    `,
    style: 'mode_change',
    patterns: ['isolation-level-assign'],
  },
  {
    name: 'connect(isolation_level=...)',
    source: py`
      import sqlite3
      def target(path):
          conn = sqlite3.connect(path, isolation_level=None)
          conn.execute("INSERT INTO t VALUES (1)")
    `,
    style: 'mode_change',
    patterns: ['connect-isolation-level'],
  },
  {
    name: 'autocommit assignment',
    source: py`
      def target(conn):
          conn.autocommit = False
          conn.execute("INSERT INTO t VALUES (1)")
          conn.commit()
    `,
    style: 'mode_change',
    patterns: ['autocommit-assign'],
  },
  {
    name: 'connect(autocommit=...)',
    source: py`
      from sqlite3 import connect
      def target(path):
          conn = connect(path, autocommit=True)
          conn.execute("INSERT INTO t VALUES (1)")
    `,
    style: 'mode_change',
    patterns: ['connect-autocommit'],
  },
  {
    name: 'module-level connection opened in autocommit mode',
    source: py`
      import sqlite3
      DB = sqlite3.connect("app.db", isolation_level=None)
      def target(x):
          DB.execute("INSERT INTO t VALUES (?)", (x,))
    `,
    style: 'mode_change',
    patterns: ['module-connection-mode'],
  },
  {
    name: 'mode change made by a helper that opens the connection',
    source: py`
      import sqlite3
      def open_db(path):
          return sqlite3.connect(path, isolation_level=None)
      def target(path):
          conn = open_db(path)
          conn.execute("INSERT INTO t VALUES (1)")
    `,
    style: 'mode_change',
    patterns: ['mode-change-via-helper'],
  },
  {
    name: 'mode change beats with conn',
    source: py`
      def target(conn):
          conn.isolation_level = None
          with conn:
              conn.execute("INSERT INTO t VALUES (1)")
    `,
    style: 'mode_change',
    patterns: ['isolation-level-assign', 'with-conn'],
  },
  {
    name: 'none: commit at the end only',
    source: py`
      from contextlib import closing
      import threading
      def target(conn, lock, path):
          with lock, closing(conn.cursor()) as cur, open(path) as f:
              cur.execute("INSERT INTO t VALUES (1)")
          conn.commit()
    `,
    style: 'none',
    patterns: [],
  },
  {
    name: 'none: "begin" only inside a value, never as a statement',
    source: py`
      def target(conn):
          conn.execute("INSERT INTO notes VALUES ('BEGIN here')")
          conn.execute("SELECT * FROM t WHERE name = 'savepoint'")
    `,
    style: 'none',
    patterns: [],
  },
];

describe('detectTxStyle', () => {
  it.each(cases)('$name → $style', ({ source, style, patterns }) => {
    const module = moduleOf(source);
    const result = detectTxStyle(functionOf(module, target(module)), module);
    expect(result.style).toBe(style);
    expect(result.evidence.map((found) => found.pattern)).toEqual(patterns);
  });

  it('covers at least nine distinct patterns', () => {
    const patterns = new Set(cases.flatMap((found) => found.patterns));
    expect(patterns.size).toBeGreaterThanOrEqual(9);
  });

  it('records the line of each pattern', () => {
    const module = moduleOf(cases.find((found) => found.name === 'with conn: whose body starts with BEGIN')!.source);
    expect(detectTxStyle(functionOf(module, 'target'), module).evidence).toEqual([
      { pattern: 'with-conn', line: 2 },
      { pattern: 'begin-statement', line: 3 },
    ]);
  });
});

function target(module: ReturnType<typeof moduleOf>): string {
  return module.source.includes('class Repo') ? 'Repo.target' : 'target';
}
