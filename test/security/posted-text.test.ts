// Issue 9, requirement 8: everything a pull request controls reaches GitHub inert
// and capped. A hostile Review (evidence cells, error text, file, function and
// scenario names, notes, LLM findings and repair explanations full of markers,
// HTML, mentions, links, pipes and backticks, one 100,000-character value, and
// 10,000 findings) is rendered to every output: the summary comment, the inline
// comment bodies, the check run's summary and annotations, SARIF and JSON.
import { describe, expect, it } from 'vitest';
import type { Failure } from '../../src/core/crash/protocol.ts';
import { GITHUB_BODY_LIMIT, LLM_LABEL } from '../../src/core/render/inert.ts';
import { safeJson } from '../../src/core/render/json.ts';
import { renderReview, type RenderInput } from '../../src/core/render/review-markdown.ts';
import { sarifLogSchema, toSarif } from '../../src/core/render/sarif.ts';
import type { FunctionVerdict, Review, ReviewFinding } from '../../src/core/model/review.ts';

const FAKE_MARKER = '<!-- crashprobe:fp=deadbeef -->';
const HOSTILE = [
  FAKE_MARKER,
  'x -->',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '@octocat and @github/security',
  '[x](javascript:alert(1))',
  '![i](https://evil.example/t.png)',
  'a | b ` c `` d',
  'fixes #1 and GH-2 and octo/shop#3',
  '\u001b[31mred\u001b[0m \u202Eevil',
].join(' ');
const BIG = (HOSTILE + ' ').repeat(Math.ceil(100_000 / (HOSTILE.length + 1))).slice(0, 100_000);
/** What any rendering keeps of a value: ANSI sequences dropped, bidi overrides shown as U+FFFD. */
const shown = (text: string) => text.replace(/\u001b\[\d+m/g, '').replace(/\u202E/g, '\uFFFD');
const EVIL_PATH = 'shop/<!-- crashprobe:fp=deadbeef -->|@octocat`x`.py';
const EVIL_FN = 'pay_<b>@octocat</b>';
const range = (line: number) => ({ startLine: line, startColumn: 0, endLine: line, endColumn: 10 });

const rerunFails: Failure = {
  mode: 'default',
  crash: 'hard',
  point: { path: EVIL_PATH, line: 2, call: 'execute', repetition: 1 },
  outcome: 'rerun-fails',
  half_updated: true,
  error: `Traceback:\n# ${HOSTILE}\n> ${HOSTILE}\n${BIG}`,
  evidence: [
    { table: HOSTILE, key: '1|2', column: '`status`', values: { before: HOSTILE, after_crash: BIG, after_rerun: BIG, normal: 'paid' } },
    { file: EVIL_PATH, values: { before: '(absent)', after_crash: HOSTILE, after_rerun: HOSTILE, normal: 'ok' } },
    { table: 'orders', key: HOSTILE, column: '(row)', values: { before: null, after_crash: 3, after_rerun: true, normal: HOSTILE } },
  ],
};
const doubleApplied: Failure = {
  mode: 'autocommit',
  crash: 'none',
  point: null,
  outcome: 'double-applied',
  half_updated: false,
  evidence: [{ table: 'accounts', key: '1', column: 'balance', values: { before: 100, after_rerun: HOSTILE, normal: BIG } }],
};

function fn(path: string, qualname: string, worst?: Failure): FunctionVerdict {
  return {
    path,
    qualname,
    range: { startLine: 1, startColumn: 0, endLine: 20, endColumn: 0 },
    txStyle: 'none',
    effects: [HOSTILE],
    class: 'unsafe',
    modes: { default: 'half-updated', autocommit: 'half-updated' },
    doubleApplies: true,
    worst,
    scenariosRun: 12,
    findingIds: [],
    scenarioTemplate: `def seed(conn):\n    # ${HOSTILE}\n    """\n\`\`\`\n</details>\n"""\n`,
  };
}

const llmFinding: ReviewFinding = {
  fingerprint: 'audit-0123456789abcdef',
  ruleId: `audit/${HOSTILE}`,
  source: 'audit',
  severity: 'error',
  path: EVIL_PATH,
  function: EVIL_FN,
  range: range(3),
  title: HOSTILE,
  message: `${HOSTILE} **Trigger:** ${BIG} <sub>LLM audit, confidence 0.70</sub>`,
  hint: HOSTILE,
  suggestion: { startLine: 3, endLine: 3, text: `    conn.execute("${FAKE_MARKER}")`, verified: `llm repair, crash-tested: 4 scenarios in both modes: ${HOSTILE}` },
};
const crashFinding: ReviewFinding = {
  fingerprint: 'f00dfeedf00dfeed',
  ruleId: 'crash/unsafe',
  source: 'crash',
  severity: 'error',
  path: EVIL_PATH,
  function: EVIL_FN,
  range: range(2),
  title: 'Unsafe under a crash',
  message: "A crash leaves the data half-updated, even in Python's default mode.",
  confirmedBy: rerunFails,
  suggestion: { startLine: 2, endLine: 2, text: 'x', verified: `deterministic repair: ${HOSTILE}`, diff: `--- a\n+++ b\n@@ -1 +1 @@\n-${HOSTILE}\n+\`\`\`\n+${BIG}` },
};
const staticFinding: ReviewFinding = {
  fingerprint: 'send-before-record:1111222233334444',
  ruleId: 'send-before-record',
  source: 'static',
  severity: 'warning',
  path: EVIL_PATH,
  function: EVIL_FN,
  range: range(4),
  title: 'Sends before it records',
  message: `\`${HOSTILE}\` sends before the database records it (line 9): ${HOSTILE}`,
  hint: 'Record first.',
  confirmedBy: doubleApplied,
};

function input(findings: ReviewFinding[], extra: Partial<RenderInput> = {}): RenderInput {
  return {
    repository: 'octo/shop',
    headSha: 'a'.repeat(40),
    functions: [fn(EVIL_PATH, EVIL_FN, rerunFails), fn('shop/other.py', HOSTILE, doubleApplied)],
    findings,
    counts: { unsafe: 2, safe_by_accident: 0, safe_by_design: 0, not_working: 0, untested: 0 },
    conclusion: 'failure',
    notes: [`crash harness: scenario ${HOSTILE} failed:\n# ${HOSTILE}\n    ${BIG}`],
    hunkLines: new Map([[EVIL_PATH, new Set(Array.from({ length: 20_000 }, (_, i) => i + 1))]]),
    sources: new Map([[EVIL_PATH, ['def pay(conn):', `    conn.execute("${FAKE_MARKER} \`\`\`")`, '    # @octocat', '    send()']]]),
    maxInline: 30,
    auditConfigured: true,
    ...extra,
  };
}

// ---- a reader of the markdown crashprobe posts, as far as the checks need one ----

interface Split {
  prose: string;
  code: string;
}

/** Fenced blocks and code spans (which GitHub shows literally) apart from the prose it renders. */
function split(markdown: string): Split {
  const prose: string[] = [];
  const code: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence) {
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && m[2]!.trim() === '') fence = undefined;
      else code.push(line);
      continue;
    }
    if (m) {
      fence = m[1]!;
      continue;
    }
    let rest = '';
    let i = 0;
    while (i < line.length) {
      if (line[i] === '\\') {
        rest += line.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (line[i] === '`') {
        const run = /^`+/.exec(line.slice(i))![0];
        const close = line.indexOf(run, i + run.length);
        // A closing run must be exactly as long: skip longer runs.
        let end = close;
        while (end >= 0 && (line[end + run.length] === '`' || line[end - 1] === '`')) end = line.indexOf(run, end + run.length + 1);
        if (end >= 0) {
          code.push(line.slice(i + run.length, end));
          i = end + run.length;
          continue;
        }
      }
      rest += line[i];
      i++;
    }
    prose.push(rest);
  }
  return { prose: prose.join('\n'), code: code.join('\n') };
}

const OWN_TAGS = /<\/?(details|summary|sub|code|br)(\s+open)?\s*\/?>/g;

/** Fails with the offending spot, not the whole (large) body. */
function noMatch(text: string, re: RegExp, what: string): void {
  const m = re.exec(text);
  const spot = m ? JSON.stringify(text.slice(Math.max(0, m.index - 150), m.index + 60)) : undefined;
  expect(spot, what).toBeUndefined();
}

function expectInertMarkdown(body: string, where: string, ownMarkers: string[] = []): void {
  const markers = body.match(/<!--[\s\S]*?-->/g) ?? [];
  expect(markers, `${where}: only crashprobe's own markers`).toEqual(ownMarkers);
  const withoutOwn = ownMarkers.reduce((b, m) => b.replace(m, ''), body);
  noMatch(withoutOwn, /<!--|-->/, `${where}: no comment delimiter`);
  const { prose, code } = split(withoutOwn);
  noMatch(prose.replace(OWN_TAGS, ''), /<[A-Za-z!/?]/, `${where}: no HTML but crashprobe's own tags`);
  noMatch(prose, /(^|[^A-Za-z0-9_\\])@[A-Za-z0-9]/m, `${where}: no mention`);
  noMatch(prose.replace(/&#\d+;/g, '\u200B'), /#\d|GH-\d/i, `${where}: no issue reference`);
  noMatch(prose, /(^|[^\\])\]\(/m, `${where}: no link or image`);
  noMatch(prose, /https?:\/\/|www\./i, `${where}: no autolink`);
  noMatch(prose, /[\u0000-\u0008\u000b-\u001f\u202a-\u202e]/, `${where}: no control or bidi character`);
  noMatch(code, /<!--|-->/, `${where}: no comment delimiter in code`);
  // Tables: every row has the header's cell count (no pipe broke out) and no cell is long.
  const lines = withoutOwn.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!/^\|(-+\|)+$/.test(lines[i + 1]!)) continue;
    const count = cells(lines[i]!).length;
    for (let j = i + 2; j < lines.length && lines[j]!.startsWith('|'); j++) {
      const row = cells(lines[j]!);
      expect(row.length, `${where}: table row ${lines[j]!.slice(0, 80)}`).toBe(count);
      for (const cell of row) expect(cell.length, `${where}: cell ${cell.slice(0, 60)}`).toBeLessThanOrEqual(260);
    }
  }
}

/** A GFM row's cells: split on pipes not escaped by a backslash. */
function cells(row: string): string[] {
  const out: string[] = [];
  let cell = '';
  for (let i = 1; i < row.length; i++) {
    if (row[i] === '\\') {
      cell += row.slice(i, i + 2);
      i++;
    } else if (row[i] === '|') {
      out.push(cell.trim());
      cell = '';
    } else cell += row[i];
  }
  return out;
}

function expectInertPlain(text: string, where: string): void {
  noMatch(text, /<!--|-->|<[A-Za-z/?]/, `${where}: no marker or tag`);
  noMatch(text, /(^|[^A-Za-z0-9_])@[A-Za-z0-9]/m, `${where}: no mention`);
  noMatch(text, /[\u0000-\u0008\u000b-\u001f\u202a-\u202e]/, `${where}: no control or bidi character`);
}

function everyPostedText(review: Review): { markdown: [string, string, string[]][]; plain: [string, string][] } {
  return {
    markdown: [
      ['summary', review.summary, []],
      ['check summary', review.checkSummary, []],
      ['check title', review.checkTitle, []],
      ...review.comments.map((c, i): [string, string, string[]] => [`inline comment ${i}`, c.body, []]),
    ],
    plain: review.annotations.flatMap((a, i): [string, string][] => [
      [`annotation ${i} title`, a.title],
      [`annotation ${i} message`, a.message],
    ]),
  };
}

describe('posted text is inert (issue 9, requirement 8)', () => {
  const review = renderReview(input([llmFinding, crashFinding, staticFinding]));

  it('renders comments for the hostile findings (so the checks below look at something)', () => {
    expect(review.comments.map((c) => c.fingerprint).sort()).toEqual([crashFinding, llmFinding, staticFinding].map((f) => f.fingerprint).sort());
    expect(review.summary).toContain('Worst crash scenario');
    expect(review.checkSummary).toContain('Full values of the');
  });

  it('leaves no raw marker, HTML, mention, reference, link or control character in any markdown body', () => {
    const { markdown } = everyPostedText(review);
    for (const [where, body, own] of markdown) expectInertMarkdown(body, where, own);
  });

  it('leaves none in the annotations (plain text) either', () => {
    for (const [where, text] of everyPostedText(review).plain) expectInertPlain(text, where);
  });

  it('keeps every body under GitHub’s 65,536 characters and every annotation under 64 KB', () => {
    for (const [where, body] of everyPostedText(review).markdown) expect(body.length, where).toBeLessThan(GITHUB_BODY_LIMIT);
    for (const a of review.annotations) expect(a.message.length).toBeLessThan(64 * 1024);
  });

  it('caps each table cell and says where the full value is', () => {
    expect(review.summary).toMatch(/… \(9\d,\d{3} more characters; full value in the check run details \/ --json\)/);
    const longest = Math.max(...review.summary.split('\n').filter((l) => l.startsWith('|')).flatMap(cells).map((c) => c.length));
    expect(longest).toBeLessThanOrEqual(260);
  });

  it('puts the full values in the check run details, cut once at GitHub’s limit with a note', () => {
    expect(review.checkSummary).toContain(shown(BIG).slice(0, 2_000).replace(/<!--/g, '<!\u200B--').replace(/-->/g, '--\u200B>'));
    expect(review.checkSummary).toMatch(/characters cut here\*\* to stay under GitHub's 65,536-character limit/);
  });

  it('labels LLM-written text in every rendering', () => {
    const inline = review.comments.find((c) => c.fingerprint === llmFinding.fingerprint)!;
    expect(inline.body.split('\n')[0]).toContain(LLM_LABEL);
    expect(inline.body).toContain('The explanation was written by an LLM');
    const annotation = review.annotations.find((a) => a.startLine === 3)!;
    expect(annotation.message.startsWith(LLM_LABEL)).toBe(true);
    const sarif = toSarif(review);
    const result = sarif.runs[0]!.results.find((r) => r.partialFingerprints['crashprobe/v1'] === llmFinding.fingerprint)!;
    expect(result.message.text.startsWith(LLM_LABEL)).toBe(true);
    expect(result.properties).toMatchObject({ llmWritten: true });
    // crashprobe's own findings carry no such label
    expect(review.comments.find((c) => c.fingerprint === staticFinding.fingerprint)!.body).not.toContain(LLM_LABEL);
  });

  it('does not offer a suggestion whose code would have to change to be inert', () => {
    const inline = review.comments.find((c) => c.fingerprint === llmFinding.fingerprint)!;
    expect(inline.body).not.toContain('```suggestion');
    expect(inline.body).toContain('shown as text because it contains an HTML comment delimiter');
  });

  it('keeps the full value in the JSON, with no marker or tag in the file’s text', () => {
    const text = safeJson(review);
    expect(text).not.toMatch(/[<>&]/);
    const parsed = JSON.parse(text) as Review;
    expect(parsed).toEqual(JSON.parse(JSON.stringify(review)));
    expect(parsed.functions[0]!.worst!.evidence[0]!.values.after_rerun).toBe(BIG);
    expect(parsed.findings.find((f) => f.fingerprint === llmFinding.fingerprint)!.message).toContain(BIG);
  });

  it('keeps the full text in SARIF messages, inert for plain-text viewers', () => {
    const sarif = toSarif(review);
    expect(sarifLogSchema.safeParse(sarif).success).toBe(true);
    const text = JSON.stringify(sarif);
    expect(text).not.toMatch(/<!--|-->|<script|<img|<b>/i);
    for (const r of sarif.runs[0]!.results) expectInertPlain(r.message.text, `SARIF ${r.ruleId}`);
    const llm = sarif.runs[0]!.results.find((r) => r.partialFingerprints['crashprobe/v1'] === llmFinding.fingerprint)!;
    // Full length: only zero-width spaces were added and control characters dropped.
    expect(llm.message.text.replace(/\u200B/g, '')).toContain(shown(BIG));
    expect(llm.locations[0]!.physicalLocation.artifactLocation.uri).not.toMatch(/[<>|`@ ]/);
  });
});

describe('10,000 findings', () => {
  const many: ReviewFinding[] = Array.from({ length: 10_000 }, (_, i) => ({
    ...llmFinding,
    fingerprint: `audit-${i.toString(16).padStart(16, '0')}`,
    range: range(1 + (i % 19_000)),
    message: `${HOSTILE} ${i}`,
    suggestion: undefined,
  }));
  const started = Date.now();
  const review = renderReview(input(many));
  const ms = Date.now() - started;

  it('renders in well under a few seconds', () => {
    expect(ms).toBeLessThan(10_000);
  });

  it('keeps every body under the limit, inert, with the cut said', () => {
    const { markdown, plain } = everyPostedText(review);
    for (const [where, body, own] of markdown) {
      expect(body.length, where).toBeLessThan(GITHUB_BODY_LIMIT);
      expectInertMarkdown(body, where, own);
    }
    for (const [where, text] of plain.slice(0, 200)) expectInertPlain(text, where);
    // The list of findings not shown inline stops at a budget and says how many it left out:
    // listed + left out + inline = all 10,000, and that line is not what the body cut dropped.
    const more = /^- … and ([\d,]+) more: see the check run/m.exec(review.summary);
    expect(more).not.toBeNull();
    const listed = review.summary.split('\n').filter((l) => l.startsWith('- ``shop/')).length;
    expect(listed).toBeGreaterThanOrEqual(10);
    expect(listed + Number(more![1]!.replace(/,/g, '')) + review.comments.length).toBe(10_000);
    expect(review.summary).not.toContain('characters cut here');
    expect(review.comments).toHaveLength(30);
    expect(review.annotations).toHaveLength(10_000);
  });
});
