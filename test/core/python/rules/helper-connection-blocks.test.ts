// A function whose writes all run inside its helpers' own `with conn:` blocks
// (IPython 8.5's HistoryManager.reset: end_session and new_session each write
// under `with self.db:` / `with conn:`). Each block commits at its end in the
// default mode, and saves each write at once in autocommit: sqlite3's implicit
// transaction holds nothing of them together, so writes-rely-on-implicit-
// transaction has nothing to say; with-conn-opens-no-transaction speaks for
// each block in its helper. Near misses: a helper whose with is on another
// connection than its write, a helper without a with, a write of the caller's own.
import { describe, expect, it } from 'vitest';
import { writesRelyOnImplicitTransaction } from '../../../../src/core/python/rules/writes-rely-on-implicit-transaction.ts';
import { lint } from './rule-tester.ts';

function history(endSession: string, extra = ''): string {
  return `
import sqlite3

class HistoryManager:
    def end_session(self):
${endSession}

    def new_session(self, conn=None):
        if conn is None:
            conn = self.db
        with conn:
            conn.execute("INSERT INTO sessions VALUES (NULL, ?, NULL, NULL, '')", (1,))

    def reset(self):
        self.end_session()
${extra}        self.new_session()
`;
}

const findings = (code: string) => lint(code, [writesRelyOnImplicitTransaction]).map((finding) => `${finding.function}:${finding.range.startLine}`);

describe("writes in helpers' own with-conn blocks", () => {
  it('is quiet when every write runs inside its helper\'s `with conn:` on the connection it writes on (IPython)', () => {
    const code = history(`        with self.db:
            self.db.execute("UPDATE sessions SET end=? WHERE session=?", (2, 1))
            self.db.execute("DELETE FROM output_history")`);
    expect(findings(code)).toEqual([]);
  });

  it("reports when a helper's with is on another connection than its write", () => {
    const code = history(`        with self.other:
            self.db.execute("UPDATE sessions SET end=? WHERE session=?", (2, 1))
            self.db.execute("DELETE FROM output_history")`);
    expect(findings(code).filter((where) => where.startsWith('HistoryManager.reset:')).length).toBe(1);
  });

  it('reports when a helper writes outside any with', () => {
    const code = history(`        self.db.execute("UPDATE sessions SET end=? WHERE session=?", (2, 1))
        self.db.execute("DELETE FROM output_history")`);
    expect(findings(code).filter((where) => where.startsWith('HistoryManager.reset:')).length).toBe(1);
  });

  it('reports when the caller writes on its own beside the helpers', () => {
    const code = history(
      `        with self.db:
            self.db.execute("UPDATE sessions SET end=? WHERE session=?", (2, 1))`,
      `        self.db.execute("DELETE FROM output_history")
        self.db.execute("DELETE FROM history")
`,
    );
    expect(findings(code).filter((where) => where.startsWith('HistoryManager.reset')).length).toBe(1);
  });
});
