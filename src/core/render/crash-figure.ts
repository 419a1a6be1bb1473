// A failing crash scenario as the paper's Figure 1 shows it: the line where the
// crash hits, the rows that matter before, after the crash and after the re-run,
// and one sentence saying what a user would see.
import type { EvidenceCell, Failure } from '../crash/protocol.ts';
import { escapeCell, fill } from './template.ts';

const COLUMNS: [string, string][] = [
  ['before', 'before'],
  ['after_crash', 'after the crash'],
  ['after_rerun', 'after the re-run'],
  ['normal', 'one normal run'],
];

function label(cell: EvidenceCell): string {
  if (cell.file) return `file \`${cell.file}\``;
  if (cell.emails) return 'emails sent';
  if (cell.column === '(row)') return `\`${cell.table}\` row ${cell.key}`;
  if (cell.column === '(row count)') return `\`${cell.table}\` rows`;
  return `\`${cell.table}[${cell.key}].${cell.column}\``;
}

export function evidenceTable(failure: Failure, limit = 6): string {
  const columns = COLUMNS.filter(([key]) => failure.evidence.some((c) => key in c.values));
  if (columns.length === 0 || failure.evidence.length === 0) return '';
  const rows = failure.evidence.slice(0, limit).map(
    (cell) => `| ${label(cell)} | ${columns.map(([key]) => escapeCell(cell.values[key] ?? '')).join(' | ')} |`,
  );
  return [`| | ${columns.map(([, title]) => title).join(' | ')} |`, `|---|${columns.map(() => '---|').join('')}`, ...rows].join('\n');
}

export function consequence(failure: Failure): string {
  const cell = failure.evidence.find((c) => c.values.after_rerun !== c.values.normal) ?? failure.evidence[0];
  const what = cell ? label(cell) : 'the data';
  const v = (key: string) => (cell ? escapeCell(cell.values[key]) : '?');
  switch (failure.outcome) {
    case 'double-applied':
      if (cell?.emails) return `**The re-run does the work again: the email goes out twice.**`;
      return `**The re-run applies the work twice:** ${what} ends at ${v('after_rerun')}, where one run leaves ${v('normal')}.`;
    case 'half-done':
      return `**The re-run does not finish the work:** ${what} is ${v('after_rerun')}, where one run leaves ${v('normal')}.`;
    case 'rerun-fails':
      return `**The re-run fails**${failure.error ? `: ${failure.error}` : ''}, and the data stays half-updated.`;
    default:
      return failure.half_updated
        ? `Until someone re-runs it, the data is **half-updated**: ${what} is ${v('after_crash')}, neither ${v('before')} (before) nor ${v('normal')} (after a normal run).`
        : 'The re-run recovers.';
  }
}

export function crashFigure(failure: Failure, sourceLines?: readonly string[]): string {
  if (!failure.point) {
    return [`Running it **twice** in **${failure.mode} mode** (a repeated request):`, '', evidenceTable(failure), '', consequence(failure)].join('\n');
  }
  const code = sourceLines?.[failure.point.line - 1]?.trim();
  return fill('crash-scenario', {
    crash: failure.crash === 'hard' ? 'hard crash (the process is killed)' : 'soft crash (the call raises)',
    line: failure.point.line + (failure.point.repetition > 1 ? ` (repetition ${failure.point.repetition})` : ''),
    code: code ? ` (\`${code.replace(/`/g, "'")}\`)` : '',
    mode: failure.mode,
    table: evidenceTable(failure),
    sentence: consequence(failure),
  });
}
