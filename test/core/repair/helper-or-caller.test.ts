// Writes made by helpers: the transaction goes at the helper when the helper
// commits them itself, at the caller when the caller commits for it. Both
// repairs are crash-tested with the real harness, both sqlite3 modes, on the
// fixtures in fixtures/transfer_via_helpers/.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessOptions } from '../crash/helpers.ts';
import { repairSolutions, type SolutionRepair } from './reference-repairs.ts';

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures/transfer_via_helpers');

describe('a repair at the helper or at the caller, chosen through the call graph', () => {
  let results: Map<string, SolutionRepair>;
  beforeAll(async () => {
    const solutions = ['caller_commits', 'helper_commits'].map((name) => ({ dir: path.join(FIXTURES, name), name, intended: 'unsafe' }));
    results = new Map((await repairSolutions(solutions, await harnessOptions(), undefined)).map((r) => [r.solution, r]));
  }, 300_000);

  it('finds both originals half-updated in autocommit mode', () => {
    for (const r of results.values()) expect(r.verdicts.some((v) => v.modes.autocommit.half_updated), r.solution).toBe(true);
  });

  it('begins at the caller, before the first helper call, when the caller commits the helpers\' writes', () => {
    const verified = results.get('caller_commits')!.result!.verified!;
    expect(verified.candidate.strategies).toEqual(['begin-commit']);
    expect(verified.verification.holds).toBe(true);
    expect(verified.candidate.source).toContain(
      '        return\n    if not conn.in_transaction:\n        conn.execute("BEGIN")\n    _debit(conn, from_id, amount)\n',
    );
  });

  it('begins in the helper, leaving the caller as written, when the helper commits its own writes', () => {
    const { verified, original } = results.get('helper_commits')!.result!;
    expect(verified!.candidate.strategies).toEqual(['begin-commit-at-helper']);
    expect(verified!.verification.holds).toBe(true);
    const source = verified!.candidate.source;
    expect(source).toContain('def _move_money(conn, from_id, to_id, amount, request_id):\n    if not conn.in_transaction:\n        conn.execute("BEGIN")\n');
    expect(source.slice(source.indexOf('def transfer'))).toBe(original.slice(original.indexOf('def transfer')));
  });
});
