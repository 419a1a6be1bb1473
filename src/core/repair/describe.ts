// A failing crash scenario in words, for the LLM's prompt and for the review's
// "a repair was tried and why it did not hold".
import type { Failure } from '../crash/protocol.ts';

/** The module the failure's line numbers may point into. */
export interface FailureSource {
  path: string;
  lines: readonly string[];
}

export function describeFailure(failure: Failure, source?: FailureSource): string {
  const where = failure.point
    ? `a ${failure.crash} crash just before line ${failure.point.line} (\`${codeAt(failure, source) ?? failure.point.call}\`${failure.point.repetition > 1 ? `, repetition ${failure.point.repetition}` : ''})`
    : 'a normal run repeated';
  return `${where} in ${failure.mode} mode`;
}

/** The failure as a few lines: where, what the state was, what the re-run did, and the evidence cells. */
export function failureReport(failure: Failure, source?: FailureSource): string {
  const lines = [
    `${describeFailure(failure, source)}, then a re-run ten minutes later:`,
    `- right after the crash the data was ${failure.half_updated ? 'half-updated (neither the state before the run nor the state after a normal run)' : 'consistent'}`,
    `- the re-run's outcome: ${failure.outcome}${failure.error ? ` (${failure.error.trim().split('\n').at(-1)})` : ''}`,
    ...(failure.reasons ?? []).map((r) => `- ${r}`),
  ];
  for (const cell of failure.evidence.slice(0, 8)) {
    const what = cell.table ? `${cell.table}${cell.key ? `[${cell.key}]` : ''}${cell.column ? `.${cell.column}` : ''}` : (cell.file ?? cell.emails ?? 'state');
    const values = Object.entries(cell.values).map(([state, value]) => `${state}=${JSON.stringify(value)}`).join(', ');
    lines.push(`- ${what}: ${values}`);
  }
  return lines.join('\n');
}

function codeAt(failure: Failure, source?: FailureSource): string | undefined {
  const line = failure.point && failure.point.path === source?.path ? source.lines[failure.point.line - 1]?.trim() : undefined;
  return line ? (line.length > 80 ? `${line.slice(0, 77)}...` : line) : undefined;
}
