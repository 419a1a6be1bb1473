// Making text a pull request controls inert before crashprobe posts it.
//
// Everything a PR can influence (evidence cells, error text, stderr tails, file,
// function and scenario names, LLM findings, repair explanations) passes through
// one of these functions before it reaches a comment body, a check run, a job
// summary or an annotation. Pure; no GitHub calls.
//
// The techniques, and why GitHub renders them harmlessly:
// - Markdown syntax is backslash-escaped (CommonMark lets any ASCII punctuation be
//   escaped), HTML's `&`, `<`, `>` become entities: no tag, link, image, table
//   break or heading can be formed, and `<!--` / `-->` never appear in the source
//   of a posted body, so a fake `<!-- crashprobe:... -->` marker cannot exist.
// - `@name`, `#123`, `GH-123`, `https://` and `www.` get a zero-width space
//   (U+200B) after their first character, as Renovate does for release notes.
//   GitHub finds mentions and references in the rendered HTML's text, after
//   entities are decoded, so an entity for `@` would still mention; a ZWSP
//   between `@` and the name breaks its pattern and shows nothing. In markdown
//   the ZWSP is written as `&#8203;` (visible in the source, survives editors);
//   in plain text (annotations, SARIF) and code it is the character itself.
// - Inside code spans and fences nothing is rendered (GitHub also skips mentions
//   there); only the delimiter is chosen longer than any backtick run inside,
//   and `<!--` / `-->` still get a ZWSP so the raw body holds no marker.
// - C0/C1 control characters and bidirectional overrides (Trojan Source) are
//   dropped or shown as U+FFFD.
//
// Lengths: a table cell keeps at most CELL_LIMIT rendered characters, then says
// how many were cut and where the full value is (the check run details and
// `--json`); a whole body is cut by capBody once, at a safe boundary.

/** GitHub's maximum for a comment body, a review body and a check run's summary or text. */
export const GITHUB_BODY_LIMIT = 65_536;
/** What crashprobe allows itself per body: under GitHub's limit with room for a marker line. */
export const BODY_BUDGET = 65_000;
/** Rendered characters a table cell keeps before its "… (N more characters …)" note. */
export const CELL_LIMIT = 180;
/** Characters of prose (messages, hints, error text) kept per paragraph. */
export const PROSE_LIMIT = 4_000;

export const LLM_LABEL = 'Written by an LLM, not verified by a crash run';
export const LLM_CONFIRMED_LABEL = 'Found by an LLM audit, confirmed by a crash run';

const ZWSP = '\u200B';
const ZWSP_ENTITY = '&#8203;';

/** The note after a cut value; the full value stays in the JSON, the SARIF and the check run details. */
export function cutNote(remaining: number): string {
  return `… (${remaining.toLocaleString('en-US')} more characters; full value in the check run details / --json)`;
}

// C0 controls but tab and newline, DEL, C1 controls; bidi embeddings, overrides and isolates.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)?|[@-Z\\-_])/g;

/** Any value as text: strings as they are, other values as JSON, undefined as ''. */
export function asText(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? String(value);
}

/** Line breaks unified to \n, ANSI sequences and control characters dropped, bidi controls shown as U+FFFD. */
export function stripControls(value: unknown): string {
  return asText(value).replace(/\r\n?/g, '\n').replace(ANSI, '').replace(CONTROL, '').replace(BIDI, '\uFFFD');
}

/** For a terminal: no escape sequences, no control characters (tabs and newlines kept). */
export function inertTerminal(value: unknown): string {
  return stripControls(value);
}

type Mode = 'markdown' | 'html';

interface RenderOptions {
  mode: Mode;
  /** Rendered characters kept; the rest is replaced by cutNote. */
  max?: number;
  /** A GFM table cell: newlines become spaces. */
  cell?: boolean;
  /** Keep newlines (markdown only); every line start is escaped. */
  multiline?: boolean;
  /** Whether the text starts a line of the body (block syntax must be escaped). */
  lineStart?: boolean;
}

const MD_ESCAPED = new Set(['\\', '`', '*', '_', '~', '[', ']', '|', '$']);
const LINE_START_ESCAPED = new Set(['#', '-', '+', '=', '>']);
const HTML_ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
// In HTML mode markdown punctuation becomes a numeric entity too: GitHub does not parse
// markdown inside an HTML block, but if a renderer did, an entity is literal text there,
// never link, image, code or emphasis syntax.
const HTML_MD_ENTITY: Record<string, string> = Object.fromEntries(
  ['[', ']', '(', ')', '`', '*', '_', '~', '|', '\\', '!', '$'].map((c) => [c, `&#${c.charCodeAt(0)};`]),
);

/** What follows the character at `i` would make GitHub link or mention it: the ZWSP goes after it. */
function breaksLink(text: string, i: number, c: string): boolean {
  const next = text[i + 1] ?? '';
  if (c === '@') return /[A-Za-z0-9]/.test(next);
  if (c === '#') return /[0-9]/.test(next);
  if (c === 'H' || c === 'h') return /^g$/i.test(text[i - 1] ?? '') && next === '-' && /[0-9]/.test(text[i + 2] ?? '');
  if (c === ':') return text.startsWith('//', i + 1);
  if (c === 'w' || c === 'W') return /^ww$/i.test(text.slice(i - 2, i)) && next === '.';
  return false;
}

function render(value: unknown, options: RenderOptions): string {
  const text = stripControls(value);
  const html = options.mode === 'html';
  const keepLines = options.multiline && !html && !options.cell;
  let out = '';
  let lineStart = options.lineStart ?? !options.cell;
  let digitsOnly = false;
  let i = 0;
  for (const c of text) {
    let unit: string;
    if (c === '\n') {
      unit = keepLines ? '\n' : ' ';
    } else if (html) {
      unit = HTML_ENTITY[c] ?? HTML_MD_ENTITY[c] ?? c;
    } else if (c === '&' || c === '<' || c === '>') {
      unit = HTML_ENTITY[c]!;
    } else if (MD_ESCAPED.has(c) || (lineStart && LINE_START_ESCAPED.has(c)) || (digitsOnly && (c === '.' || c === ')'))) {
      unit = `\\${c}`;
    } else {
      unit = c;
    }
    if (c !== '\n' && breaksLink(text, i, c)) unit += ZWSP_ENTITY;
    if (options.max !== undefined && out.length + unit.length > options.max) {
      return `${out}${cutNote(text.length - i)}`;
    }
    out += unit;
    if (c === '\n') {
      lineStart = keepLines === true;
      digitsOnly = lineStart;
    } else if (lineStart && (c === ' ' || c === '\t')) {
      // leading blanks: the line's first character is still to come
    } else {
      digitsOnly = (lineStart || digitsOnly) && c >= '0' && c <= '9';
      lineStart = false;
    }
    i += c.length;
  }
  return out;
}

/** Markdown prose: every markdown and HTML character escaped, mentions and references broken, newlines to spaces unless `multiline`. */
export function inertText(value: unknown, options: { max?: number; multiline?: boolean; lineStart?: boolean } = {}): string {
  return render(value, { mode: 'markdown', max: options.max, multiline: options.multiline, lineStart: options.lineStart ?? true });
}

/** One GFM table cell: inertText on one line, `|` escaped, capped at CELL_LIMIT rendered characters. */
export function inertCell(value: unknown, max = CELL_LIMIT): string {
  return render(value, { mode: 'markdown', cell: true, max, lineStart: false });
}

/** Text inside raw HTML (a `<summary>`, `<code>` or attribute): entities only, since markdown is not parsed there. */
export function inertHtml(value: unknown, max?: number): string {
  return render(value, { mode: 'html', max, cell: true });
}

/** `<!--` and `-->` broken by a ZWSP: for text no renderer escapes (code, plain text). */
function breakMarkers(text: string): string {
  return text.replace(/<!--/g, `<!${ZWSP}--`).replace(/--!?>/g, (m) => `--${ZWSP}${m.slice(2)}`);
}

function cutCodePoints(text: string, max: number): { kept: string; remaining: number } {
  if (text.length <= max) return { kept: text, remaining: 0 };
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { kept: text.slice(0, end), remaining: text.length - end };
}

/** An inline code span showing `value` literally on one line; `cell` for a GFM table cell. */
export function inertCodeSpan(value: unknown, options: { max?: number; cell?: boolean } = {}): string {
  const { kept, remaining } = cutCodePoints(stripControls(value).replace(/\n/g, ' '), options.max ?? 200);
  let content = breakMarkers(kept);
  // In a table, `\|` is the only way to keep a pipe inside a code span; a ZWSP after
  // every backslash keeps a `\` of the value from escaping the escape.
  if (options.cell) content = content.replace(/\\/g, `\\${ZWSP}`).replace(/\|/g, '\\|');
  if (content === '') content = ' ';
  const longest = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = content.startsWith('`') || content.endsWith('`') || (content.startsWith(' ') && content.endsWith(' ') && content.trim() !== '') ? ' ' : '';
  const span = `${fence}${pad}${content}${pad}${fence}`;
  return remaining ? `${span}${cutNote(remaining)}` : span;
}

/** A fenced code block holding `code` literally, its fence longer than any backtick run inside. */
export function inertFence(code: unknown, info = ''): string {
  const text = breakMarkers(stripControls(code)).replace(/\n+$/, '');
  const longest = Math.max(0, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

/** Whether code shown in a fence would need changing to be inert (a suggestion must then not be offered as one). */
export function hasMarkerSyntax(code: string): boolean {
  return /<!--|--!?>/.test(code);
}

/** Plain text (check-run annotations, SARIF messages): no markup is rendered there, but markers and mentions are broken all the same. */
export function inertPlain(value: unknown, max?: number): string {
  const text = stripControls(value)
    .replace(/\*\*|<\/?sub>/g, '')
    .replace(/@(?=[A-Za-z0-9])/g, `@${ZWSP}`)
    // Shown as text, but a tag-like `<x` still gets a ZWSP, so no consumer that renders HTML finds a tag.
    .replace(/<(?=[A-Za-z/?])/g, `<${ZWSP}`);
  const marked = breakMarkers(text);
  if (max === undefined || marked.length <= max) return marked;
  const { kept, remaining } = cutCodePoints(marked, max);
  return `${kept}${cutNote(remaining)}`;
}

// crashprobe's own markup inside prose that also carries PR text: code spans,
// **bold**, <sub>…</sub>, <br>. Everything else in the prose is escaped.
const MARKUP = /(`+)([^`\n]+?)\1(?!`)|\*\*|<\/?sub>|<br\s*\/?>/g;

/**
 * Prose crashprobe wrote around PR-controlled pieces (a finding's message, a note):
 * its code spans are rebuilt inert, `**bold**` and `<sub>` kept, all else escaped.
 */
export function inertMarkdown(value: unknown, options: { max?: number; multiline?: boolean } = {}): string {
  const max = options.max ?? PROSE_LIMIT;
  const { kept, remaining } = cutCodePoints(stripControls(value), max);
  let out = '';
  let last = 0;
  const text = (piece: string) => {
    if (!piece) return;
    out += inertText(piece, { multiline: options.multiline, lineStart: out === '' || out.endsWith('\n') });
  };
  for (const match of kept.matchAll(MARKUP)) {
    text(kept.slice(last, match.index));
    out += match[1] !== undefined ? inertCodeSpan(match[2], { max }) : match[0];
    last = match.index + match[0].length;
  }
  text(kept.slice(last));
  return remaining ? `${out}${cutNote(remaining)}` : out;
}

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

interface BodyState {
  /** The open fence (its characters) and where its opening line starts, if the text ends inside one. */
  fence?: { chars: string; info: string; start: number };
  /** Unclosed <details> elements outside fences. */
  details: number;
}

function scan(text: string): BodyState {
  const state: BodyState = { details: 0 };
  let offset = 0;
  for (const line of text.split('\n')) {
    const fence = FENCE_LINE.exec(line);
    if (state.fence) {
      if (fence && fence[1]![0] === state.fence.chars[0] && fence[1]!.length >= state.fence.chars.length && fence[2]!.trim() === '') state.fence = undefined;
    } else if (fence && !(fence[1]![0] === '`' && fence[2]!.includes('`'))) {
      state.fence = { chars: fence[1]!, info: fence[2]!.trim(), start: offset };
    } else {
      state.details += (line.match(/<details[\s>]/g) ?? []).length - (line.match(/<\/details>/g) ?? []).length;
      state.details = Math.max(0, state.details);
    }
    offset += line.length + 1;
  }
  return state;
}

/** The last position ≤ `end` that cuts no entity, backslash escape or surrogate pair. */
function safeCut(text: string, end: number): number {
  let cut = end;
  const amp = text.lastIndexOf('&', cut - 1);
  if (amp >= 0 && cut - amp < 12 && !text.slice(amp, cut).includes(';') && /^&#?\w*$/.test(text.slice(amp, cut))) cut = amp;
  let slashes = 0;
  while (cut - slashes - 1 >= 0 && text[cut - slashes - 1] === '\\') slashes++;
  if (slashes % 2 === 1) cut -= 1;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return cut;
}

/**
 * The body cut once to fit `limit` characters (default BODY_BUDGET), at a line
 * boundary where there is one, never inside an escape; an open fence is closed
 * (a `suggestion` fence is dropped whole: half a suggestion must not be applied),
 * open <details> are closed, and a last line says how much was cut and where the rest is.
 */
export function capBody(body: string, limit = BODY_BUDGET, where = 'the full review is in the check run details and in --json'): string {
  if (body.length <= limit) return body;
  const noteFor = (cut: number) => `\n\n**… ${cut.toLocaleString('en-US')} characters cut here** to stay under GitHub's ${GITHUB_BODY_LIMIT.toLocaleString('en-US')}-character limit; ${where}.`;
  const reserve = noteFor(body.length).length + 200;
  let cut = Math.max(0, limit - reserve);
  const newline = body.lastIndexOf('\n', cut);
  cut = newline > 0 && cut - newline < 8_000 ? newline : safeCut(body, cut);
  let state = scan(body.slice(0, cut));
  if (state.fence && /^suggestion\b/.test(state.fence.info)) {
    cut = state.fence.start > 0 ? state.fence.start - 1 : 0;
    state = scan(body.slice(0, cut));
  }
  let out = body.slice(0, cut).trimEnd();
  if (state.fence) out += `\n${state.fence.chars}`;
  out += '\n</details>'.repeat(state.details);
  out += noteFor(body.length - cut);
  return out.length <= limit ? out : out.slice(0, safeCut(out, limit));
}
