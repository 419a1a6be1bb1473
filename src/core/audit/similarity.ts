// The six signals of PROBE's similarity filter (A.4): same file, overlapping
// lines, same function, description similarity, snippet similarity, same
// category. The filter decides which pairs are likely enough to be worth an LLM
// judge's call; without a judge, a weighted vote of the signals decides alone
// (the "signals-only" matcher, measurably weaker on the hard cases).
export interface MatchItem {
  title: string;
  description: string;
  file: string;
  start_line: number;
  end_line: number;
  function?: string;
  category?: string;
  trigger?: string;
  snippet?: string;
}

export interface Signals {
  sameFile: boolean;
  /** Lines between the two ranges; 0 when they overlap. */
  lineGap: number;
  sameFunction: boolean;
  /** Cosine similarity of the words of title, description and trigger. */
  description: number;
  /** Jaccard similarity of the code tokens of the cited lines. */
  snippet: number;
  sameCategory: boolean;
}

const STOP = new Set(
  'the a an and or of to in on at for is are be been was were it its this that with as by from not no but if then than when which who what into out so can could would should may might does do did has have had there their them they one two also only any all each more most same other such before after while'.split(' '),
);

function stem(word: string): string {
  return word.replace(/(ing|ed|es|s|ly)$/, '').slice(0, 8);
}

export function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z_][a-z0-9_]+/g) ?? []).filter((w) => w.length > 2 && !STOP.has(w)).map(stem);
}

function cosine(a: readonly string[], b: readonly string[]): number {
  if (!a.length || !b.length) return 0;
  const count = (list: readonly string[]) => list.reduce((m, w) => m.set(w, (m.get(w) ?? 0) + 1), new Map<string, number>());
  const ca = count(a);
  const cb = count(b);
  let dot = 0;
  for (const [w, n] of ca) dot += n * (cb.get(w) ?? 0);
  const norm = (m: Map<string, number>) => Math.sqrt([...m.values()].reduce((s, n) => s + n * n, 0));
  return dot / (norm(ca) * norm(cb));
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size || !b.size) return 0;
  let both = 0;
  for (const x of a) if (b.has(x)) both += 1;
  return both / (a.size + b.size - both);
}

const codeTokens = (code: string) => new Set(code.match(/[A-Za-z_][A-Za-z0-9_]*|'[^']*'|"[^"]*"/g) ?? []);
const normalizeFunction = (name: string | undefined) => (name ?? '').trim().replace(/\(.*$/, '').split('.').pop() ?? '';
const normalizeCategory = (c: string | undefined) => (c ?? '').toLowerCase().replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '');
const normalizePath = (p: string) => p.replace(/^\.?\//, '');

export function signals(a: MatchItem, b: MatchItem): Signals {
  const sameFile = normalizePath(a.file) === normalizePath(b.file);
  const gap = Math.max(0, Math.max(a.start_line, b.start_line) - Math.min(a.end_line, b.end_line));
  const fa = normalizeFunction(a.function);
  return {
    sameFile,
    lineGap: sameFile ? gap : Number.POSITIVE_INFINITY,
    sameFunction: sameFile && fa !== '' && fa === normalizeFunction(b.function),
    description: cosine(words(`${a.title} ${a.description} ${a.trigger ?? ''}`), words(`${b.title} ${b.description} ${b.trigger ?? ''}`)),
    snippet: sameFile && a.snippet && b.snippet ? jaccard(codeTokens(a.snippet), codeTokens(b.snippet)) : 0,
    sameCategory: normalizeCategory(a.category) !== '' && normalizeCategory(a.category) === normalizeCategory(b.category),
  };
}

export const FILTER_THRESHOLDS = { lineGap: 3, description: 0.3, snippet: 0.5, crossFileDescription: 0.55 } as const;

/**
 * Worth a judge's call: in the same file, any location or content signal reaches
 * its threshold; across files, only a very similar description (a bug reported
 * at a caller and at its callee).
 */
export function likelyPair(s: Signals): boolean {
  if (!s.sameFile) return s.description >= FILTER_THRESHOLDS.crossFileDescription;
  return s.lineGap <= FILTER_THRESHOLDS.lineGap || s.sameFunction || s.description >= FILTER_THRESHOLDS.description || s.snippet >= FILTER_THRESHOLDS.snippet;
}

export const SIGNAL_WEIGHTS = { sameFile: 0.1, lines: 0.2, sameFunction: 0.1, description: 0.35, snippet: 0.1, sameCategory: 0.15 } as const;
export const SIGNALS_ONLY_THRESHOLD = 0.62;

/** A weighted vote in 0..1. */
export function signalScore(s: Signals): number {
  const lines = s.lineGap === 0 ? 1 : s.lineGap <= FILTER_THRESHOLDS.lineGap ? 0.5 : 0;
  return (
    SIGNAL_WEIGHTS.sameFile * Number(s.sameFile) +
    SIGNAL_WEIGHTS.lines * lines +
    SIGNAL_WEIGHTS.sameFunction * Number(s.sameFunction) +
    SIGNAL_WEIGHTS.description * Math.min(1, s.description / 0.6) +
    SIGNAL_WEIGHTS.snippet * s.snippet +
    SIGNAL_WEIGHTS.sameCategory * Number(s.sameCategory)
  );
}

/** The decision without a judge. */
export function signalsSayDuplicate(s: Signals): boolean {
  return likelyPair(s) && signalScore(s) >= SIGNALS_ONLY_THRESHOLD;
}
