// Review → markdown: the sticky summary, inline comments (only on lines inside a
// hunk of the new side, worst first, capped), the check output and annotations.
import type { Annotation, Conclusion, FunctionClass, FunctionVerdict, InlineComment, Review, ReviewFinding } from '../review/model.ts';
import { crashFigure } from './crash-figure.ts';
import { escapeCell, fill } from './template.ts';

export interface RenderInput {
  repository: string;
  headSha: string;
  functions: FunctionVerdict[];
  findings: ReviewFinding[];
  counts: Record<FunctionClass, number>;
  conclusion: Conclusion;
  notes: string[];
  hunkLines: Map<string, Set<number>>;
  sources: Map<string, string[]>;
  maxInline: number;
  auditConfigured: boolean;
}

const CLASS_LABEL: Record<FunctionClass, string> = {
  unsafe: '❌ unsafe',
  safe_by_accident: '⚠️ safe by accident',
  safe_by_design: '✅ safe by design',
  not_working: '⛔ does not work',
  untested: '➖ no scenario',
};

const SEVERITY_RANK = { error: 3, warning: 2, info: 1 } as const;

function findingRank(f: ReviewFinding): number {
  return SEVERITY_RANK[f.severity] * 10 + (f.confirmedBy ? 5 : 0) + (f.source === 'crash' ? 1 : 0);
}

export function inlineBody(f: ReviewFinding, sources: Map<string, string[]>): string {
  const proof = f.confirmedBy
    ? `<details open><summary>Crash scenario that confirms it</summary>\n\n${crashFigure(f.confirmedBy, sources.get(f.path))}\n</details>`
    : '';
  const suggestion = !f.suggestion
    ? ''
    : f.suggestion.diff
      ? `<details><summary>Suggested repair (${f.suggestion.verified})</summary>\n\n\`\`\`diff\n${f.suggestion.diff}\n\`\`\`\n</details>`
      : `Suggested repair (${f.suggestion.verified}):\n\n\`\`\`suggestion\n${f.suggestion.text}\n\`\`\``;
  return fill('inline-comment', {
    title: f.title,
    ruleId: f.ruleId,
    message: f.message,
    proof,
    hint: f.hint ? `**Repair:** ${f.hint}` : '',
    suggestion,
    fingerprint: f.fingerprint,
  });
}

function headline(input: RenderInput): string {
  const { counts } = input;
  if (input.functions.length === 0) return 'no touched function writes to a database, a file or an outside service';
  const parts = (['unsafe', 'safe_by_accident', 'not_working', 'untested', 'safe_by_design'] as FunctionClass[])
    .filter((k) => counts[k] > 0)
    .map((k) => `${counts[k]} ${CLASS_LABEL[k].replace(/^\S+ /, '')}`);
  return parts.join(', ');
}

function functionTable(input: RenderInput): string {
  if (input.functions.length === 0) return '';
  const findingsByFunction = (fn: FunctionVerdict) =>
    input.findings.filter((f) => f.path === fn.path && f.function === fn.qualname).length;
  const rows = input.functions.map(
    (fn) =>
      `| \`${fn.path}:${fn.qualname}\` | ${CLASS_LABEL[fn.class]} | ${fn.modes?.default ?? '–'} | ${fn.modes?.autocommit ?? '–'} | ${
        fn.doubleApplies === undefined ? '–' : fn.doubleApplies ? 'yes' : 'no'
      } | ${escapeCell(fn.txStyle)} | ${findingsByFunction(fn)} |`,
  );
  return [
    '| function | class | default mode | autocommit | double-applies | transactions | findings |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

function worstScenario(input: RenderInput): string {
  const fn = input.functions.find((f) => f.worst && f.class !== 'safe_by_design') ?? input.functions.find((f) => f.worst);
  if (!fn?.worst) return '';
  return [`### Worst crash scenario: \`${fn.path}:${fn.qualname}\``, '', crashFigure(fn.worst, input.sources.get(fn.path)), '', `<sub>crash-tested: ${fn.scenariosRun} crash runs in both modes${fn.cached ? ' (cached: the function and its scenario did not change)' : ''}</sub>`].join('\n');
}

function anchorFor(f: ReviewFinding, hunks: Map<string, Set<number>>): number | undefined {
  const lines = hunks.get(f.path);
  if (!lines) return undefined;
  for (let line = f.range.startLine; line <= Math.max(f.range.startLine, f.range.endLine); line++) if (lines.has(line)) return line;
  return undefined;
}

export function renderReview(input: RenderInput): Review {
  const ranked = [...input.findings].sort((a, b) => findingRank(b) - findingRank(a) || a.path.localeCompare(b.path) || a.range.startLine - b.range.startLine);
  const comments: InlineComment[] = [];
  const outside: ReviewFinding[] = [];
  for (const f of ranked) {
    const line = anchorFor(f, input.hunkLines);
    if (line === undefined || comments.length >= input.maxInline) {
      outside.push(f);
      continue;
    }
    comments.push({ path: f.path, line, body: inlineBody(f, input.sources), fingerprint: f.fingerprint, severity: f.severity });
  }
  const otherFindings = outside.length
    ? ['### Findings not shown inline', '', ...outside.map((f) => `- \`${f.path}:${f.range.startLine}\` **${f.title}** (${f.ruleId}): ${f.message}`)].join('\n')
    : '';
  const templates = input.functions
    .filter((f) => f.scenarioTemplate)
    .map((f) => fill('scenario-template', { target: `${f.path}:${f.qualname}`, code: f.scenarioTemplate!.trimEnd() }))
    .join('\n\n');
  const notes = [...input.notes, ...(input.auditConfigured ? [] : [fill('no-llm', {})])];
  const intro =
    input.functions.length === 0
      ? 'Nothing in this change writes to a database, a file or an outside service, so there was nothing to crash-test.'
      : `${input.functions.length} touched function(s) write to a database, a file or an outside service.`;
  const summary = fill('summary', {
    headline: headline(input),
    intro,
    functionTable: functionTable(input),
    worstScenario: worstScenario(input),
    otherFindings,
    scenarioTemplates: templates,
    notes: notes.map((n) => `> ${n.replace(/\n/g, '\n> ')}`).join('\n>\n'),
  });
  const annotations: Annotation[] = ranked.map((f) => ({
    path: f.path,
    startLine: f.range.startLine,
    endLine: Math.max(f.range.startLine, f.range.endLine),
    level: f.severity === 'error' ? 'failure' : f.severity === 'warning' ? 'warning' : 'notice',
    title: f.title,
    message: f.message + (f.hint ? `\nRepair: ${f.hint}` : ''),
  }));
  const checkSummary = summary.replace(/<!-- crashprobe:summary -->/, '').slice(0, 65_000);
  return {
    repository: input.repository,
    headSha: input.headSha,
    functions: input.functions,
    findings: ranked,
    summary,
    comments,
    conclusion: input.conclusion,
    checkTitle: `crashprobe: ${headline(input)}`,
    checkSummary,
    annotations,
    counts: input.counts,
    notes,
  };
}
