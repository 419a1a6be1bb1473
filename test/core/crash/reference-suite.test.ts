// The paper's validation, our gate: every reference solution classified as intended,
// in both isolation modes, and a second campaign reproducing every outcome exactly.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CampaignResult, ScenarioVerdict } from '../../../src/core/crash/protocol.ts';
import { REFERENCE_DIR as REFERENCE, referenceSolutions } from '../../support/reference-solutions.ts';
import { crash } from './helpers.ts';

const reference = referenceSolutions();
const solutions = reference.map((s) => s.dir);

function byFolder(result: CampaignResult): Map<string, ScenarioVerdict[]> {
  const map = new Map<string, ScenarioVerdict[]>();
  for (const verdict of result.scenarios) map.set(verdict.root, [...(map.get(verdict.root) ?? []), verdict]);
  return map;
}

function outcomes(result: CampaignResult): string[] {
  return result.scenarios.map((v) =>
    JSON.stringify([v.root, v.name, v.class, v.double_applies, v.fully_crash_safe, v.modes,
      v.failures.map((f) => [f.mode, f.crash, f.point, f.outcome, f.half_updated, f.evidence])]),
  );
}

describe('reference suite', () => {
  const runs: Record<string, CampaignResult> = {};
  beforeAll(async () => {
    runs.fork = await crash(solutions, { isolation: 'fork' });
    runs.spawn = await crash(solutions, { isolation: 'spawn' });
    runs.again = await crash(solutions, { isolation: 'fork' });
  }, 900_000);

  it('has the 58 solutions of the paper: 24 safe by design, 11 by accident, 23 unsafe', () => {
    const classes = reference.map((s) => s.expected.class);
    const count = (k: string) => classes.filter((c) => c === k).length;
    expect({ total: solutions.length, design: count('safe_by_design'), accident: count('safe_by_accident'), unsafe: count('unsafe') })
      .toEqual({ total: 58, design: 24, accident: 11, unsafe: 23 });
  });

  for (const isolation of ['fork', 'spawn'] as const) {
    it(`classifies every solution as intended (${isolation})`, () => {
      const result = runs[isolation]!;
      expect(result.errors).toEqual([]);
      const verdicts = byFolder(result);
      const mismatches: string[] = [];
      for (const { dir: folder, expected } of reference) {
        const [verdict] = verdicts.get(folder) ?? [];
        const name = path.relative(REFERENCE, folder);
        if (!verdict) {
          mismatches.push(`${name}: no verdict`);
          continue;
        }
        if (verdict.class !== expected.class) mismatches.push(`${name}: class ${verdict.class}, intended ${expected.class}`);
        if (expected.double_applies !== null && verdict.double_applies !== expected.double_applies) {
          mismatches.push(`${name}: double_applies ${verdict.double_applies}, intended ${expected.double_applies}`);
        }
        if (verdict.fully_crash_safe !== expected.fully_crash_safe) {
          mismatches.push(`${name}: fully_crash_safe ${verdict.fully_crash_safe}, intended ${expected.fully_crash_safe}`);
        }
        if (expected.unsafe_only_under === 'hard') {
          const halfUpdatedBy = new Set(verdict.failures.filter((f) => f.half_updated && f.mode === 'default').map((f) => f.crash));
          if ([...halfUpdatedBy].join() !== 'hard') mismatches.push(`${name}: half-updated by ${[...halfUpdatedBy].join('+')} crashes, intended hard only`);
        }
      }
      expect(mismatches).toEqual([]);
    });
  }

  it('gives identical outcomes with the fork server and with a fresh interpreter per run', () => {
    expect(outcomes(runs.spawn!).map((o) => o.replace(/"isolation":"spawn"/g, ''))).toEqual(outcomes(runs.fork!));
  });

  it('reproduces every outcome exactly in a second campaign', () => {
    expect(outcomes(runs.again!)).toEqual(outcomes(runs.fork!));
  });
});
