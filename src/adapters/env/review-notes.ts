// The dependency notes of a review (what was installed, what was not and why), added
// after the review is rendered: they are known only once the crash harness ran.
import { GITHUB_BODY_LIMIT, inertMarkdown } from '../../core/render/inert.ts';
import type { Review } from '../../core/model/review.ts';

const MAX_NOTES = 12;

function section(notes: string[]): string {
  // Notes quote the repository's dependency files: made inert like every other note.
  const shown = notes.slice(0, MAX_NOTES).map((n) => `- ${inertMarkdown(n, { max: 400 })}`);
  if (notes.length > MAX_NOTES) shown.push(`- … and ${notes.length - MAX_NOTES} more`);
  return ['#### Dependencies', '', ...shown].join('\n');
}

/** Appended when it fits GitHub's body limit (the summary is already capped just under it). */
function append(body: string, text: string): string {
  if (body.length + text.length + 2 > GITHUB_BODY_LIMIT) return body;
  return `${body.trimEnd()}\n\n${text}`;
}

export function withDependencyNotes(review: Review, notes: string[]): Review {
  if (notes.length === 0) return review;
  const text = section(notes);
  return { ...review, summary: append(review.summary, text), checkSummary: append(review.checkSummary, text), notes: [...review.notes, ...notes] };
}
