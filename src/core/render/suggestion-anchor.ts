// Where an inline comment that carries a one-click `suggestion` must sit. GitHub
// replaces exactly the commented lines with the block, so the comment has to span
// the lines the repair replaces, not the finding's own line: a BEGIN inserted
// after line 6, posted on the commit() at line 10, would replace the commit().
import type { ReviewFinding } from '../model/review.ts';

/** A suggestion widened to take in the finding's line stays short enough to read. */
const MAX_WIDENED_LINES = 15;

export interface SuggestionAnchor {
  line: number;
  /** First line of a multi-line comment; absent for one line. */
  startLine?: number;
  /** The finding, its suggestion's lines and text made to match the span. */
  finding: ReviewFinding;
}

/**
 * The span for a finding whose suggestion is a block (not a collapsed diff), every line of it
 * inside the diff's hunks; widened to include the finding's own line (`findingLine`) when the
 * lines between are in the hunk too, so the comment still points at what it explains.
 * Undefined when the finding has no block or its lines cannot be commented on.
 */
export function suggestionAnchor(f: ReviewFinding, findingLine: number | undefined, hunk: ReadonlySet<number> | undefined, source: string[] | undefined): SuggestionAnchor | undefined {
  const s = f.suggestion;
  if (!s || s.diff !== undefined || !hunk || !source) return undefined;
  if (!allIn(hunk, s.startLine, s.endLine)) return undefined;
  let { startLine, endLine, text } = s;
  if (findingLine !== undefined) {
    const lo = Math.min(startLine, findingLine);
    const hi = Math.max(endLine, findingLine);
    if (hi - lo < MAX_WIDENED_LINES && allIn(hunk, lo, hi)) {
      // The lines added around the region are unchanged by the repair: the block repeats them as they are.
      text = [...source.slice(lo - 1, startLine - 1), text, ...source.slice(endLine, hi)].join('\n');
      startLine = lo;
      endLine = hi;
    }
  }
  return {
    line: endLine,
    ...(startLine < endLine ? { startLine } : {}),
    finding: { ...f, suggestion: { ...s, startLine, endLine, text } },
  };
}

function allIn(hunk: ReadonlySet<number>, from: number, to: number): boolean {
  for (let line = from; line <= to; line++) if (!hunk.has(line)) return false;
  return true;
}
