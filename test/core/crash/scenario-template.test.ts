// Scenario templates (issue 10, item 9): a method's template builds the instance and passes it as
// `self`; a parameter with a default is left out rather than passed as None.
import { describe, expect, it } from 'vitest';
import { analyzeModule } from '../../../src/core/python/analyze.ts';
import { parseModule } from '../../../src/core/python/parse.ts';
import { scenarioTemplate } from '../../../src/core/review/scenario-template.ts';

const SOURCE = `import sqlite3


class Ledger:
    def __init__(self, db_path, timeout=5.0):
        self.conn = sqlite3.connect(db_path, timeout=timeout)

    def transfer(self, src, dst, amount, note=None, *, retries=3):
        self.conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (amount, src))
        self.conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (amount, dst))
        self.conn.commit()


def archive(conn, order_id, reason: str = "done"):
    conn.execute("DELETE FROM orders WHERE id = ?", (order_id,))
    conn.commit()
`;

function template(qualname: string): string {
  const module = parseModule('app/ledger.py', SOURCE);
  const report = analyzeModule(module).find((r) => r.fn.qualname === qualname);
  expect(report, qualname).toBeDefined();
  const text = scenarioTemplate(module, report!);
  expect(text, qualname).toBeDefined();
  return text!;
}

describe('a scenario template', () => {
  it('for a method builds the instance and passes it as self, with the required arguments only', () => {
    const text = template('Ledger.transfer');
    expect(text).toContain('@scenario("app/ledger.py:Ledger.transfer")');
    expect(text).toContain('from app.ledger import Ledger');
    expect(text).toMatch(/instance = Ledger\(\n\s+db_path=world\.path\("db_path"\),/);
    expect(text).not.toMatch(/timeout=/);
    expect(text).toContain('"self": instance,');
    for (const p of ['src', 'dst', 'amount']) expect(text).toContain(`"${p}": `);
    for (const p of ['note', 'retries']) expect(text).not.toContain(`"${p}"`);
  });

  it('for a function passes no None for a parameter with a default', () => {
    const text = template('archive');
    expect(text).toContain('"conn": world.sqlite("app.db"),');
    expect(text).toContain('"order_id": None,  # TODO: a realistic value');
    expect(text).not.toContain('"reason"');
    expect(text).not.toContain('"self"');
  });
});
