// `with value as name:` before a use of `name`: the with item's value (what `__enter__` is called on)
// and where the binding is written, the last such binding in the use's function before it. Only a
// plain name as target; `as (a, b)` unpacks what `__enter__` returns and is not followed.
import { enclosingFunctionNode } from './functions.ts';
import type { SyntaxNode } from './model.ts';

export interface WithAlias {
  /** The expression the with item enters: `self._connect()` in `with self._connect() as con:`. */
  value: SyntaxNode;
  start: number;
}

export function withAliasBefore(use: SyntaxNode): WithAlias | undefined {
  const fn = enclosingFunctionNode(use);
  const body = fn?.childForFieldName('body');
  if (!fn || !body) return undefined;
  let found: WithAlias | undefined;
  for (const item of body.descendantsOfType('with_item')) {
    if (item.startIndex >= use.startIndex) break;
    if (enclosingFunctionNode(item)?.id !== fn.id) continue;
    const pattern = item.childForFieldName('value');
    if (pattern?.type !== 'as_pattern') continue;
    const target = pattern.childForFieldName('alias')?.namedChildren[0];
    const value = pattern.namedChildren[0];
    if (target?.type !== 'identifier' || target.text !== use.text || !value || value.endIndex > use.startIndex) continue;
    found = { value, start: item.startIndex };
  }
  return found;
}
