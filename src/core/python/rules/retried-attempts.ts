// Writes that are retries of one attempt, not steps of one change: the same call,
// its result bound to a name, and the function returning as soon as an attempt
// brings a result back (`data = self._dequeue(); if data is not None: return data`).
// A later attempt runs only when the earlier ones came back empty, so there is no
// earlier step a crash could leave half done. huey's PostgresStorage.dequeue tries
// its one-statement DELETE ... RETURNING once, then once per LISTEN notify.
import type { Effect, SyntaxNode } from '../model.ts';
import { compactText } from './syntax.ts';

export function retriesOfOneAttempt(writes: readonly Effect[]): boolean {
  if (writes.length === 0) return false;
  const call = compactText(writes[0]!.node);
  return writes.every((write) => compactText(write.node) === call && returnsOnResult(write.node));
}

/** `name = <call>` directly followed by `if <name has a result>: ... return`. */
function returnsOnResult(callNode: SyntaxNode): boolean {
  const assignment = callNode.parent;
  if (assignment?.type !== 'assignment' || assignment.childForFieldName('right')?.id !== callNode.id) return false;
  const name = assignment.childForFieldName('left');
  const statement = assignment.parent;
  if (name?.type !== 'identifier' || statement?.type !== 'expression_statement') return false;
  const next = skipComments(statement.nextNamedSibling, (node) => node.nextNamedSibling);
  if (next?.type !== 'if_statement' || !holdsWhenSet(next.childForFieldName('condition'), name.text)) return false;
  const last = skipComments(next.childForFieldName('consequence')?.lastNamedChild ?? null, (node) => node.previousNamedSibling);
  return last?.type === 'return_statement';
}

function skipComments(node: SyntaxNode | null, step: (node: SyntaxNode) => SyntaxNode | null): SyntaxNode | null {
  let current = node;
  while (current?.type === 'comment') current = step(current);
  return current;
}

/** True when the condition is sure to hold once `name` has a result: `name`, `name is not None`, or either side of an `or`. */
function holdsWhenSet(condition: SyntaxNode | null, name: string): boolean {
  if (!condition) return false;
  if (condition.type === 'parenthesized_expression') return holdsWhenSet(condition.namedChildren[0] ?? null, name);
  if (condition.type === 'identifier') return condition.text === name;
  if (condition.type === 'boolean_operator' && condition.childForFieldName('operator')?.type === 'or') {
    return holdsWhenSet(condition.childForFieldName('left'), name) || holdsWhenSet(condition.childForFieldName('right'), name);
  }
  if (condition.type === 'comparison_operator' && condition.namedChildren.length === 2) {
    const operators = condition.children.filter((child) => !child.isNamed).map((child) => child.type);
    const [left, right] = condition.namedChildren as [SyntaxNode, SyntaxNode];
    return operators.join(' ') === 'is not' && left.text === name && right.type === 'none';
  }
  return false;
}
