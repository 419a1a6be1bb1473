// What the renderers say about a finding besides its text: whether an LLM wrote
// it, and the full values that table cells had to cut (for the check run details).
import type { Failure } from '../crash/protocol.ts';
import type { FunctionVerdict, ReviewFinding } from '../model/review.ts';
import { CELL_LIMIT, LLM_CONFIRMED_LABEL, LLM_LABEL, asText, inertCodeSpan, inertFence, inertText } from './inert.ts';

/** The label an LLM-written finding carries in every rendering; '' for crashprobe's own. */
export function findingLabel(f: Pick<ReviewFinding, 'source' | 'confirmedBy'>): string {
  if (f.source !== 'audit') return '';
  return f.confirmedBy ? LLM_CONFIRMED_LABEL : LLM_LABEL;
}

/** A suggestion's `verified` text names its origin first ("llm repair, crash-tested: …: <the LLM's explanation>"). */
export function isLlmRepair(verified: string): boolean {
  return /^llm\b/i.test(verified.trim());
}

interface LongValue {
  where: string;
  value: string;
}

function cellName(cell: Failure['evidence'][number]): string {
  if (cell.file) return `file ${cell.file}`;
  if (cell.emails) return 'emails sent';
  return `${asText(cell.table)}[${asText(cell.key)}].${asText(cell.column)}`;
}

/** Every evidence value and error text of the shown failures that a table cell or sentence cut, once each. */
export function longValues(functions: readonly FunctionVerdict[], findings: readonly ReviewFinding[], errorLimit = 500): LongValue[] {
  const failures: { target: string; failure: Failure }[] = [
    ...functions.filter((f) => f.worst).map((f) => ({ target: `${f.path}:${f.qualname}`, failure: f.worst! })),
    ...findings.filter((f) => f.confirmedBy).map((f) => ({ target: `${f.path}:${f.function ?? f.range.startLine}`, failure: f.confirmedBy! })),
  ];
  const seen = new Set<string>();
  const out: LongValue[] = [];
  const add = (where: string, value: string) => {
    const key = `${where}\0${value}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ where, value });
  };
  for (const { target, failure } of failures) {
    for (const cell of failure.evidence.slice(0, 6)) {
      for (const [state, value] of Object.entries(cell.values)) {
        const text = asText(value);
        if (text.length > CELL_LIMIT / 8) {
          // Cheap pre-filter above; the exact test is whether the rendered cell was cut.
          if (inertText(text).length > CELL_LIMIT) add(`${target}: ${cellName(cell)}, ${state.replace(/_/g, ' ')}`, text);
        }
      }
    }
    if (failure.error && failure.error.length > errorLimit / 8 && inertText(failure.error).length > errorLimit) add(`${target}: the re-run's error`, failure.error);
  }
  return out;
}

/** The check run's section with the full values the comment's cells cut (the check run is capped as a whole afterwards). */
export function fullValuesSection(values: readonly LongValue[]): string {
  if (values.length === 0) return '';
  return [
    `<details><summary>Full values of the ${values.length} cell(s) cut above (PR-controlled text, shown as code)</summary>`,
    '',
    ...values.flatMap((v) => [`${inertCodeSpan(v.where, { max: 300 })}, ${v.value.length.toLocaleString('en-US')} characters:`, '', inertFence(v.value, 'text'), '']),
    '</details>',
  ].join('\n');
}
