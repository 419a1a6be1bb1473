// Two writes one of which sits in a branch that returns before the other is
// reached: no pass through the function runs both, so no crash can split them
// (vdirsyncer 0.19's SqliteStatus.rollback: remove_ident then return, else an
// INSERT). The near-misses keep both on one path: a loop around them, a try or
// a with that could swallow an exception raised before the return, a branch
// that does not leave, the other write before the branch.
import { describe, expect, it } from 'vitest';
import { writesRelyOnImplicitTransaction } from '../../../../src/core/python/rules/writes-rely-on-implicit-transaction.ts';
import { lint } from './rule-tester.ts';

function status(body: string): string {
  return `
import sqlite3

class Status:
    def __init__(self, path):
        self._c = sqlite3.connect(path)
        self._c.isolation_level = None

    def rollback(self, ident, a, b):
${body
  .split('\n')
  .map((line) => `        ${line}`)
  .join('\n')}
`;
}

const lines = (code: string): number[] => lint(code, [writesRelyOnImplicitTransaction]).map((finding) => finding.range.startLine);

describe('writes on paths that leave the function before each other', () => {
  it('is quiet on a write in a branch that returns before the other write (vdirsyncer)', () => {
    const code = status(`if a is None and b is None:
    self._c.execute("DELETE FROM status WHERE ident = ?", (ident,))
    return
self._c.execute("INSERT OR REPLACE INTO new_status VALUES (?, ?)", (ident, a))`);
    expect(lines(code)).toEqual([]);
  });

  it('is quiet when the branch raises', () => {
    const code = status(`if a is None:
    self._c.execute("DELETE FROM status WHERE ident = ?", (ident,))
    raise KeyError(ident)
self._c.execute("INSERT OR REPLACE INTO new_status VALUES (?, ?)", (ident, a))`);
    expect(lines(code)).toEqual([]);
  });

  const nearMisses: Array<[string, string]> = [
    [
      'the branch does not leave',
      `if a is None:
    self._c.execute("DELETE FROM status WHERE ident = ?", (ident,))
self._c.execute("INSERT OR REPLACE INTO new_status VALUES (?, ?)", (ident, a))`,
    ],
    [
      'the other write comes before the branch',
      `self._c.execute("INSERT OR REPLACE INTO new_status VALUES (?, ?)", (ident, a))
if a is None:
    self._c.execute("DELETE FROM status WHERE ident = ?", (ident,))
    return`,
    ],
    [
      'a try around the branch can swallow what is raised before the return',
      `try:
    if a is None:
        self._c.execute("DELETE FROM status WHERE ident = ?", (ident,))
        self.check(ident)
        return
except ValueError:
    pass
self._c.execute("INSERT OR REPLACE INTO new_status VALUES (?, ?)", (ident, a))`,
    ],
    [
      'a with around the branch can swallow what is raised before the return',
      `with contextlib.suppress(ValueError):
    if a is None:
        self._c.execute("DELETE FROM status WHERE ident = ?", (ident,))
        self.check(ident)
        return
self._c.execute("INSERT OR REPLACE INTO new_status VALUES (?, ?)", (ident, a))`,
    ],
    [
      'the return leaves only a nested function',
      `if a is None:
    self._c.execute("DELETE FROM status WHERE ident = ?", (ident,))
    def later():
        return
self._c.execute("INSERT OR REPLACE INTO new_status VALUES (?, ?)", (ident, a))`,
    ],
  ];
  for (const [name, body] of nearMisses) {
    it(`reports when ${name}`, () => {
      expect(lines(status(body)).length).toBe(1);
    });
  }

  it('reports when the function calls itself: one call runs both paths', () => {
    const code = `
import sqlite3

class Bank:
    def move(self, a, b, first=True):
        if not first:
            self.conn.execute("UPDATE acct SET bal = bal + 1 WHERE id = ?", (b,))
            return
        self.conn.execute("UPDATE acct SET bal = bal - 1 WHERE id = ?", (a,))
        self.move(a, b, first=False)
`;
    expect(lines(code).length).toBe(1);
  });

  it('reports when a loop runs the other write on an earlier pass', () => {
    const code = status(`while True:
    if a is None:
        self._c.execute("DELETE FROM status WHERE ident = ?", (ident,))
        return
    self._c.execute("UPDATE status SET n = ? WHERE ident = ?", (1, ident))
    a = self.next(a)`);
    expect(lines(code).length).toBe(1);
  });
});
