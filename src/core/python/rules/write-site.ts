// A database write as written in its own function (the function under review, or the one
// same-module helper its effect came through), and what the idempotence readers share about it.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { directEffects } from '../effects.ts';
import { resolveLocalCall } from '../local-resolve.ts';
import { isOwnCode, unparenthesized } from './syntax.ts';

/** A write as written in its own function. */
export interface WriteSite {
  write: Effect;
  fn: PyFunction;
  module: PyModule;
}

/** The effect as written in the function under review or in the one same-module helper it came through. */
export function writeSite(effect: Effect, fn: PyFunction, module: PyModule): WriteSite | undefined {
  if (!effect.via) return { write: effect, fn, module };
  if (effect.via.path !== module.path) return undefined;
  const helper = resolveLocalCall(effect.node, module, fn);
  if (!helper || helper.qualname !== effect.via.qualname) return undefined;
  const same = directEffects(helper, module).filter((inner) => !inner.via && inner.kind === effect.kind && inner.range.startLine === effect.via!.line);
  return same.length === 1 ? { write: same[0]!, fn: helper, module } : undefined;
}

/** The elements of `execute(sql, (a, b))`'s literal parameter tuple or list. */
export function boundArguments(execute: SyntaxNode): SyntaxNode[] | undefined {
  const parameters = callParts(execute).positional[1];
  const literal = parameters && unparenthesized(parameters);
  return literal && (literal.type === 'tuple' || literal.type === 'list') ? literal.namedChildren : undefined;
}

/** A literal or an UPPER_CASE module constant: the same on every run. */
export const CONSTANT = /^(None|True|False|-?\d+|'[^']*'|"[^"]*"|[A-Z][A-Z0-9_]*)$/;

export function reassigned(name: string, fn: PyFunction): boolean {
  return fn.node
    .descendantsOfType(['assignment', 'augmented_assignment', 'for_statement'])
    .some((node) => isOwnCode(node, fn.node) && [node.childForFieldName('left'), ...(node.childForFieldName('left')?.descendantsOfType('identifier') ?? [])].some((target) => target?.text === name));
}
