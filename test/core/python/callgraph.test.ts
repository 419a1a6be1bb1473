import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRepoIndex, partnersOf, repoHelperResolver, summarizeModule } from '../../../src/core/python/callgraph.ts';
import { findEffects } from '../../../src/core/python/effects.ts';
import { importBindings } from '../../../src/core/python/imports.ts';
import { detectTxStyle } from '../../../src/core/python/tx-style.ts';
import { parseFolder } from './python-files.ts';
import { functionOf } from './python-source.ts';

const root = join(import.meta.dirname, '../../fixtures/callgraph-repo');

const modules = parseFolder(root);
const index = buildRepoIndex(modules);
const byPath = (path: string) => modules.find((module) => module.path === path)!;

describe('imports', () => {
  it('makes relative imports absolute and keeps aliases', () => {
    expect(importBindings(byPath('shop/orders.py')).map(({ localName, module, name }) => [localName, module, name])).toEqual([
      ['sqlite3', 'sqlite3', undefined],
      ['shop', 'shop', undefined],
      ['db', 'shop', 'db'],
      ['receipt', 'shop.mail', 'send_receipt'],
      ['Order', 'shop.models', 'Order'],
    ]);
    expect(importBindings(byPath('shop/__init__.py'))).toEqual([{ localName: 'connect', module: 'shop.db', name: 'connect', line: 1 }]);
  });
});

describe('buildRepoIndex', () => {
  it('builds the same edges from summaries that release their calls, sharing equal targets and reasons', () => {
    const summaries = modules.map((module) => summarizeModule(module));
    const released = buildRepoIndex(summaries, { releaseCalls: true });
    expect(JSON.stringify(released.edges)).toBe(JSON.stringify(index.edges));
    expect(summaries.every((summary) => summary.calls.length === 0)).toBe(true);
    const unresolved = released.edges.filter((edge) => edge.reason === 'method on a receiver of unknown type');
    expect(unresolved.length).toBeGreaterThan(1);
    expect(new Set(unresolved.map((edge) => edge.targets)).size).toBe(1);
  });

  it('resolves calls through imports and names, says when it approximates, and why it cannot resolve', () => {
    const edges = index.edges
      .filter((edge) => edge.from.path === 'shop/orders.py' && edge.from.qualname === 'place')
      .map((edge) => [edge.callee, edge.resolution, edge.targets.map((t) => `${t.path}:${t.qualname}`).join(' '), edge.reason ?? '']);
    expect(edges).toEqual([
      ['db.begin', 'exact', 'shop/db.py:begin', ''],
      ['conn.execute', 'unresolved', '', 'method on a receiver of unknown type'],
      ['receipt', 'exact', 'shop/mail.py:send_receipt', ''],
      ['conn.commit', 'unresolved', '', 'method on a receiver of unknown type'],
      ['Order(order).save', 'approximate', 'shop/models.py:Order.save', 'method on a computed receiver: any method named save'],
      ['Order', 'exact', 'shop/models.py:Order.__init__', ''],
      ['shop.util.log', 'exact', 'shop/util.py:log', ''],
      ['getattr', 'unresolved', '', 'dynamic: getattr'],
      ['handler', 'unresolved', '', 'handler is not defined in the repository'],
      ['sqlite3.connect', 'unresolved', '', 'external: sqlite3.connect'],
      ['len', 'unresolved', '', 'builtin: len'],
    ]);
  });

  it('follows re-exports through a package __init__, star imports approximately, and self calls', () => {
    const run = index.edges.filter((edge) => edge.from.path === 'scripts/run.py');
    expect(run.map((edge) => [edge.from.qualname, edge.callee, edge.resolution, edge.targets.map((t) => `${t.path}:${t.qualname}`).join(' ')])).toEqual([
      ['main', 'connect', 'exact', 'shop/db.py:connect'],
      ['main', 'place', 'exact', 'shop/orders.py:place'],
      ['main', 'log', 'approximate', 'shop/util.py:log'],
      ['<module>', 'place', 'exact', 'shop/orders.py:place'],
    ]);
    const save = index.edges.filter((edge) => edge.from.qualname === 'Order.save');
    expect(save.map((edge) => [edge.callee, edge.resolution, edge.targets.map((t) => t.qualname).join(' '), edge.reason ?? ''])).toEqual([
      ['self._write', 'exact', 'Order._write', ''],
      ['self.touch', 'approximate', 'Base.touch', 'inherited method'],
    ]);
  });
});

describe('partnersOf', () => {
  it("gives a file's cross-file callers and callees with their source", () => {
    const { callers, callees } = partnersOf(index, 'shop/orders.py');
    expect(callers.map((s) => [s.path, s.qualname, s.resolution, s.range.startLine, s.range.endLine])).toEqual([
      ['scripts/run.py', 'main', 'exact', 6, 9],
      ['scripts/run.py', '<module>', 'exact', 9, 15],
    ]);
    expect(callers[0]!.text).toBe('def main(order):\n    conn = connect("shop.db")\n    place(conn, order)\n    log("done")');
    expect(callees.map((s) => `${s.path}:${s.qualname}:${s.resolution}`)).toEqual([
      'shop/db.py:begin:exact',
      'shop/mail.py:send_receipt:exact',
      'shop/models.py:Order.save:approximate',
      'shop/models.py:Order.__init__:exact',
      'shop/util.py:log:exact',
    ]);
    expect(callees[0]!.text).toBe('def begin(conn):\n    conn.execute("BEGIN IMMEDIATE")');
  });

  it('gives nothing for a file nobody calls and that calls nobody else', () => {
    expect(partnersOf(index, 'shop/util.py').callees).toEqual([]);
    expect(partnersOf(index, 'nope.py')).toEqual({ callers: [], callees: [] });
  });
});

describe('cross-file helpers', () => {
  it('attaches effects and transaction style of helpers in other files, one level, via the graph', () => {
    const orders = byPath('shop/orders.py');
    const place = functionOf(orders, 'place');
    const resolveHelper = repoHelperResolver(index);
    const effects = findEffects(place, orders, { resolveHelper });
    expect(effects.map((e) => [e.kind, e.call, e.via ? `${e.via.path}:${e.via.qualname}:${e.via.line}` : ''])).toEqual([
      ['db-begin', 'conn.execute', 'shop/db.py:begin:9'],
      ['db-write', 'conn.execute', ''],
      ['send', 'smtp.sendmail', 'shop/mail.py:send_receipt:6'],
      ['db-commit', 'conn.commit', ''],
    ]);
    expect(detectTxStyle(place, orders, { resolveHelper })).toEqual({ style: 'explicit_begin', evidence: [{ pattern: 'begin-via-helper', line: 9 }] });
    const main = functionOf(byPath('scripts/run.py'), 'main');
    expect(detectTxStyle(main, byPath('scripts/run.py'), { resolveHelper }).style).toBe('mode_change');
  });
});
