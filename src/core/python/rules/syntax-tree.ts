// The tree walks everything else in the rules builds on, in a module of their
// own so that syntax.ts and exclusive-guards.ts can share them without a cycle.
import type { SyntaxNode } from '../model.ts';

export function contains(outer: SyntaxNode, inner: SyntaxNode): boolean {
  return outer.startIndex <= inner.startIndex && inner.endIndex <= outer.endIndex;
}

/** The items of a `with` statement itself (`with a, b:`), not those of a `with` nested in its body. */
export function ownWithItems(statement: SyntaxNode): SyntaxNode[] {
  return statement.descendantsOfType('with_item').filter((item) => item.parent?.parent?.id === statement.id);
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
