import { describe, expect, it } from 'vitest';
import { callSkipsCommit } from '../../../src/core/python/commit-arguments.ts';
import { resolveLocalCall } from '../../../src/core/python/local-resolve.ts';
import { scopeFacts } from '../../../src/core/python/module-facts.ts';
import { functionOf, moduleOf, py } from './python-source.ts';

const module = moduleOf(py`
  class BukuDb:
      def add_rec(self, url, title_in=None, tags_in=None, desc=None, immutable=0, delay_commit=False, fetch=True):
          pass

      def append_tag_at_index(self, index, tags_in, delay_commit=False):
          pass

      def put(self, key, delay_commit=True):
          pass

      def save(self, key, *, commit=True):
          pass

      def caller(self, url, item, options):
          self.add_rec(url, 'title', ',a,', None, 0, True, False)
          self.add_rec(url, 'title', ',a,', None, 0, False, True)
          self.add_rec(*item)
          self.add_rec(url, *item)
          self.append_tag_at_index(1, ',a,', True)
          self.append_tag_at_index(1, ',a,')
          BukuDb.append_tag_at_index(self, 1, ',a,', True)
          self.put(url)
          self.put(url, **options)
          self.put(url, False)
          self.save(url, False)
          self.save(url, commit=False)
          self.add_rec(url, delay_commit=True)
`);

/** Each call of `caller`, as written, with whether it turns the callee's commit off. */
function judged(): [string, boolean][] {
  const caller = functionOf(module, 'BukuDb.caller');
  return scopeFacts(module, caller.node).calls.map(({ node }) => [node.text, callSkipsCommit(node, resolveLocalCall(node, module, caller))]);
}

describe('callSkipsCommit', () => {
  it('reads delay_commit/commit by keyword, by position against the callee\'s parameters, and from defaults; leaves *args (without the call site) and **kwargs unresolved', () => {
    expect(judged()).toEqual([
      ["self.add_rec(url, 'title', ',a,', None, 0, True, False)", true],
      ["self.add_rec(url, 'title', ',a,', None, 0, False, True)", false],
      // Without the call site the tuple is not traced (see below): taken to commit.
      ['self.add_rec(*item)', false],
      ['self.add_rec(url, *item)', false],
      ["self.append_tag_at_index(1, ',a,', True)", true],
      // Not passed: the default, False, commits.
      ["self.append_tag_at_index(1, ',a,')", false],
      // Called on the class, self passed explicitly: delay_commit is still the fourth argument.
      ["BukuDb.append_tag_at_index(self, 1, ',a,', True)", true],
      // Not passed: the default, True, delays the commit.
      ['self.put(url)', true],
      // **options may pass delay_commit=False: not resolved.
      ['self.put(url, **options)', false],
      ['self.put(url, False)', false],
      // commit is keyword-only: a second positional argument is not it.
      ['self.save(url, False)', false],
      ['self.save(url, commit=False)', true],
      ['self.add_rec(url, delay_commit=True)', true],
    ]);
  });

  it('judges keywords alone when the callee is not known', () => {
    const caller = functionOf(module, 'BukuDb.caller');
    const calls = scopeFacts(module, caller.node).calls.map(({ node }) => [node.text, callSkipsCommit(node)]);
    expect(calls.filter(([, skips]) => skips).map(([text]) => text)).toEqual(['self.save(url, commit=False)', 'self.add_rec(url, delay_commit=True)']);
  });
});

const importer = moduleOf(py`
  class BukuDb:
      def add_rec(self, url, title_in=None, tags_in=None, desc=None, immutable=0, delay_commit=False, fetch=True):
          pass

      def put(self, key, value=None, delay_commit=True):
          pass

      def records(self, rows):
          for row in rows:
              yield (row.url, row.title, None, None, 0, True, False)

      def without_url(self, rows):
          for row in rows:
              yield row.title, None, None, 0, True

      def keys(self, rows):
          for row in rows:
              yield (row.key,)

      def caller(self, rows, url, options):
          for item in self.records(rows):
              self.add_rec(*item)
          for rest in self.without_url(rows):
              self.add_rec(url, *rest)
          for literal in [(url, 't', None, None, 0, True, False), (url, 'u', None, None, 0, True, False)]:
              self.add_rec(*literal)
          for trailing in self.records(rows):
              self.add_rec(*trailing, False)
          for short in self.keys(rows):
              self.put(*short)
          for spread in self.keys(rows):
              self.put(*spread, **options)
          for mixed in [(url, 't', None, None, 0, True, False), (url, 'u', None, None, 0, False, False)]:
              self.add_rec(*mixed)
`);

describe('callSkipsCommit with the call site: *item read from the tuples the loop iterates', () => {
  it('reads the element at the parameter\'s place, offset by the arguments before the splat, or the default past a short tuple', () => {
    const caller = functionOf(importer, 'BukuDb.caller');
    const resolve = (call: Parameters<typeof resolveLocalCall>[0], from: typeof caller, module: typeof importer) => {
      const fn = resolveLocalCall(call, module, from);
      return fn && { fn, module };
    };
    const calls = scopeFacts(importer, caller.node).calls
      .filter(({ node }) => /^self\.(add_rec|put)\(/.test(node.text))
      .map(({ node }) => [node.text, callSkipsCommit(node, resolveLocalCall(node, importer, caller), { caller, module: importer, resolve })]);
    expect(calls).toEqual([
      ['self.add_rec(*item)', true],
      // After url, the tuple's fifth element (index 4) is delay_commit.
      ['self.add_rec(url, *rest)', true],
      ['self.add_rec(*literal)', true],
      // A positional argument after the splat: where it lands depends on the tuple's length, not read.
      ['self.add_rec(*trailing, False)', false],
      // (key,) leaves delay_commit to its default, True.
      ['self.put(*short)', true],
      // ... unless **options may pass it.
      ['self.put(*spread, **options)', false],
      // One tuple of two says False.
      ['self.add_rec(*mixed)', false],
    ]);
  });
});
