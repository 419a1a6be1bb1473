import { describe, expect, it } from 'vitest';
import { analyzeModule } from '../../../src/core/python/analyze.ts';
import { buildRepoIndex } from '../../../src/core/python/callgraph.ts';
import { moduleOf, py } from './python-source.ts';

describe('analyzeModule', () => {
  const module = moduleOf(py`
    import sqlite3

    def pay(conn, orders):
        for order in orders:
            conn.execute("UPDATE orders SET paid = 1 WHERE id = ?", (order,))
            conn.commit()

    def read(conn):
        return conn.execute("SELECT * FROM orders").fetchall()

    def safe(conn, order):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE orders SET paid = 1 WHERE id = ?", (order,))
        conn.commit()
  `);

  it('reports every function with effects, style, writes flag and the rules’ findings', () => {
    const reports = analyzeModule(module);
    expect(reports.map((r) => [r.fn.qualname, r.txStyle.style, r.writes, r.effects.map((e) => e.kind).join(',')])).toEqual([
      ['pay', 'none', true, 'db-write,db-commit'],
      ['read', 'none', false, 'db-read'],
      ['safe', 'explicit_begin', true, 'db-begin,db-write,db-commit'],
    ]);
    // The rules are another module's job; here only that they run and land on the right function.
    const pay = reports[0]!;
    expect(pay.findings.length).toBeGreaterThan(0);
    expect(pay.findings.every((finding) => finding.function === 'pay' && finding.path === 'app/x.py')).toBe(true);
    expect(reports[1]!.findings).toEqual([]);
  });

  it('analyses only the functions asked for, with the repository index when given', () => {
    const repo = buildRepoIndex([module]);
    const reports = analyzeModule(module, repo, { only: [] });
    expect(reports).toEqual([]);
    const all = analyzeModule(module, repo);
    expect(all.map((r) => r.fn.qualname)).toEqual(['pay', 'read', 'safe']);
  });
});
