// The matcher on labelled finding pairs (same bug / different bug), including the
// hard cases: the same bug described differently, two bugs in one function, the
// same line with different root causes. The filter must keep every same-bug pair
// for the judge; the signals alone are measured, and must stay above a floor.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { components, duplicatePairs, evaluateFindings, llmJudge, signalsOnlyJudge, type PairJudge } from '../../../src/core/audit/matching.ts';
import { likelyPair, signals, signalsSayDuplicate, type MatchItem } from '../../../src/core/audit/similarity.ts';
import type { LlmClient } from '../../../src/core/ports.ts';
import { silentLogger } from '../../../src/core/ports.ts';

interface LabelledPair {
  id: string;
  label: 'same' | 'different';
  kind: string;
  note: string;
  a: MatchItem;
  b: MatchItem;
}

const LABELLED: LabelledPair[] = JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/audit/labelled-pairs.json'), 'utf8')).pairs;

describe('labelled pairs', () => {
  it('has at least 40 pairs with every hard case represented on the right side', () => {
    expect(LABELLED.length).toBeGreaterThanOrEqual(40);
    const kinds = (label: string) => new Set(LABELLED.filter((p) => p.label === label).map((p) => p.kind));
    expect(kinds('same')).toContain('described-differently');
    expect(kinds('different')).toContain('two-bugs-one-function');
    expect(kinds('different')).toContain('same-line-different-cause');
  });

  it('the six-signal filter keeps every same-bug pair for the judge', () => {
    const lost = LABELLED.filter((p) => p.label === 'same' && !likelyPair(signals(p.a, p.b))).map((p) => p.id);
    expect(lost).toEqual([]);
  });

  it('the filter drops the plainly unrelated pairs without a judge call', () => {
    const kept = LABELLED.filter((p) => p.label === 'different' && p.kind === 'easy').map((p) => likelyPair(signals(p.a, p.b)));
    expect(kept).toEqual(kept.map(() => false));
  });

  it('signals alone get the easy pairs right', () => {
    for (const p of LABELLED.filter((x) => x.kind === 'easy')) expect([p.id, signalsSayDuplicate(signals(p.a, p.b))]).toEqual([p.id, p.label === 'same']);
  });

  it('signals alone stay at or above their measured precision and recall on the table (floors, not targets)', () => {
    const said = LABELLED.map((p) => signalsSayDuplicate(signals(p.a, p.b)));
    const tp = LABELLED.filter((p, i) => p.label === 'same' && said[i]).length;
    const fp = LABELLED.filter((p, i) => p.label === 'different' && said[i]).length;
    const fn = LABELLED.filter((p, i) => p.label === 'same' && !said[i]).length;
    expect(tp / (tp + fp)).toBeGreaterThanOrEqual(0.6);
    expect(tp / (tp + fn)).toBeGreaterThanOrEqual(0.5);
  });

  it('with a perfect judge behind the filter, matching is exact: the filter loses nothing', async () => {
    const truth = new Map(LABELLED.map((p) => [p.a, p] as const));
    const oracle: PairJudge = async (pairs) => pairs.map(([a]) => truth.get(a)!.label === 'same');
    for (const p of LABELLED) {
      const found = await duplicatePairs([p.a, p.b], oracle);
      expect([p.id, found.length === 1]).toEqual([p.id, p.label === 'same']);
    }
  });
});

describe('merging and evaluation', () => {
  it('merges matches as connected components (a~b, b~c gives one component)', () => {
    expect(components(5, [[0, 1], [1, 3]])).toEqual([[0, 1, 3], [2], [4]]);
  });

  it('the LLM judge sends the pairs with the template, reads verdicts by pair number, and counts a missing verdict as different', async () => {
    const prompts: string[] = [];
    const llm: LlmClient = {
      model: 'fake',
      complete: async (request) => {
        prompts.push(request.messages[0]!.content);
        return { text: JSON.stringify({ verdicts: [{ pair: 2, same_bug: true, reason: 'same mechanism' }] }), inputTokens: 1, outputTokens: 1 };
      },
    };
    const pairs = LABELLED.slice(0, 3).map((p) => [p.a, p.b] as const);
    expect(await llmJudge(llm, silentLogger)(pairs)).toEqual([false, true, false]);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('would also fix the other');
    expect(prompts[0]).toContain('### Pair 3');
  });

  it('falls back to the signals when the judge answers garbage', async () => {
    const llm: LlmClient = { model: 'fake', complete: async () => ({ text: 'I think so', inputTokens: 1, outputTokens: 1 }) };
    const easy = LABELLED.find((p) => p.kind === 'easy' && p.label === 'same')!;
    expect(await llmJudge(llm, silentLogger)([[easy.a, easy.b]])).toEqual([true]);
  });

  it('scores findings against reference bugs many-to-many: recall over bugs, precision over findings', async () => {
    const bugs = [
      { id: 'B1', ...LABELLED[0]!.a },
      { id: 'B2', ...LABELLED.find((p) => p.id === 'pair-07')!.a },
    ];
    const findings = [LABELLED[0]!.b, LABELLED[0]!.b, LABELLED.find((p) => p.kind === 'easy' && p.label === 'different')!.b];
    const result = await evaluateFindings(bugs, findings, signalsOnlyJudge);
    expect(result).toMatchObject({ matchedBugs: ['B1'], matchedFindings: 2, recall: 0.5 });
    expect(result.precision).toBeCloseTo(2 / 3);
    expect(result.f1).toBeCloseTo((2 * 0.5 * (2 / 3)) / (0.5 + 2 / 3));
  });
});
