// Review → markdown: the sticky summary, inline comments (only on lines inside a
// hunk of the new side, worst first, capped), the check output and annotations.
import { SEVERITY_RANK } from '../python/model.ts';
import type { Annotation, Conclusion, FunctionClass, FunctionVerdict, InlineComment, Review, ReviewFinding } from '../model/review.ts';
import { crashFigure } from './crash-figure.ts';
import { findingLabel, fullValuesSection, isLlmRepair, longValues } from './findings-text.ts';
import { BODY_BUDGET, PROSE_LIMIT, capBody, hasMarkerSyntax, inertCell, inertCodeSpan, inertFence, inertHtml, inertMarkdown, inertPlain, inertText } from './inert.ts';
import { fill, raw } from './template.ts';
import { suggestionAnchor } from './suggestion-anchor.ts';

/** Findings listed in the summary beyond the inline ones; the rest are in the annotations and --json. */
const MAX_LISTED_FINDINGS = 100;
/** Characters the list of findings not shown inline may take in the summary. */
const LISTED_BUDGET = 24_000;
/** A suggestion or diff longer than this is not shown in a comment (`crashprobe review --fix` applies it). */
const MAX_SUGGESTION_CHARS = 20_000;

export interface RenderInput {
  repository: string;
  headSha: string;
  functions: FunctionVerdict[];
  findings: ReviewFinding[];
  counts: Record<FunctionClass, number>;
  conclusion: Conclusion;
  notes: string[];
  hunkLines: ReadonlyMap<string, ReadonlySet<number>>;
  sources: Map<string, string[]>;
  maxInline: number;
  auditConfigured: boolean;
  /**
   * Trusted markdown from the adapter that replaces the `no-llm` template when no LLM is configured:
   * the Action names its own inputs (issue 12, defect 7); absent, the template (config file and environment).
   */
  noLlmNote?: string;
  /** Markdown that leads the summary: what the change did to crash safety against the base (src/core/review/base-change.ts). */
  lead?: string;
}

const CLASS_LABEL: Record<FunctionClass, string> = {
  unsafe: '❌ unsafe',
  safe_by_accident: '⚠️ safe by accident',
  safe_by_design: '✅ safe by design',
  not_working: '⛔ does not work',
  untested: '➖ not crash-tested',
};

function findingRank(f: ReviewFinding): number {
  return SEVERITY_RANK[f.severity] * 10 + (f.confirmedBy ? 5 : 0) + (f.source === 'crash' ? 1 : 0);
}

function suggestionBlock(f: ReviewFinding): string {
  const s = f.suggestion;
  if (!s) return '';
  const by = isLlmRepair(s.verified) ? ' The explanation was written by an LLM; the repair itself was crash-tested.' : '';
  const verified = inertMarkdown(s.verified, { max: 600 });
  const size = (s.diff ?? s.text).length;
  if (size > MAX_SUGGESTION_CHARS) {
    return `Suggested repair (${verified}): ${size.toLocaleString('en-US')} characters, too long for a comment; \`crashprobe review --fix\` applies it.${by}`;
  }
  if (s.diff) {
    return `<details><summary>Suggested repair (${inertHtml(s.verified, 600)})</summary>\n\n${inertFence(s.diff, 'diff')}\n</details>${by ? `\n\n<sub>${by.trim()}</sub>` : ''}`;
  }
  // A suggestion is applied as written: text that would need changing to be inert is shown, not offered.
  if (hasMarkerSyntax(s.text)) {
    return `Suggested repair (${verified}), shown as text because it contains an HTML comment delimiter:\n\n${inertFence(s.text, 'python')}${by ? `\n\n<sub>${by.trim()}</sub>` : ''}`;
  }
  return `Suggested repair (${verified}):${by ? ` <sub>${by.trim()}</sub>` : ''}\n\n${inertFence(s.text, 'suggestion')}`;
}

export function inlineBody(f: ReviewFinding, sources: Map<string, string[]>): string {
  const proof = f.confirmedBy
    ? `<details open><summary>Crash scenario that confirms it</summary>\n\n${crashFigure(f.confirmedBy, sources.get(f.path))}\n</details>`
    : '';
  const label = findingLabel(f);
  const body = fill('inline-comment', {
    title: raw(inertText(f.title, { max: 200, lineStart: false })),
    ruleId: raw(inertCodeSpan(f.ruleId, { max: 100 })),
    label: raw(label ? ` · *${label}*` : ''),
    message: raw(inertMarkdown(f.message, { max: PROSE_LIMIT, multiline: true })),
    proof: raw(proof),
    hint: raw(f.hint ? `**Repair:** ${inertMarkdown(f.hint, { max: 2_000 })}` : ''),
    suggestion: raw(suggestionBlock(f)),
  });
  // The hidden fingerprint is the GitHub publisher's to add (adapters/github/markers.ts), after this cut.
  return capBody(body.trimEnd(), BODY_BUDGET, 'the full finding is in the check run annotations and in --json');
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
      `| ${inertCodeSpan(`${fn.path}:${fn.qualname}`, { cell: true, max: 150 })} | ${fn.class === 'untested' ? `➖ ${inertCell(fn.notRunBecause ? `not run: ${fn.notRunBecause}` : 'no scenario')}` : CLASS_LABEL[fn.class]} | ${inertCell(fn.modes?.default ?? '–')} | ${inertCell(fn.modes?.autocommit ?? '–')} | ${
        fn.doubleApplies === undefined ? '–' : fn.doubleApplies ? 'yes' : 'no'
      } | ${inertCell(fn.txStyle)} | ${findingsByFunction(fn)} |`,
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
  return [`### Worst crash scenario: ${inertCodeSpan(`${fn.path}:${fn.qualname}`, { max: 200 })}`, '', crashFigure(fn.worst, input.sources.get(fn.path)), '', `<sub>crash-tested: ${fn.scenariosRun} crash runs in both modes${fn.cached ? ' (cached: the function and its scenario did not change)' : ''}</sub>`].join('\n');
}

function anchorFor(f: ReviewFinding, hunks: ReadonlyMap<string, ReadonlySet<number>>): number | undefined {
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
    const findingLine = anchorFor(f, input.hunkLines);
    // A one-click suggestion replaces the commented lines: the comment spans the lines it replaces.
    const span = suggestionAnchor(f, findingLine, input.hunkLines.get(f.path), input.sources.get(f.path));
    const line = span?.line ?? findingLine;
    if (line === undefined || comments.length >= input.maxInline) {
      outside.push(f);
      continue;
    }
    const startLine = span?.startLine !== undefined ? { startLine: span.startLine } : {};
    comments.push({ path: f.path, line, ...startLine, body: inlineBody(span?.finding ?? f, input.sources), fingerprint: f.fingerprint, severity: f.severity });
  }
  // Each listed finding is one compact line (its full text is in the annotations and --json);
  // the list stops at MAX_LISTED_FINDINGS or LISTED_BUDGET characters, whichever comes first,
  // so the "… and N more" line is never what the body cut drops.
  const listed: string[] = [];
  let listedChars = 0;
  for (const f of outside) {
    if (listed.length >= MAX_LISTED_FINDINGS) break;
    const label = findingLabel(f);
    const line = `- ${inertCodeSpan(`${f.path}:${f.range.startLine}`, { max: 120 })} **${inertText(f.title, { max: 160, lineStart: false })}** (${inertCodeSpan(f.ruleId, { max: 80 })})${label ? ` *${label}*` : ''}: ${inertMarkdown(f.message, { max: 160 })}`;
    if (listed.length > 0 && listedChars + line.length > LISTED_BUDGET) break;
    listed.push(line);
    listedChars += line.length + 1;
  }
  if (outside.length > listed.length) {
    listed.push(`- … and ${(outside.length - listed.length).toLocaleString('en-US')} more: see the check run's annotations, or \`crashprobe review --format json\`.`);
  }
  const otherFindings = outside.length ? ['### Findings not shown inline', '', ...listed].join('\n') : '';
  const templates = input.functions
    .filter((f) => f.scenarioTemplate)
    .map((f) => fill('scenario-template', { target: raw(inertHtml(`${f.path}:${f.qualname}`, 200)), code: raw(inertFence(f.scenarioTemplate!.trimEnd(), 'python')) }))
    .join('\n\n');
  const noLlm = input.auditConfigured ? [] : [input.noLlmNote ?? fill('no-llm', {})];
  const notes = [...input.notes, ...noLlm];
  // Notes carry PR text (paths, scenario names, harness errors); crashprobe's own no-llm note is trusted markdown.
  const renderedNotes = [...input.notes.map((n) => inertMarkdown(n, { max: 2_000, multiline: true })), ...noLlm];
  const intro = [input.lead ?? ''].filter(Boolean).concat(
    input.functions.length === 0
      ? 'Nothing in this change writes to a database, a file or an outside service, so there was nothing to crash-test.'
      : `${input.functions.length} touched function(s) write to a database, a file or an outside service, or are crash-tested by a scenario.`,
  ).join('\n\n');
  const filled = fill('summary', {
    headline: headline(input),
    intro: raw(intro),
    functionTable: raw(functionTable(input)),
    worstScenario: raw(worstScenario(input)),
    otherFindings: raw(otherFindings),
    scenarioTemplates: raw(templates),
    notes: raw(renderedNotes.map((n) => `> ${n.replace(/\n/g, '\n> ')}`).join('\n>\n')),
  });
  const body = filled.trimEnd();
  const summary = capBody(body, BODY_BUDGET);
  const annotations: Annotation[] = ranked.map((f) => ({
    path: f.path,
    startLine: f.range.startLine,
    endLine: Math.max(f.range.startLine, f.range.endLine),
    level: f.severity === 'error' ? 'failure' : f.severity === 'warning' ? 'warning' : 'notice',
    title: inertPlain(f.title, 200),
    message: inertPlain(`${findingLabel(f) ? `${findingLabel(f)}. ` : ''}${f.message}${f.hint ? `\nRepair: ${f.hint}` : ''}`, 4_000),
  }));
  // The check run's details: the summary, then the full values its cells cut, cut once as a whole.
  const full = fullValuesSection(longValues(input.functions, ranked));
  const checkSummary = capBody(full ? `${body}\n\n${full}` : body, BODY_BUDGET, 'the full values are in --json and the SARIF');
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
