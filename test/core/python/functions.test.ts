import { describe, expect, it } from 'vitest';
import { functionAtLine, listFunctions } from '../../../src/core/python/functions.ts';
import { functionOf, moduleOf, py } from './python-source.ts';

const source = py`
  import os

  def top(a, b=1, *args, c, **kwargs):
      def inner(x: int) -> int:
          return x
      return inner(a)

  class Store:
      @staticmethod
      def make(
          path: str,  # where
          mode: str = "w",
      ) -> "Store":
          pass

      async def save(self, /, item, *, force=False):
          class Local:
              def run(self):
                  pass

  if True:
      def conditional():
          pass
`;

describe('listFunctions', () => {
  const module = moduleOf(source);

  it('finds every function and method, nested ones included, with qualnames', () => {
    expect(listFunctions(module).map((fn) => fn.qualname)).toEqual([
      'top', 'top.inner', 'Store.make', 'Store.save', 'Store.save.Local.run', 'conditional',
    ]);
  });

  it('records params, async, class and a one-line signature', () => {
    const top = functionOf(module, 'top');
    expect(top.params).toEqual(['a', 'b', '*args', 'c', '**kwargs']);
    expect(top.isAsync).toBe(false);
    expect(top.className).toBeUndefined();
    const make = functionOf(module, 'Store.make');
    expect(make.signature).toBe('def make(path: str, mode: str = "w",) -> "Store":');
    expect(make.className).toBe('Store');
    expect(make.params).toEqual(['path', 'mode']);
    const save = functionOf(module, 'Store.save');
    expect(save.isAsync).toBe(true);
    expect(save.signature).toBe('async def save(self, /, item, *, force=False):');
    expect(save.params).toEqual(['self', 'item', 'force']);
    expect(functionOf(module, 'Store.save.Local.run').className).toBe('Local');
    expect(functionOf(module, 'top.inner').params).toEqual(['x']);
  });

  it('gives 1-based ranges and finds the innermost function of a line', () => {
    const inner = functionOf(module, 'top.inner');
    expect(inner.range.startLine).toBe(4);
    expect(inner.range.endLine).toBe(5);
    expect(functionAtLine(listFunctions(module), 5)?.qualname).toBe('top.inner');
    expect(functionAtLine(listFunctions(module), 6)?.qualname).toBe('top');
    // The decorator line belongs to the decorated method.
    expect(functionAtLine(listFunctions(module), 9)?.qualname).toBe('Store.make');
    expect(functionAtLine(listFunctions(module), 1)).toBeUndefined();
  });
});

describe('listFunctions in every kind of block', () => {
  // A tree without errors is listed by a query, a broken one by walking its blocks: both must name
  // the same functions, in source order, with the class of the innermost enclosing definition.
  const blocks = py`
    class Outer:
        if True:
            def guarded(self):
                pass
        try:
            def tried(self):
                pass
        except ImportError:
            def fallback(self):
                pass
        finally:
            pass

    for item in []:
        def looped():
            pass
    else:
        def after_loop():
            pass

    while False:
        @decorated
        async def waited():
            class Inner:
                def method(self):
                    def local():
                        pass

    with open("x") as f:
        def inside_with():
            pass

    match command:
        case "go":
            def in_case():
                pass
  `;
  const expected = [
    ['Outer.guarded', 'Outer'], ['Outer.tried', 'Outer'], ['Outer.fallback', 'Outer'], ['looped', undefined],
    ['after_loop', undefined], ['waited', undefined], ['waited.Inner.method', 'Inner'], ['waited.Inner.method.local', undefined],
    ['inside_with', undefined], ['in_case', undefined],
  ];

  it('lists definitions in if, try, loops, with and match blocks of a tree without errors', () => {
    const module = moduleOf(blocks);
    expect(module.tree.rootNode.hasError).toBe(false);
    expect(listFunctions(module).map((fn) => [fn.qualname, fn.className])).toEqual(expected);
  });

  it('lists the same definitions when a syntax error elsewhere breaks the tree', () => {
    const module = moduleOf(`${blocks}\nbroken = (\n`);
    expect(module.tree.rootNode.hasError).toBe(true);
    expect(listFunctions(module).map((fn) => [fn.qualname, fn.className])).toEqual(expected);
  });
});

describe('request keys', () => {
  it('finds a request id or idempotency key among the parameters, and nothing in a counter', async () => {
    const { requestKeyParam } = await import('../../../src/core/python/request-key.ts');
    const { parseModule } = await import('../../../src/core/python/parse.ts');
    const { listFunctions } = await import('../../../src/core/python/functions.ts');
    const fns = listFunctions(parseModule('x.py', 'def transfer(conn, source, target, amount, request_id=None):\n    pass\n\ndef pay(conn, *, idempotency_key: str):\n    pass\n\ndef incr(conn, name, by=1):\n    pass\n'));
    expect(fns.map((f) => requestKeyParam(f) ?? null)).toEqual(['request_id', 'idempotency_key', null]);
  });
});
