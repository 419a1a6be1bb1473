// The scan as JSON (a zod schema, so the shape is checked where it leaves
// the program) and as text for a terminal.
import { z } from 'zod';
import type { ScannedFile, ScannedReport } from './scan.ts';

const rangeSchema = z.object({ startLine: z.number().int(), startColumn: z.number().int(), endLine: z.number().int(), endColumn: z.number().int() });

const effectSchema = z.object({
  kind: z.enum(['db-read', 'db-write', 'db-ddl', 'db-script', 'db-begin', 'db-commit', 'db-rollback', 'file-write', 'file-rename', 'file-replace', 'file-delete', 'send']),
  call: z.string(),
  line: z.number().int(),
  inLoop: z.boolean(),
  sql: z
    .object({ kind: z.string(), tables: z.array(z.string()), text: z.string().optional(), resolvedFrom: z.string().optional() })
    .optional(),
  mode: z.string().optional(),
  via: z.object({ qualname: z.string(), path: z.string(), line: z.number().int() }).optional(),
  idempotencyKey: z.boolean().optional(),
});

const findingSchema = z.object({
  id: z.string(),
  ruleId: z.string(),
  messageId: z.string(),
  message: z.string(),
  severity: z.enum(['error', 'warning', 'info']),
  path: z.string(),
  function: z.string().optional(),
  range: rangeSchema,
  hint: z.string(),
});

const functionSchema = z.object({
  qualname: z.string(),
  signature: z.string(),
  range: rangeSchema,
  isAsync: z.boolean(),
  writes: z.boolean(),
  txStyle: z.object({
    style: z.enum(['explicit_begin', 'with_conn', 'mode_change', 'none']),
    evidence: z.array(z.object({ pattern: z.string(), line: z.number().int() })),
  }),
  effects: z.array(effectSchema),
  findings: z.array(findingSchema),
});

export const scanJsonSchema = z.object({
  root: z.string(),
  diff: z.boolean(),
  files: z.array(
    z.object({
      path: z.string(),
      status: z.enum(['added', 'modified', 'renamed', 'deleted']).optional(),
      oldPath: z.string().optional(),
      notes: z.array(z.string()),
      syntaxErrors: z.number().int(),
      functions: z.array(functionSchema),
    }),
  ),
  summary: z.object({ files: z.number().int(), functions: z.number().int(), writing: z.number().int(), findings: z.number().int() }),
});

export type ScanJson = z.infer<typeof scanJsonSchema>;

export function scanJson(root: string, files: readonly ScannedFile[], diff: boolean): ScanJson {
  const json = {
    root,
    diff,
    files: files.map((file) => ({
      path: file.path,
      ...(file.status ? { status: file.status } : {}),
      ...(file.oldPath ? { oldPath: file.oldPath } : {}),
      notes: file.notes,
      syntaxErrors: file.syntaxErrors,
      functions: file.reports.map(functionJson),
    })),
    summary: summaryOf(files),
  };
  return scanJsonSchema.parse(json);
}

function functionJson(report: ScannedReport): z.infer<typeof functionSchema> {
  return {
    qualname: report.fn.qualname,
    signature: report.fn.signature,
    range: report.fn.range,
    isAsync: report.fn.isAsync,
    writes: report.writes,
    txStyle: report.txStyle,
    effects: report.effects.map(effectJson),
    findings: report.findings,
  };
}

function effectJson(effect: ScannedReport['effects'][number]): z.infer<typeof effectSchema> {
  return {
    kind: effect.kind,
    call: effect.call,
    line: effect.range.startLine,
    inLoop: effect.inLoop,
    ...(effect.sql ? { sql: effect.sql } : {}),
    ...(effect.mode !== undefined ? { mode: effect.mode } : {}),
    ...(effect.via ? { via: effect.via } : {}),
    ...(effect.idempotencyKey !== undefined ? { idempotencyKey: effect.idempotencyKey } : {}),
  };
}

function summaryOf(files: readonly ScannedFile[]): ScanJson['summary'] {
  const reports = files.flatMap((file) => file.reports);
  return {
    files: files.length,
    functions: reports.length,
    writing: reports.filter((report) => report.writes).length,
    findings: reports.reduce((total, report) => total + report.findings.length, 0),
  };
}

/** Text for a terminal: by default only functions that write or have findings, so a scan of a large tree stays readable. */
export function scanText(files: readonly ScannedFile[], options: { all?: boolean } = {}): string {
  const lines: string[] = [];
  for (const file of files) {
    const shown = file.reports.filter((report) => options.all || report.writes || report.findings.length > 0);
    const header = [file.path, file.status && file.status !== 'modified' ? `(${file.status}${file.oldPath ? ` from ${file.oldPath}` : ''})` : ''].filter(Boolean).join(' ');
    if (shown.length === 0 && file.notes.length === 0 && !file.status) continue;
    lines.push(header);
    for (const note of file.notes) lines.push(`  note: ${note}`);
    if (file.syntaxErrors > 0) lines.push(`  note: ${file.syntaxErrors} syntax error(s); analysed around them`);
    for (const report of shown) lines.push(...functionText(report));
    lines.push('');
  }
  const summary = summaryOf(files);
  lines.push(`${summary.files} file(s), ${summary.functions} function(s), ${summary.writing} writing, ${summary.findings} finding(s)`);
  return `${lines.join('\n')}\n`;
}

function functionText(report: ScannedReport): string[] {
  const { fn, txStyle } = report;
  const evidence = txStyle.evidence.map((found) => `${found.pattern}@${found.line}`).join(', ');
  const lines = [`  ${fn.qualname}  (lines ${fn.range.startLine}-${fn.range.endLine})  ${fn.signature}`];
  lines.push(`    transaction style: ${txStyle.style}${evidence ? ` (${evidence})` : ''}`);
  for (const effect of report.effects) {
    const details = [
      effect.sql?.tables.length ? effect.sql.tables.join(',') : '',
      effect.mode !== undefined ? `mode ${effect.mode}` : '',
      effect.inLoop ? 'in loop' : '',
      effect.kind === 'send' ? (effect.idempotencyKey ? 'idempotency key' : 'no idempotency key') : '',
      effect.via ? `via ${effect.via.path}:${effect.via.qualname}:${effect.via.line}` : '',
    ].filter(Boolean);
    lines.push(`    ${String(effect.range.startLine).padStart(4)}  ${effect.kind.padEnd(12)} ${effect.call}${details.length ? `  [${details.join('; ')}]` : ''}`);
  }
  for (const finding of report.findings) {
    lines.push(`    ${finding.severity.toUpperCase()} ${finding.ruleId} (line ${finding.range.startLine}): ${finding.message}`);
    lines.push(`      hint: ${finding.hint}`);
  }
  return lines;
}
