// A failing crash scenario as a finding of its own (matching may fold it into a
// static finding of the same function, as that finding's proof).
import { createHash } from 'node:crypto';
import type { Failure, ScenarioVerdict } from '../crash/protocol.ts';
import type { ReviewFinding } from '../model/review.ts';
import type { FunctionReport, PyModule } from '../python/model.ts';

function normalizedLine(module: PyModule, line: number): string {
  return (module.source.split('\n')[line - 1] ?? '').replace(/\s+/g, ' ').trim();
}

export function crashFinding(module: PyModule, report: FunctionReport, verdict: ScenarioVerdict, worst: Failure): ReviewFinding {
  const line = worst.point && worst.point.path === module.path ? worst.point.line : report.fn.range.startLine;
  const fingerprint = createHash('sha256')
    .update(`crash/${verdict.class}\0${module.path}\0${report.fn.qualname}\0${normalizedLine(module, line)}`)
    .digest('hex')
    .slice(0, 16);
  const what =
    verdict.class === 'unsafe'
      ? "A crash leaves the data half-updated, even in Python's default mode."
      : verdict.class === 'safe_by_accident'
        ? 'Safe only by accident: in autocommit mode a crash leaves the data half-updated.'
        : 'A re-run applies the work twice.';
  return {
    fingerprint,
    ruleId: `crash/${verdict.class}`,
    source: 'crash',
    severity: verdict.class === 'unsafe' ? 'error' : 'warning',
    path: module.path,
    function: report.fn.qualname,
    range: { startLine: line, startColumn: 0, endLine: line, endColumn: 0 },
    title: verdict.class === 'unsafe' ? 'Unsafe under a crash' : verdict.class === 'safe_by_accident' ? 'Safe by accident' : 'Double-applies',
    message: what,
    confirmedBy: worst,
  };
}
