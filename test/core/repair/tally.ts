// The measured table of repairs on the reference suite, shared by the test and bench/repair.ts.
import type { SolutionRepair } from './reference-repairs.ts';

export interface RepairTally {
  intended: string;
  solutions: number;
  deterministic: number;
  llm: number;
  none: number;
  rejected: number;
}

export function tallyRepairs(results: readonly SolutionRepair[]): RepairTally[] {
  return ['unsafe', 'safe_by_accident', 'safe_by_design'].map((intended) => {
    const mine = results.filter((r) => r.intended === intended);
    const origin = (r: SolutionRepair) => r.result?.verified?.candidate.origin;
    return {
      intended,
      solutions: mine.length,
      deterministic: mine.filter((r) => origin(r) === 'deterministic').length,
      llm: mine.filter((r) => origin(r) === 'llm').length,
      none: mine.filter((r) => !r.result?.verified).length,
      rejected: mine.reduce((n, r) => n + (r.result?.attempts.filter((a) => !a.verification.holds).length ?? 0), 0),
    };
  });
}

export function tallyTable(rows: readonly RepairTally[]): string[] {
  const line = (cells: (string | number)[]) => `| ${cells.map(String).join(' | ')} |`;
  return [
    line(['intended class', 'solutions', 'verified: deterministic', 'verified: LLM (replayed)', 'no verified repair', 'candidates rejected']),
    line(['---', '---', '---', '---', '---', '---']),
    ...rows.map((r) => line([r.intended, r.solutions, r.deterministic, r.llm, r.none, r.rejected])),
  ];
}
