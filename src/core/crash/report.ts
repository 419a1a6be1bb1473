// The readable terminal report of a crash campaign: a table of scenarios and
// classes, then the worst crash scenario of each target that fails.
import path from 'node:path';
import type { CampaignResult, Failure, ScenarioVerdict } from './protocol.ts';
import { worstFailureOf } from './worst-failure.ts';

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function describeFailure(failure: Failure): string[] {
  const where = failure.point
    ? `${failure.crash} crash before ${failure.point.call} at ${failure.point.path}:${failure.point.line}` +
      (failure.point.repetition > 1 ? ` (repetition ${failure.point.repetition})` : '') +
      (failure.point.statement ? ` [${failure.point.statement}]` : '')
    : 'the normal run, repeated';
  const lines = [
    `${failure.mode} mode, ${where}: ${failure.half_updated ? 'half-updated, ' : ''}re-run ${failure.outcome}`,
  ];
  if (failure.error) lines.push(`  re-run error: ${failure.error}`);
  for (const cell of failure.evidence.slice(0, 6)) {
    const label = cell.file ? `file ${cell.file}` : cell.emails ? 'emails sent' : `${cell.table}[${cell.key}].${cell.column}`;
    const values = Object.entries(cell.values)
      .map(([state, value]) => `${state.replace('_', ' ')} ${formatValue(value)}`)
      .join(' | ');
    lines.push(`  ${label}: ${values}`);
  }
  return lines;
}

/** `displayBase`: paths are shown relative to it (the folder the command ran in), so repositories stay apart. */
export function renderCrashReport(result: CampaignResult, displayBase?: string): string {
  const shown = (v: ScenarioVerdict) => (displayBase ? path.relative(displayBase, path.join(v.root, v.file)) || v.file : v.file);
  const out: string[] = [];
  const rows = result.scenarios.map((v) => [
    `${shown(v)}:${v.name}`,
    v.target,
    v.class,
    v.modes.default.works ? (v.modes.default.half_updated ? 'half-updated' : 'ok') : 'fails',
    v.modes.autocommit.works ? (v.modes.autocommit.half_updated ? 'half-updated' : 'ok') : 'fails',
    v.double_applies ? 'yes' : 'no',
    v.fully_crash_safe ? 'yes' : 'no',
  ]);
  const header = ['scenario', 'target', 'class', 'default', 'autocommit', 'double', 'fully safe'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  out.push(header.map((h, i) => pad(h, widths[i] ?? 0)).join('  '));
  out.push(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) out.push(row.map((c, i) => pad(c, widths[i] ?? 0)).join('  '));
  for (const verdict of result.scenarios) {
    const worst = worstFailureOf(verdict);
    const modeErrors = (['default', 'autocommit'] as const)
      .filter((m) => verdict.modes[m].error)
      .map((m) => `  ${m}: ${verdict.modes[m].error}`);
    if (!worst && modeErrors.length === 0) continue;
    out.push('', `${verdict.target} (${verdict.class}), scenario ${verdict.name}:`);
    out.push(...modeErrors);
    if (worst) out.push(...describeFailure(worst).map((l) => `  ${l}`));
  }
  if (result.errors.length) {
    out.push('', 'Errors:');
    for (const error of result.errors) out.push(`  ${error.message}`);
  }
  for (const note of result.notes) out.push(`note: ${note}`);
  const counts = new Map<string, number>();
  for (const v of result.scenarios) counts.set(v.class, (counts.get(v.class) ?? 0) + 1);
  out.push(
    '',
    `${result.scenarios.length} scenario(s): ${[...counts].map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}; ` +
      `${result.runs} runs in ${result.seconds.toFixed(1)} s` +
      (result.errors.length ? `; ${result.errors.length} error(s)` : ''),
  );
  return out.join('\n');
}
