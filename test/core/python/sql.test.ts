import { describe, expect, it } from 'vitest';
import { classifySql, resolveSql } from '../../../src/core/python/sql.ts';
import type { SqlKind } from '../../../src/core/python/model.ts';
import { moduleOf, py } from './python-source.ts';

describe('classifySql', () => {
  const table: [string, SqlKind, string[]][] = [
    ['SELECT * FROM orders WHERE id = ?', 'read', ['orders']],
    ['select a.id from orders a join items i on i.oid = a.id', 'read', ['orders', 'items']],
    ['SELECT * FROM a, b AS bb WHERE 1', 'read', ['a', 'b']],
    ['WITH recent AS (SELECT * FROM orders) SELECT * FROM recent', 'read', ['orders']],
    ['WITH r AS (SELECT 1) INSERT INTO log SELECT * FROM r', 'write', ['log']],
    ['INSERT INTO orders (id) VALUES (?)', 'write', ['orders']],
    ['INSERT OR REPLACE INTO "Orders" VALUES (?)', 'write', ['orders']],
    ['REPLACE INTO kv VALUES (?, ?)', 'write', ['kv']],
    ['UPDATE accounts SET balance = balance - ? WHERE id = ?', 'write', ['accounts']],
    ['DELETE FROM main.sessions WHERE expires < ?', 'write', ['sessions']],
    ["UPDATE t SET note = 'delete from x' WHERE 1", 'write', ['t']],
    ['CREATE TABLE IF NOT EXISTS orders (id INTEGER)', 'ddl', ['orders']],
    ['ALTER TABLE orders ADD COLUMN paid INT', 'ddl', ['orders']],
    ['DROP TABLE IF EXISTS old', 'ddl', ['old']],
    ['CREATE UNIQUE INDEX ix ON orders(id)', 'ddl', ['orders']],
    ['BEGIN', 'begin', []],
    ['begin immediate transaction', 'begin', []],
    ['SAVEPOINT sp1', 'savepoint', []],
    ['RELEASE SAVEPOINT sp1', 'release', []],
    ['COMMIT', 'commit', []],
    ['END TRANSACTION', 'commit', []],
    ['ROLLBACK TO sp1', 'rollback', []],
    ['PRAGMA journal_mode = WAL', 'pragma', []],
    ['PRAGMA foreign_keys', 'read', []],
    ['PRAGMA table_info(orders)', 'read', []],
    ['  -- a comment\n  /* and this */ SELECT 1', 'read', []],
    ['listen "huey_queue"', 'pragma', []],
    ['UNLISTEN *', 'pragma', []],
    ["SET search_path TO app", 'pragma', []],
    ['SHOW server_version', 'read', []],
    ['{verb} INTO t VALUES (1)', 'unknown', []],
    ['', 'unknown', []],
  ];
  it.each(table)('%j is %s on %j', (text, kind, tables) => {
    const info = classifySql(text);
    expect(info.kind).toBe(kind);
    expect(info.tables).toEqual(tables);
  });

  it('gives a script the strongest kind of its statements and all its tables', () => {
    const info = classifySql('BEGIN; INSERT INTO a VALUES (1); UPDATE b SET x = 1; COMMIT;');
    expect(info.kind).toBe('write');
    expect(info.tables).toEqual(['a', 'b']);
  });

  it('keeps f-string placeholders out of table names', () => {
    expect(classifySql('DELETE FROM {table} WHERE id = ?').tables).toEqual([]);
  });
});

describe('resolveSql', () => {
  const module = moduleOf(py`
    INSERT_ORDER = "INSERT INTO orders (id) VALUES (?)"
    UPDATE_FMT = "UPDATE %s SET x = 1"

    def f(conn, table, n):
        conn.execute("SELECT * FROM a")
        conn.execute("INSERT INTO "
                     "b VALUES (?)")
        conn.execute(f"DELETE FROM {table} WHERE id = {n}")
        conn.execute("UPDATE c SET x = " + str(n))
        conn.execute("SELECT * FROM %s" % table)
        conn.execute("DELETE FROM {} WHERE 1".format(table))
        conn.execute(INSERT_ORDER)
        conn.execute(UPDATE_FMT % table)
        query = 'INSERT INTO d VALUES (1)'
        conn.execute(query)
        conn.execute(build_query())
        conn.execute("COMMIT" if n else "INSERT INTO e VALUES (1)")
  `);
  const args = module.tree.rootNode
    .descendantsOfType('call')
    .filter((call) => call.childForFieldName('function')?.text === 'conn.execute')
    .map((call) => call.childForFieldName('arguments')!.namedChildren[0]!);

  it('resolves literals, concatenations, f-strings, templates, locals and module constants', () => {
    expect(args.map((arg) => resolveSql(arg, module))).toEqual([
      { kind: 'read', tables: ['a'], text: 'SELECT * FROM a', resolvedFrom: 'literal' },
      { kind: 'write', tables: ['b'], text: 'INSERT INTO b VALUES (?)', resolvedFrom: 'concat' },
      { kind: 'write', tables: [], text: 'DELETE FROM {table} WHERE id = {n}', resolvedFrom: 'fstring' },
      { kind: 'write', tables: ['c'], text: 'UPDATE c SET x = {str(n)}', resolvedFrom: 'concat' },
      { kind: 'read', tables: [], text: 'SELECT * FROM %s', resolvedFrom: 'format' },
      { kind: 'write', tables: [], text: 'DELETE FROM {} WHERE 1', resolvedFrom: 'format' },
      { kind: 'write', tables: ['orders'], text: 'INSERT INTO orders (id) VALUES (?)', resolvedFrom: 'constant' },
      { kind: 'write', tables: [], text: 'UPDATE %s SET x = 1', resolvedFrom: 'format' },
      { kind: 'write', tables: ['d'], text: 'INSERT INTO d VALUES (1)', resolvedFrom: 'literal' },
      { kind: 'unknown', tables: [], resolvedFrom: 'unresolved' },
      { kind: 'write', tables: ['e'], text: 'COMMIT', resolvedFrom: 'literal' },
    ]);
  });
});
