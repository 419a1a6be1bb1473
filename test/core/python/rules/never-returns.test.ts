import { describe, expect, it } from 'vitest';
import { buildRepoIndex, repoHelperResolver } from '../../../../src/core/python/callgraph.ts';
import { resolveSameModuleHelper, type HelperResolver } from '../../../../src/core/python/effects.ts';
import { functionsByQualname } from '../../../../src/core/python/local-resolve.ts';
import type { PyModule } from '../../../../src/core/python/model.ts';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { neverReturns } from '../../../../src/core/python/rules/never-returns.ts';
import { dedent } from './rule-tester.ts';

function verdict(code: string, qualname = 'f', resolveHelper: HelperResolver = resolveSameModuleHelper, module: PyModule = parseModule('m.py', dedent(code))): boolean {
  const fn = functionsByQualname(module).get(qualname);
  if (!fn) throw new Error(`no function ${qualname} in the snippet`);
  return neverReturns({ fn, module }, resolveHelper);
}

describe('neverReturns', () => {
  it('follows every arm: a handler that re-raises, an else that raises, if/elif/else that all raise', () => {
    expect(verdict(`
      def f(x):
          try:
              g(x)
          except KeyError:
              raise LookupError(x)
          else:
              raise ValueError(x)
    `)).toBe(true);
    expect(verdict(`
      def f(x):
          if x == 1:
              raise A()
          elif x == 2:
              raise B()
          else:
              raise C()
    `)).toBe(true);
  });

  it('says "returns" when one arm can complete: a handler that completes, an elif with no else', () => {
    expect(verdict(`
      def f(x):
          try:
              raise ValueError(x)
          except ValueError:
              log(x)
    `)).toBe(false);
    expect(verdict(`
      def f(x):
          if x == 1:
              raise A()
          elif x == 2:
              raise B()
    `)).toBe(false);
  });

  it('says "returns" for what it does not model: a loop, a coroutine, a return before the raise', () => {
    expect(verdict(`
      def f(x):
          while True:
              raise ValueError(x)
    `)).toBe(false);
    expect(verdict(`
      async def f(x):
          raise ValueError(x)
    `)).toBe(false);
    expect(verdict(`
      def f(x):
          if x:
              return
          raise ValueError(x)
    `)).toBe(false);
  });

  it('follows a helper in another file when the resolver it is given knows it exactly', () => {
    const errors = parseModule('errors.py', dedent(`
      def reraise(exc_type, exc, tb):
          try:
              raise exc.with_traceback(tb)
          finally:
              del exc, tb
    `));
    const main = parseModule('main.py', dedent(`
      from errors import reraise as throw_again

      def f(exc_info):
          throw_again(*exc_info)
    `));
    const repo = buildRepoIndex([errors, main]);
    expect(verdict('', 'f', repoHelperResolver(repo), main)).toBe(true);
    // Same-module resolution cannot see it, and `throw_again` is no name it trusts.
    expect(verdict('', 'f', resolveSameModuleHelper, main)).toBe(false);
  });
});
