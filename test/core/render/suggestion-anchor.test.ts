// A one-click suggestion replaces exactly the commented lines on GitHub: the comment
// must span the lines the repair replaces (widened to the finding's own line when
// the lines between are in the hunk), or applying it would break the code.
import { describe, expect, it } from 'vitest';
import type { ReviewFinding } from '../../../src/core/model/review.ts';
import { suggestionAnchor } from '../../../src/core/render/suggestion-anchor.ts';

const source = ['def f(conn):', '    check()', '    conn.execute("UPDATE a SET n = 1")', '    conn.execute("UPDATE b SET n = 1")', '    conn.commit()'];
// The repair inserts BEGIN after line 2; the finding is on the commit() at line 5.
const finding = {
  path: 'app.py',
  range: { startLine: 5, startColumn: 0, endLine: 5, endColumn: 0 },
  suggestion: { startLine: 2, endLine: 2, text: '    check()\n    conn.execute("BEGIN")', verified: 'deterministic repair' },
} as ReviewFinding;

function apply(lines: string[], from: number, to: number, text: string): string[] {
  return [...lines.slice(0, from - 1), ...text.split('\n'), ...lines.slice(to)];
}

describe('suggestionAnchor', () => {
  it('spans the replaced lines and the finding line, and applying the block gives the repair', () => {
    const span = suggestionAnchor(finding, 5, new Set([1, 2, 3, 4, 5]), source)!;
    expect([span.startLine, span.line]).toEqual([2, 5]);
    const s = span.finding.suggestion!;
    expect(apply(source, span.startLine!, span.line, s.text)).toEqual(apply(source, 2, 2, finding.suggestion!.text));
  });

  it('spans only the replaced lines when a line between them and the finding is outside the hunk', () => {
    const span = suggestionAnchor(finding, 5, new Set([1, 2, 3, 5]), source)!;
    expect([span.startLine, span.line, span.finding.suggestion!.text]).toEqual([undefined, 2, finding.suggestion!.text]);
  });

  it('gives no span for a repair shown as a diff, or whose lines are outside the hunk', () => {
    expect(suggestionAnchor({ ...finding, suggestion: { ...finding.suggestion!, diff: '--- a' } }, 5, new Set([1, 2, 3, 4, 5]), source)).toBeUndefined();
    expect(suggestionAnchor(finding, 5, new Set([4, 5]), source)).toBeUndefined();
  });
});
