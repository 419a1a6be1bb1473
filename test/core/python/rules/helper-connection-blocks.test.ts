// A function whose writes run inside its helpers' own `with conn:` blocks
// (IPython 8.5's HistoryManager.reset: end_session and new_session each write
// under `with self.db:` / `with conn:`). Each block commits at its end in the
// default mode: writes all in ONE such block are that block's, for
// with-conn-opens-no-transaction to speak for in the helper; spread over two
// blocks they are steps committed one after another, a real split in either
// mode (a debit in one helper's block, the credit in another's), and the
// message says so instead of blaming sqlite3's default mode.
import { describe, expect, it } from 'vitest';
import { writesRelyOnImplicitTransaction } from '../../../../src/core/python/rules/writes-rely-on-implicit-transaction.ts';
import { lint } from './rule-tester.ts';

const BANK = `
import sqlite3

class Bank:
    def _debit(self, a):
        with self.db:
            self.db.execute("UPDATE acct SET bal = bal - 1 WHERE id = ?", (a,))

    def _credit(self, b):
        with self.db:
            self.db.execute("UPDATE acct SET bal = bal + 1 WHERE id = ?", (b,))

    def _move(self, a, b):
        with self.db:
            self.db.execute("UPDATE acct SET bal = bal - 1 WHERE id = ?", (a,))
            self.db.execute("UPDATE acct SET bal = bal + 1 WHERE id = ?", (b,))

    def _move_elsewhere(self, a, b):
        with self.other:
            self.db.execute("UPDATE acct SET bal = bal - 1 WHERE id = ?", (a,))
            self.db.execute("UPDATE acct SET bal = bal + 1 WHERE id = ?", (b,))
`;

function findings(caller: string): Array<{ messageId: string | undefined; fn: string | undefined }> {
  return lint(`${BANK}
${caller}`, [writesRelyOnImplicitTransaction])
    .filter((finding) => finding.function === 'Bank.transfer')
    .map((finding) => ({ messageId: finding.messageId, fn: finding.function }));
}

describe("writes in helpers' own with-conn blocks", () => {
  it("is quiet when every write runs inside one helper's `with conn:` on the connection it writes on", () => {
    expect(findings(`    def transfer(self, a, b):
        self._move(a, b)
`)).toEqual([]);
  });

  it('reports separate steps when the writes are spread over two helpers\' blocks (each commits on its own)', () => {
    expect(findings(`    def transfer(self, a, b):
        self._debit(a)
        self._credit(b)
`)).toEqual([{ messageId: 'separateSteps', fn: 'Bank.transfer' }]);
  });

  it("reports separate steps when the caller writes on its own beside a helper's block", () => {
    expect(findings(`    def transfer(self, a, b):
        self._debit(a)
        self.db.execute("INSERT INTO log VALUES (?)", (a,))
`)).toEqual([
      { messageId: 'separateSteps', fn: 'Bank.transfer' },
    ]);
  });

  it("reports separate steps when one helper's block is passed twice", () => {
    expect(findings(`    def transfer(self, a, b):\n        self._debit(a)\n        self._debit(b)\n`)).toEqual([{ messageId: 'separateSteps', fn: 'Bank.transfer' }]);
  });

  it("reports separate steps when one helper's block is passed once per item of a loop", () => {
    expect(findings(`    def transfer(self, a, items):\n        for item in items:\n            self._move(a, item)\n`)).toEqual([{ messageId: 'separateSteps', fn: 'Bank.transfer' }]);
  });

  it("does not speak of separate steps when the caller's own write comes before the helper's block, which commits both", () => {
    expect(findings(`    def transfer(self, a, b):\n        self.db.execute("INSERT INTO log VALUES (?)", (a,))\n        self._debit(a)\n`).map((finding) => finding.messageId)).toEqual(['impliedTransaction']);
  });

  it("reports when the helper's with is on another connection than its writes", () => {
    expect(findings(`    def transfer(self, a, b):
        self._move_elsewhere(a, b)
`).map((finding) => finding.messageId)).toEqual(['impliedTransaction']);
  });
});
