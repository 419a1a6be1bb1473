// Finding ids in the manner of CodeQL's fingerprints: a hash of the reported
// code, normalized, so a finding keeps its id when lines move above it.
import { createHash } from 'node:crypto';
import type { SyntaxNode } from '../model.ts';

/** The node's text without comments, whitespace collapsed and dropped next to punctuation. */
export function normalizedCode(node: SyntaxNode): string {
  let text = node.text;
  const comments = node.descendantsOfType('comment');
  for (const comment of [...comments].reverse()) {
    const start = comment.startIndex - node.startIndex;
    const end = comment.endIndex - node.startIndex;
    text = text.slice(0, start) + text.slice(end);
  }
  return text
    .replace(/\s+/g, ' ')
    .replace(/ ?([^\w\s]) ?/g, '$1')
    .trim();
}

/**
 * `ruleId:hash`, the hash over path, qualname and the normalized code. The
 * `occurrence` (0 for the first) tells apart identical code reported twice by
 * one rule in one function, counted in source order.
 */
export function findingId(ruleId: string, path: string, qualname: string, code: string, occurrence: number): string {
  const hash = createHash('sha256').update([path, qualname, code, String(occurrence)].join('\0')).digest('hex').slice(0, 16);
  return `${ruleId}:${hash}`;
}
