// What a call of a decorated function does through its decorator's wrapper,
// when the decorator is a function of the same module: persist-queue's
//
//     def with_conditional_transaction(func):
//         def _execute(obj, *args, **kwargs):
//             with obj._putter as tran:
//                 stat, param = func(obj, *args, **kwargs)
//                 cur.execute(stat, param)
//                 tran.commit()
//         return _execute
//
//     @with_conditional_transaction
//     def _delete(self, key):
//         return self._SQL_DELETE.format(...), (key,)
//
// A call of `_delete` runs the wrapper's effects; a statement the wrapper takes
// from the decorated function's result is read from that function's `return`.
// Partial: only `@name` decorators without arguments, and a wrapper the
// decorator returns by name; functools.wraps and the like do not matter here.
import type { Effect, PyFunction, PyModule, SyntaxNode } from './model.ts';
import { callParts } from './body-walk.ts';
import { functionsByQualname } from './local-resolve.ts';
import { enclosingFunctionNode } from './functions.ts';
import { localTupleSource } from './tuple-binding.ts';
import { dbKindOf } from './call-effects.ts';
import { resolveSql } from './sql.ts';

/** The wrapper effects a call of `fn` has, each with the SQL the decorated function returns where the wrapper runs it. */
export function decoratorEffects(fn: PyFunction, module: PyModule, directEffects: (fn: PyFunction, module: PyModule) => readonly Effect[]): Effect[] {
  const decorated = fn.node.parent?.type === 'decorated_definition' ? fn.node.parent : undefined;
  if (!decorated) return [];
  const effects: Effect[] = [];
  for (const decorator of decorated.namedChildren) {
    if (decorator.type !== 'decorator') continue;
    const name = decorator.namedChildren[0];
    if (name?.type !== 'identifier') continue;
    const outer = functionsByQualname(module).get(name.text);
    if (!outer || outer.className !== undefined || outer.node.id === fn.node.id) continue;
    const wrapper = returnedWrapper(outer, module);
    if (!wrapper) continue;
    const funcParam = outer.params[0];
    for (const effect of directEffects(wrapper, module)) effects.push(withReturnedSql(effect, fn, module, funcParam));
  }
  return effects;
}

/** The nested function the decorator returns: `return _execute`. */
function returnedWrapper(outer: PyFunction, module: PyModule): PyFunction | undefined {
  const body = outer.node.childForFieldName('body')?.namedChildren ?? [];
  for (const statement of body) {
    const value = statement.type === 'return_statement' ? statement.namedChildren[0] : undefined;
    if (value?.type !== 'identifier') continue;
    const wrapper = functionsByQualname(module).get(`${outer.qualname}.${value.text}`);
    if (wrapper) return wrapper;
  }
  return undefined;
}

/** `cur.execute(stat, param)` where `stat, param = func(...)`: the SQL is what the decorated function returns first. */
function withReturnedSql(effect: Effect, decoratedFn: PyFunction, module: PyModule, funcParam: string | undefined): Effect {
  if (!effect.kind.startsWith('db-') || effect.sql?.resolvedFrom !== 'unresolved' || funcParam === undefined) return effect;
  const statement = callParts(effect.node).positional[0];
  if (statement?.type !== 'identifier') return effect;
  const source = localTupleSource(statement);
  if (!source || source.value.type !== 'call' || source.value.childForFieldName('function')?.text !== funcParam) return effect;
  const returned = returnedElement(decoratedFn, source.position);
  if (!returned) return effect;
  const sql = resolveSql(returned, module);
  return sql.resolvedFrom === 'unresolved' ? effect : { ...effect, kind: dbKindOf(sql), sql };
}

/** Element `position` of the first `return a, b` in the function's own body. */
function returnedElement(fn: PyFunction, position: number): SyntaxNode | undefined {
  const found = fn.node.descendantsOfType('return_statement').find((r) => ownStatement(r, fn.node));
  const value = found?.namedChildren[0];
  if (!value) return undefined;
  const elements = value.type === 'expression_list' || value.type === 'tuple' ? value.namedChildren : [value];
  return elements[position];
}

function ownStatement(node: SyntaxNode, fnNode: SyntaxNode): boolean {
  return enclosingFunctionNode(node)?.id === fnNode.id;
}
