// The review's repair step returns its findings and notes as new values: the
// findings it is given are left as they were (issue 12: repair mutated them).
// The harness is faked: it says every candidate holds, so the first deterministic
// repair is the verified one.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ScenarioVerdict } from '../../../src/core/crash/protocol.ts';
import type { ReviewFinding } from '../../../src/core/model/review.ts';
import type { HarnessRunner } from '../../../src/core/ports.ts';
import { analyzeModule } from '../../../src/core/python/analyze.ts';
import { buildRepoIndex } from '../../../src/core/python/callgraph.ts';
import { parseModule } from '../../../src/core/python/parse.ts';
import { repairReviewedFunctions } from '../../../src/core/repair/review-repairs.ts';
import { memoryStore } from '../../../src/core/review/verdict-cache.ts';

const MOVE = `import sqlite3


def move(conn, a, b):
    conn.execute("UPDATE t SET v = v - 1 WHERE id = ?", (a,))
    conn.execute("UPDATE t SET v = v + 1 WHERE id = ?", (b,))
    conn.commit()
`;

function verdict(root: string, klass: ScenarioVerdict['class']): ScenarioVerdict {
  const mode = (half: boolean) => ({ works: true, half_updated: half, crash_points: 2 });
  return {
    file: 'crash_scenarios.py', root, name: 'one_move', line: 1, target: 'app/move.py:move', resumable: false,
    class: klass, fully_crash_safe: klass === 'safe_by_design', double_applies: false,
    modes: { default: mode(false), autocommit: mode(klass !== 'safe_by_design') },
    failures: [], notes: [], harness_version: '1', isolation: 'fork',
  };
}

/** Freezes a value and everything in it, so that writing to any part of it throws. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('repairReviewedFunctions', () => {
  it('returns the repaired finding as a new value, with its suggestion, and leaves the given findings as they were', async () => {
    const checkout = mkdtempSync(path.join(os.tmpdir(), 'review-repairs-'));
    dirs.push(checkout);
    mkdirSync(path.join(checkout, 'app'));
    writeFileSync(path.join(checkout, 'app/move.py'), MOVE);
    writeFileSync(path.join(checkout, 'crash_scenarios.py'), '@scenario("app/move.py:move")\ndef one_move(world):\n    return {}\n');
    const module = parseModule('app/move.py', MOVE);
    const report = analyzeModule(module, buildRepoIndex([module]))[0]!;
    expect(report.fn.qualname).toBe('move');
    const harness: HarnessRunner = { run: async (files) => ({ scenarios: files.map((f) => verdict(f.root, 'safe_by_design')), errors: [], notes: [], runs: 1, seconds: 0 }) };
    const leading: ReviewFinding = {
      fingerprint: 'commit-without-begin:x', ruleId: 'commit-without-begin', source: 'static', severity: 'warning', path: 'app/move.py', function: 'move',
      range: { startLine: 7, startColumn: 4, endLine: 7, endColumn: 17 }, title: 'No BEGIN', message: 'commit() without BEGIN.',
    };
    const other: ReviewFinding = { ...leading, fingerprint: 'elsewhere', path: 'app/other.py', function: 'other' };
    const findings = deepFreeze([leading, other]);
    const inputOf = (given: readonly ReviewFinding[]) => ({
      functions: [{ module, report, verdicts: [verdict(checkout, 'unsafe')] }],
      checkout,
      scenarioFile: (p: string) => ({ file: path.join(checkout, p), root: checkout }),
      harness,
      findings: given,
      hunkLines: new Map([['app/move.py', new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])]]),
    });
    const done = await repairReviewedFunctions(inputOf(findings));
    expect(done.applicable).toHaveLength(1);
    expect(done.findings).toHaveLength(2);
    expect(done.findings[0]).not.toBe(leading);
    expect(done.findings[0]?.suggestion?.text).toContain('BEGIN');
    expect(done.findings[0]?.suggestion?.diff).toBeUndefined();
    expect(done.findings[1]).toBe(other);
    expect(leading.suggestion).toBeUndefined();
    expect(done.notes).toEqual([]);

    // Kept verifications are read back through their schema: a second review re-runs nothing, and a
    // kept value that does not parse is crash-tested again instead of being trusted.
    const cache = memoryStore();
    const input = { ...inputOf(findings), harness, cache };
    await repairReviewedFunctions(input);
    const refused: HarnessRunner = { run: async () => { throw new Error('the harness ran again'); } };
    const again = await repairReviewedFunctions({ ...input, harness: refused });
    expect(again.findings[0]?.suggestion).toEqual(done.findings[0]?.suggestion);
    for (const key of cache.entries.keys()) if (key.startsWith('repair:')) cache.entries.set(key, JSON.stringify({ holds: 'yes' }));
    await expect(repairReviewedFunctions({ ...input, harness: refused })).rejects.toThrow('the harness ran again');
  });
});
