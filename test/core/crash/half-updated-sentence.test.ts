// Evidence at a glance (issue 10, item 8): the half-updated sentence never says a value is
// "neither" two states when it equals one of them.
import { describe, expect, it } from 'vitest';
import type { EvidenceCell, Failure } from '../../../src/core/crash/protocol.ts';
import { consequence } from '../../../src/core/render/crash-figure.ts';

function failure(evidence: EvidenceCell[]): Failure {
  return { mode: 'default', crash: 'soft', point: { path: 'app/x.py', line: 3, call: 'execute', repetition: 1 } as Failure['point'], outcome: 'recovered', half_updated: true, evidence };
}

const row = (key: string, values: Record<string, string>): EvidenceCell => ({ db: 'app.db', table: 'items', key, column: '(row)', values });

describe('the half-updated sentence', () => {
  it('names a cell that is neither before nor normal, not the first cell', () => {
    const text = consequence(failure([
      row('a', { before: '(absent)', after_crash: "('a', 1)", after_rerun: "('a', 1)", normal: "('a', 1)" }),
      row('b', { before: "('b', 0)", after_crash: "('b', 5)", after_rerun: "('b', 1)", normal: "('b', 1)" }),
    ]));
    expect(text).toContain('neither');
    expect(text).toMatch(/row b/);
    expect(text).not.toMatch(/row a/);
  });

  it('says part is as before and part as after when every cell equals one of the two', () => {
    const text = consequence(failure([
      row('a', { before: '(absent)', after_crash: "('a', 1)", after_rerun: "('a', 1)", normal: "('a', 1)" }),
      row('b', { before: "('b', 0)", after_crash: "('b', 0)", after_rerun: "('b', 1)", normal: "('b', 1)" }),
    ]));
    expect(text).not.toContain('neither');
    expect(text).toMatch(/part of it is as before the run, part as after a normal run/);
  });
});
