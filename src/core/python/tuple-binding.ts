// `a, b = value` before a use of `b`: the value and the name's position in the
// tuple, the last such binding in the use's function before it.
import { enclosingFunctionNode } from './functions.ts';
import type { SyntaxNode } from './model.ts';

export interface TupleSource {
  value: SyntaxNode;
  position: number;
}

export function localTupleSource(use: SyntaxNode): TupleSource | undefined {
  const body = enclosingFunctionNode(use)?.childForFieldName('body');
  if (!body) return undefined;
  let found: TupleSource | undefined;
  for (const assignment of body.descendantsOfType('assignment')) {
    if (assignment.startIndex >= use.startIndex) break;
    const left = assignment.childForFieldName('left');
    const right = assignment.childForFieldName('right');
    if (!left || !right || (left.type !== 'pattern_list' && left.type !== 'tuple_pattern' && left.type !== 'tuple')) continue;
    const position = left.namedChildren.findIndex((name) => name.type === 'identifier' && name.text === use.text);
    if (position >= 0) found = { value: right, position };
  }
  return found;
}
