// Repairs on the reference suite, with the real harness and a fake LLM replaying
// the answers in test/fixtures/repair/llm-answers.json: every unsafe or
// safe-by-accident solution gets a repair that holds under crash test, and no
// safe-by-design solution is ever touched.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessOptions } from '../crash/helpers.ts';
import { repairReferenceSuite, type SolutionRepair } from './reference-repairs.ts';
import { loadAnswers, replayLlm } from './replay-llm.ts';
import { tallyRepairs } from './tally.ts';

const ANSWERS = path.resolve(import.meta.dirname, '../../fixtures/repair/llm-answers.json');

describe('repairs on the reference suite', () => {
  let results: SolutionRepair[];
  const llm = replayLlm(loadAnswers(ANSWERS));
  beforeAll(async () => {
    results = await repairReferenceSuite(await harnessOptions(), llm);
  }, 900_000);

  it('never suggests, nor even tries, a repair for a solution safe by design', () => {
    const touched = results.filter((r) => r.intended === 'safe_by_design' && (r.result?.attempts.length || r.result?.verified));
    expect(touched.map((r) => r.solution)).toEqual([]);
    expect(results.filter((r) => r.intended === 'safe_by_design').length).toBe(24);
  });

  it('finds a verified repair for every unsafe and safe-by-accident solution', () => {
    const unrepaired = results.filter((r) => r.intended !== 'safe_by_design' && !r.result?.verified).map((r) => r.solution);
    expect(unrepaired).toEqual([]);
  });

  it('keeps the verified repair crash-safe in both modes: never half-updated, working, no new double-applying', () => {
    for (const r of results.filter((x) => x.result?.verified)) {
      const verdicts = r.result!.verified!.verification.verdicts;
      for (const v of verdicts) {
        expect(v.modes.default.works && v.modes.autocommit.works, r.solution).toBe(true);
        expect(v.modes.default.half_updated || v.modes.autocommit.half_updated, r.solution).toBe(false);
        expect(v.class, r.solution).toBe('safe_by_design');
      }
      expect(r.result!.verified!.verification.scenarios, r.solution).toBeGreaterThan(0);
    }
  });

  it('repairs all 11 safe-by-accident solutions deterministically (BEGIN before the first write)', () => {
    const row = tallyRepairs(results).find((t) => t.intended === 'safe_by_accident')!;
    expect(row).toMatchObject({ solutions: 11, deterministic: 11, llm: 0, none: 0 });
  });

  it('repairs at least 31 of the 34 unsafe and safe-by-accident solutions deterministically, and never offers one that failed its crash test', () => {
    const deterministic = results.filter((r) => r.intended !== 'safe_by_design' && r.result?.verified?.candidate.origin === 'deterministic');
    // Measured 31/34 (issue 15 asks 30). The three left need a different design, not a local edit: moving a batch
    // file by file cannot be made all-or-nothing without renaming the folder (copy_then_delete,
    // move_each_undo_on_error), and a backup kept by moving the file away stays a second file updated apart from
    // the first, so any crash between the two leaves one changed (backup_then_write).
    expect(deterministic.length).toBeGreaterThanOrEqual(31);
    const llmOnly = results.filter((r) => r.intended !== 'safe_by_design' && r.result?.verified?.candidate.origin !== 'deterministic').map((r) => r.solution);
    expect(llmOnly.every((s) => /copy_then_delete|move_each_undo_on_error|backup_then_write/.test(s)), llmOnly.join(', ')).toBe(true);
    // The offered repair is the attempt that held; every attempt the crash test rejected is kept, never offered.
    for (const r of results.filter((x) => x.result?.verified)) {
      const { verified, attempts } = r.result!;
      expect(verified!.verification.holds, r.solution).toBe(true);
      expect(attempts.at(-1), r.solution).toBe(verified);
      expect(attempts.slice(0, -1).every((a) => !a.verification.holds), r.solution).toBe(true);
    }
    // Each deterministic candidate was crash-tested in both transaction modes before it was offered.
    for (const r of deterministic) {
      for (const v of r.result!.verified!.verification.verdicts) {
        expect(v.modes.default.crash_points, r.solution).toBeGreaterThan(0);
        expect(v.modes.autocommit.crash_points, r.solution).toBeGreaterThan(0);
      }
    }
  });

  it('asks the LLM only where no deterministic repair held, and at most two rounds', () => {
    for (const r of results) {
      const attempts = r.result?.attempts ?? [];
      const llmAttempts = attempts.filter((a) => a.candidate.origin === 'llm');
      expect(llmAttempts.length, r.solution).toBeLessThanOrEqual(2);
      if (llmAttempts.length) expect(attempts.filter((a) => a.candidate.origin === 'deterministic' && a.verification.holds)).toEqual([]);
    }
    // The clock-keyed receipt: the key loses its clock part deterministically; the replayed LLM answers are never asked for.
    const clock = results.find((r) => r.solution === 'mark_order_paid/clock_idempotency_key')!.result!;
    expect(clock.attempts.map((a) => [a.candidate.strategies[0], a.verification.holds])).toEqual([['idempotency-key', true]]);
    const prompt = llm.requests.find((q) => q.messages[0]?.content.includes('def save_setting'))!.messages[0]!.content;
    expect(prompt).toContain('The process can be killed at any point, and re-running it must be safe.');
    expect(prompt).toContain('## The failing crash scenario');
  });
});
