import { describe, expect, it } from 'vitest';
import { moduleFacts, scopeFacts } from '../../../src/core/python/module-facts.ts';
import { functionOf, moduleOf, py } from './python-source.ts';

const source = py`
  import os
  from a import b

  setup()

  def run(conn, items, ready):
      conn.execute("BEGIN")
      for item in fetch(items):
          conn.execute("INSERT", item)
          [save(x) for x in rows(item)]
      else:
          done()
      while poll(conn):
          step()
      later = lambda: conn.commit()
      with open("f") as f, lock():
          conn.isolation_level = None
      def inner():
          for y in ys:
              nested(y)
      return (lambda: [c() for c in cs])()
`;

const facts = (qualname?: string) => {
  const module = moduleOf(source);
  return scopeFacts(module, qualname ? functionOf(module, qualname).node : undefined);
};

describe('moduleFacts', () => {
  it('gives each function its own calls, in source order, with the loops that repeat them', () => {
    const calls = facts('run').calls.map((call) => [call.callee, call.loopDepth]);
    expect(calls).toEqual([
      ['conn.execute', 0],
      ['fetch', 0],
      ['conn.execute', 1],
      ['save', 2],
      ['rows', 2],
      ['done', 0],
      ['poll', 1],
      ['step', 1],
      ['open', 0],
      ['lock', 0],
      ['(lambda: [c() for c in cs])', 0],
    ]);
  });

  it('counts no repeat for a loop body that always leaves at its end and has no continue of its own', () => {
    const depths = (code: string) => {
      const module = moduleOf(code);
      const fn = module.tree.rootNode.descendantsOfType('function_definition')[0]!;
      return moduleFacts(module).scopes.get(fn.id)!.calls.map((call) => [call.callee, call.loopDepth]);
    };
    // queuelib 1.6 FifoSQLiteQueue.pop
    expect(depths('def pop(conn):\n    for id_, item in conn.execute(q):\n        conn.execute(d, (id_,))\n        return item\n')).toEqual([
      ['conn.execute', 0],
      ['conn.execute', 0],
    ]);
    expect(depths('def f(xs):\n    while more():\n        save(1)\n        break\n')).toEqual([['more', 1], ['save', 0]]);
    // A continue of its own, a leave that is not the last statement, or one only in a branch: it may go round again.
    expect(depths('def f(xs):\n    for x in xs:\n        if x:\n            continue\n        save(x)\n        return x\n')).toEqual([['save', 1]]);
    expect(depths('def f(xs):\n    for x in xs:\n        if x:\n            return x\n        save(x)\n')).toEqual([['save', 1]]);
    // A continue that belongs to an inner loop does not make the outer one go round again.
    expect(depths('def f(xs):\n    for x in xs:\n        for y in x:\n            continue\n        save(x)\n        return x\n')).toEqual([['save', 0]]);
  });

  it('keeps calls inside lambdas apart, and nested functions and top-level code to themselves', () => {
    expect(facts('run').lambdaCalls.map((call) => [call.callee, call.loopDepth])).toEqual([['conn.commit', 0], ['c', 1]]);
    expect(facts('run.inner').calls.map((call) => [call.callee, call.loopDepth])).toEqual([['nested', 1]]);
    expect(facts().calls.map((call) => call.callee)).toEqual(['setup']);
  });

  it('finds with items, mode assignments and every import', () => {
    const run = facts('run');
    expect(run.withItems.map((node) => node.text)).toEqual(['open("f") as f', 'lock()']);
    expect(run.modeAssignments.map((node) => node.text)).toEqual(['conn.isolation_level = None']);
    expect(moduleFacts(moduleOf(source)).imports.map((node) => node.text)).toEqual(['import os', 'from a import b']);
  });

  it('records a call range and reads no assignment text in a module that never names a mode', () => {
    const module = moduleOf('def f(c):\n    x = 1\n    c.close()\n');
    const [call] = scopeFacts(module, functionOf(module, 'f').node).calls;
    expect(call?.range).toEqual({ startLine: 3, startColumn: 4, endLine: 3, endColumn: 13 });
    expect(scopeFacts(module, functionOf(module, 'f').node).modeAssignments).toEqual([]);
  });
});
