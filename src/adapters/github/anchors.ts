// Which comments go inline: the one placement and capping rule, for the App and
// the Action alike. GitHub accepts a comment only on a new-side line inside a
// hunk of the file's patch (or the whole review fails with 422), so every anchor
// is checked here before anything is posted; past the cap, the rest go to the
// summary. The order is the core's ranking (worst first), kept as given: there is
// one ranking, the core's, and this file does not sort again.
import { commentableLines, parseUnifiedDiff } from '../../core/python/diff.ts';
import type { ChangedFile } from '../../core/ports.ts';
import type { InlineComment } from '../../core/model/review.ts';

/** GitHub's limit is higher, but a review with more than this is not read; the rest go to the summary. */
export const MAX_INLINE_COMMENTS = 30;

export interface PlacedComments {
  inline: InlineComment[];
  /** Comments that cannot be anchored (outside every hunk) or are past the cap: listed in the summary. */
  outside: InlineComment[];
}

export function placeComments(comments: readonly InlineComment[], files: readonly ChangedFile[], limit = MAX_INLINE_COMMENTS): PlacedComments {
  const lines = commentableLines(parseUnifiedDiff(filesAsDiff(files)));
  const inline: InlineComment[] = [];
  const outside: InlineComment[] = [];
  const seen = new Set<string>();
  for (const comment of comments) {
    const hunk = lines.get(comment.path);
    // Two comments with one fingerprint would be one thread on GitHub: the first (worst) one stands for both.
    if (!hunk?.has(comment.line) || inline.length >= limit || seen.has(comment.fingerprint)) {
      outside.push(comment);
      continue;
    }
    seen.add(comment.fingerprint);
    // A range whose start is outside the hunk would be refused as a whole: keep the comment, drop the range.
    const { startLine, ...single } = comment;
    inline.push(startLine !== undefined && startLine < comment.line && hunk.has(startLine) ? comment : single);
  }
  return { inline, outside };
}

/** GitHub's per-file patches as one unified diff with headers (only the new side's lines matter here). */
function filesAsDiff(files: readonly ChangedFile[]): string {
  return files
    .filter((f) => f.patch !== undefined && f.status !== 'removed')
    .map((f) => `--- ${f.status === 'added' ? '/dev/null' : `a/${f.previousPath ?? f.path}`}\n+++ b/${f.path}\n${f.patch}\n`)
    .join('');
}
