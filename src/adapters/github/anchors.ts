// Which inline comments GitHub will accept: a comment's line (and start line)
// must be a new-side line inside a hunk of the file's patch, or the whole
// review fails with 422. Checked here, before anything is posted.
import { commentableLines, parseUnifiedDiff } from '../../core/python/diff.ts';
import type { ChangedFile } from '../../core/ports.ts';
import type { InlineComment } from '../../core/review/model.ts';
import { unifiedDiff } from '../../core/review/review.ts';

/** GitHub's limit is higher, but a review with more than this is not read; the rest go to the summary. */
export const MAX_INLINE_COMMENTS = 30;

export interface PlacedComments {
  inline: InlineComment[];
  /** Comments that cannot be anchored (outside every hunk) or are past the cap: listed in the summary. */
  outside: InlineComment[];
}

const SEVERITY_RANK = { error: 3, warning: 2, info: 1 } as const;

export function placeComments(comments: readonly InlineComment[], files: readonly ChangedFile[], limit = MAX_INLINE_COMMENTS): PlacedComments {
  const lines = commentableLines(parseUnifiedDiff(unifiedDiff(files)));
  const worstFirst = [...comments].sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity]);
  const inline: InlineComment[] = [];
  const outside: InlineComment[] = [];
  for (const comment of worstFirst) {
    const hunk = lines.get(comment.path);
    if (!hunk?.has(comment.line) || inline.length >= limit) {
      outside.push(comment);
      continue;
    }
    // A range whose start is outside the hunk would be refused as a whole: keep the comment, drop the range.
    const { startLine, ...single } = comment;
    inline.push(startLine !== undefined && startLine < comment.line && hunk.has(startLine) ? comment : single);
  }
  return { inline, outside };
}
