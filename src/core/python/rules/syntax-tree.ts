// The two tree walks everything else in the rules builds on, in a module of
// their own so that syntax.ts and exclusive-guards.ts can share them without a cycle.
import type { SyntaxNode } from '../model.ts';

export function contains(outer: SyntaxNode, inner: SyntaxNode): boolean {
  return outer.startIndex <= inner.startIndex && inner.endIndex <= outer.endIndex;
}

/** The ancestors of `node` up to (not including) the function `fnNode`, innermost first. */
export function ancestorsWithin(node: SyntaxNode, fnNode: SyntaxNode): SyntaxNode[] {
  const chain: SyntaxNode[] = [];
  for (let current = node.parent; current && current.startIndex >= fnNode.startIndex; current = current.parent) {
    if (current.id === fnNode.id) break;
    chain.push(current);
  }
  return chain;
}
