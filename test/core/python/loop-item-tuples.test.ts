import { describe, expect, it } from 'vitest';
import { loopItemTuples, type FunctionResolver } from '../../../src/core/python/loop-item-tuples.ts';
import { resolveLocalCall } from '../../../src/core/python/local-resolve.ts';
import { functionOf, moduleOf, py } from './python-source.ts';

const module = moduleOf(py`
  RECORDS = [('a', True)]

  def walk(tree):
      for node in tree:
          if node.children:
              for child in walk(node.children):
                  yield child
          else:
              yield (node.url, True)

  def nested(tree):
      def inner(nodes):
          for node in nodes:
              yield node.url, True
              yield from inner(node.children)
      yield from inner(tree)

  def returns_list(tree):
      return [(node.url, True) for node in tree]

  def shapes(tree, given):
      for a in walk(tree):
          use(a)
      for b in nested(tree):
          use(b)
      listed = []
      if tree:
          listed = walk(tree)
      for c in listed:
          use(c)
      for d in RECORDS:
          use(d)
      for e in returns_list(tree):
          use(e)
      for f in given:
          use(f)
      def helper():
          closed = walk(tree)
      for g in closed:
          use(g)
`);

const resolve: FunctionResolver = (call, caller, from) => {
  const fn = resolveLocalCall(call, from, caller);
  return fn && { fn, module: from };
};

/** For each `use(x)` in shapes: the lines of the tuples x can hold, or undefined when not provable. */
function traced(): [string, number[] | undefined][] {
  const fn = functionOf(module, 'shapes');
  return fn.node.descendantsOfType('call')
    .filter((call) => call.text.startsWith('use('))
    .map((call) => {
      const name = call.childForFieldName('arguments')!.namedChildren[0]!;
      return [name.text, loopItemTuples(name, fn, module, resolve)?.map((tuple) => tuple.startPosition.row + 1)];
    });
}

describe('loopItemTuples', () => {
  it('follows generators (recursion, nested defs, yield from) and names assigned only such calls; nothing else', () => {
    expect(traced()).toEqual([
      // walk's recursive `yield child` adds nothing beyond its own tuple.
      ['a', [9]],
      ['b', [14]],
      // `listed = []` contributes no item.
      ['c', [9]],
      // A module global: never assigned in the function, not read.
      ['d', undefined],
      // Not a generator: what it returns is not read.
      ['e', undefined],
      // A parameter.
      ['f', undefined],
      // Assigned only inside a nested function, a different variable.
      ['g', undefined],
    ]);
  });
});
