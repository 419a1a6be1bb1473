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

/** A unified diff of one file with one hunk around the changed region. */
export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  const region = changedRegion(before, after);
  if (!region) return '';
  const a = before.split('\n');
  const removed = a.slice(region.startLine - 1, region.endLine);
  const added = region.text.split('\n');
  const from = Math.max(0, region.startLine - 1 - context);
  const to = Math.min(a.length, region.endLine + context);
  const head = a.slice(from, region.startLine - 1);
  const tail = a.slice(region.endLine, to);
  const oldCount = head.length + removed.length + tail.length;
  const newCount = head.length + added.length + tail.length;
  return [
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -${from + 1},${oldCount} +${from + 1},${newCount} @@`,
    ...head.map((l) => ` ${l}`),
    ...removed.map((l) => `-${l}`),
    ...added.map((l) => `+${l}`),
    ...tail.map((l) => ` ${l}`),
  ].join('\n');
}
