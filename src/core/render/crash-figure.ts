// A failing crash scenario as the paper's Figure 1 shows it: the line where the
// crash hits, the rows that matter before, after the crash and after the re-run,
// and one sentence saying what a user would see. Every value, name and line of
// code here comes from the pull request: all of it goes through ./inert.ts.
import type { EvidenceCell, Failure } from '../crash/protocol.ts';
import { CELL_LIMIT, asText, inertCell, inertCodeSpan, inertText } from './inert.ts';
import { fill, raw } from './template.ts';

const COLUMNS: [string, string][] = [
  ['before', 'before'],
  ['after_crash', 'after the crash'],
  ['after_rerun', 'after the re-run'],
  ['normal', 'one normal run'],
];

/** Error text of a failure, kept in the sentence up to this many rendered characters. */
const ERROR_LIMIT = 500;

/** The cell's name, in a table cell (`cell`) or in prose. */
function label(cell: EvidenceCell, inCell: boolean): string {
  const code = (text: string) => inertCodeSpan(text, { cell: inCell, max: 120 });
  if (cell.file) return `file ${code(cell.file)}`;
  if (cell.emails) return 'emails sent';
  if (cell.column === '(row)') return `${code(asText(cell.table))} row ${inertCell(cell.key, 60)}`;
  if (cell.column === '(row count)') return `${code(asText(cell.table))} rows`;
  return code(`${asText(cell.table)}[${asText(cell.key)}].${asText(cell.column)}`);
}

export function evidenceTable(failure: Failure, limit = 6): string {
  const columns = COLUMNS.filter(([key]) => failure.evidence.some((c) => key in c.values));
  if (columns.length === 0 || failure.evidence.length === 0) return '';
  const rows = failure.evidence.slice(0, limit).map(
    (cell) => `| ${label(cell, true)} | ${columns.map(([key]) => inertCell(cell.values[key] ?? '')).join(' | ')} |`,
  );
  const more = failure.evidence.length > limit ? [`| … ${failure.evidence.length - limit} more cell(s) in --json | ${columns.map(() => '').join(' | ')} |`] : [];
  return [`| | ${columns.map(([, title]) => title).join(' | ')} |`, `|---|${columns.map(() => '---|').join('')}`, ...rows, ...more].join('\n');
}

export function consequence(failure: Failure): string {
  const cell = failure.evidence.find((c) => c.values.after_rerun !== c.values.normal) ?? failure.evidence[0];
  const what = cell ? label(cell, false) : 'the data';
  const v = (key: string) => (cell ? inertCell(cell.values[key], CELL_LIMIT) : '?');
  switch (failure.outcome) {
    case 'double-applied':
      if (cell?.emails) return `**The re-run does the work again: the email goes out twice.**`;
      return `**The re-run applies the work twice:** ${what} ends at ${v('after_rerun')}, where one run leaves ${v('normal')}.`;
    case 'half-done':
      return `**The re-run does not finish the work:** ${what} is ${v('after_rerun')}, where one run leaves ${v('normal')}.`;
    case 'rerun-fails':
      return `**The re-run fails**${failure.error ? `: ${inertText(failure.error, { max: ERROR_LIMIT, lineStart: false })}` : ''}, and the data stays half-updated.`;
    default: {
      if (!failure.half_updated) return 'The re-run recovers.';
      // Only a cell that is neither state can say "neither"; else some cells are as before, some as after.
      const torn = failure.evidence.find((c) => 'after_crash' in c.values && c.values.after_crash !== c.values.before && c.values.after_crash !== c.values.normal);
      if (!torn) return 'Until someone re-runs it, the data is **half-updated**: part of it is as before the run, part as after a normal run (see the table).';
      const t = (key: string) => inertCell(torn.values[key], CELL_LIMIT);
      return `Until someone re-runs it, the data is **half-updated**: ${label(torn, false)} is ${t('after_crash')}, neither ${t('before')} (before) nor ${t('normal')} (after a normal run).`;
    }
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
    code: raw(code ? ` (${inertCodeSpan(code, { max: 200 })})` : ''),
    mode: failure.mode,
    table: raw(evidenceTable(failure)),
    sentence: raw(consequence(failure)),
  });
}
