// A verified repair as the review shows it: the one region of the file it
// changes (lines of the head side and their new text), and a unified diff of it.
export interface ChangedRegion {
  /** First and last line (1-based) of the original that the new text replaces. */
  startLine: number;
  endLine: number;
  text: string;
}

/** The smallest run of original lines whose replacement turns `before` into `after` (never empty: an insertion takes the line above). */
export function changedRegion(before: string, after: string): ChangedRegion | undefined {
  if (before === after) return undefined;
  const a = before.split('\n');
  const b = after.split('\n');
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  let start = prefix;
  if (a.length - suffix <= start && start > 0) start -= 1;
  const endExclusive = Math.max(a.length - suffix, start + 1);
  const newEnd = b.length - (a.length - endExclusive);
  return { startLine: start + 1, endLine: endExclusive, text: b.slice(start, newEnd).join('\n') };
}

/** A unified diff of one file: a line diff of the changed region, one hunk per group of changes with `context` lines around each. */
export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  const region = changedRegion(before, after);
  if (!region) return '';
  const a = before.split('\n');
  const b = after.split('\n');
  const from = region.startLine - 1;
  const ops: { op: ' ' | '-' | '+'; line: string }[] = [
    ...a.slice(0, from).map((line) => ({ op: ' ' as const, line })),
    ...lineDiff(a.slice(from, region.endLine), region.text.split('\n')),
    ...a.slice(region.endLine).map((line) => ({ op: ' ' as const, line })),
  ];
  // Group changes whose context would touch into one hunk.
  const changed = ops.map((o, i) => (o.op === ' ' ? -1 : i)).filter((i) => i >= 0);
  const hunks: [number, number][] = [];
  for (const i of changed) {
    const last = hunks.at(-1);
    if (last && i - last[1] <= 2 * context + 1) last[1] = i;
    else hunks.push([i, i]);
  }
  const out = [`--- a/${path}`, `+++ b/${path}`];
  for (const [first, last] of hunks) {
    const lo = Math.max(0, first - context);
    const hi = Math.min(ops.length - 1, last + context);
    const slice = ops.slice(lo, hi + 1);
    const oldStart = ops.slice(0, lo).filter((o) => o.op !== '+').length + 1;
    const newStart = ops.slice(0, lo).filter((o) => o.op !== '-').length + 1;
    out.push(`@@ -${oldStart},${slice.filter((o) => o.op !== '+').length} +${newStart},${slice.filter((o) => o.op !== '-').length} @@`);
    out.push(...slice.map((o) => `${o.op}${o.line}`));
  }
  return out.join('\n');
}

/** Longest-common-subsequence line diff of two short runs of lines (a changed region); removals before additions, as diff(1) shows them. */
function lineDiff(a: readonly string[], b: readonly string[]): { op: ' ' | '-' | '+'; line: string }[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: { op: ' ' | '-' | '+'; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ op: ' ', line: a[i]! });
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push({ op: '-', line: a[i++]! });
    else out.push({ op: '+', line: b[j++]! });
  }
  return out;
}

/**
 * Two repairs of one file, each made against `original`, as one text: their changed regions
 * applied together when they do not overlap (repairs of different functions). Undefined when
 * they touch the same lines, or both add the same helper (it would be defined twice): the
 * second then waits for the next review.
 */
export function mergeRepairs(original: string, first: string, second: string): string | undefined {
  const a = changedRegion(original, first);
  const b = changedRegion(original, second);
  if (!a) return second;
  if (!b) return first;
  if (!(a.endLine < b.startLine || b.endLine < a.startLine)) return undefined;
  const addedBoth = (line: string) => first.split('\n').includes(line) && second.split('\n').includes(line) && !original.split('\n').includes(line);
  if (first.split('\n').some((line) => /^class \w+/.test(line) && addedBoth(line))) return undefined;
  const lines = original.split('\n');
  for (const region of [a, b].sort((x, y) => y.startLine - x.startLine)) lines.splice(region.startLine - 1, region.endLine - region.startLine + 1, ...region.text.split('\n'));
  return lines.join('\n');
}
