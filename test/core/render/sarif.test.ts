import { describe, expect, it } from 'vitest';
import { FINGERPRINT_KEY, sarifLogSchema, toSarif } from '../../../src/core/render/sarif.ts';
import { comment, finding, sampleReview } from '../../adapters/github/fixtures.ts';

describe('toSarif', () => {
  it('writes SARIF 2.1.0 with one rule per rule id and 1-based columns', () => {
    const review = sampleReview([comment('fp-a', 3), comment('fp-b', 5)]);
    review.findings[1] = { ...finding('fp-b', 5), ruleId: 'commit-without-begin', severity: 'warning', source: 'crash', title: 'Commits without a BEGIN' };
    const sarif = toSarif(review, { toolVersion: '0.1.0' });
    expect(sarifLogSchema.safeParse(sarif).success).toBe(true);
    expect(sarif).toMatchSnapshot();
  });

  it('keeps partialFingerprints when the finding moves to another line', () => {
    const before = toSarif(sampleReview([comment('fp-a', 3)]));
    const moved = sampleReview([comment('fp-a', 3)]);
    moved.findings[0] = finding('fp-a', 40);
    const after = toSarif(moved);
    const fingerprints = (log: typeof before) => log.runs[0]!.results.map((r) => r.partialFingerprints[FINGERPRINT_KEY]);
    expect(fingerprints(after)).toEqual(fingerprints(before));
    expect(after.runs[0]!.results[0]!.locations[0]!.physicalLocation.region.startLine).toBe(40);
  });

  it('writes an empty run for a review without findings', () => {
    const sarif = toSarif(sampleReview([], { findings: [] }));
    expect(sarif.runs[0]!.results).toEqual([]);
    expect(sarif.runs[0]!.tool.driver.rules).toEqual([]);
  });
});
