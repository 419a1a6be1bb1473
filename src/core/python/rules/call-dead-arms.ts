// A helper's write under an `if` on one of its parameters that this call's argument makes false
// cannot run for this call. offlineimap's `self.__sql_write(sql, (uid, ...))` leaves
// `executemany=False` to its default, so the helper's `if executemany: executemany(sql, args)`
// arms are not this call's writes, and its `if args is None:` arm is not either.
import type { Effect, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { ancestorsWithin, callsItself, contains, unparenthesized } from './syntax.ts';
import { binds } from './exclusive-guards.ts';

/** What a call gives a parameter, as far as a test of it can tell: its truth and whether it is None. */
interface Known {
  truthy?: boolean;
  none?: boolean;
}

/**
 * True when the effect runs in a helper (`via`) and sits in an arm of an if/elif/else whose test,
 * read with the values this call gives the helper's parameters (by keyword, position or default;
 * immutable literals only: True, False, None, numbers, plain strings, and tuples of these), cannot let
 * it run. A list, dict or set display is not such a value: the helper may fill it in place
 * (`tags.extend(...)` before `if tags:`), and a default one keeps what earlier calls put in it.
 * A parameter the helper may rebind, a call with `*args` or `**kwargs`, a helper that calls itself
 * (its inner call gives other values), and anything else unread leave the arm live.
 */
export function deadForItsCall(effect: Effect): boolean {
  const inner = effect.viaNode;
  if (!effect.via || !inner || effect.node.type !== 'call') return false;
  let helper = inner.parent;
  while (helper && helper.type !== 'function_definition' && helper.type !== 'lambda') helper = helper.parent;
  const name = effect.via.qualname.split('.').at(-1);
  if (helper?.type !== 'function_definition' || helper.childForFieldName('name')?.text !== name) return false;
  if (callsItself(helper)) return false;
  const values = argumentValues(effect.node, helper);
  if (!values) return false;
  return ancestorsWithin(inner, helper).some((arm) => armCannotRun(arm, inner, values));
}

/** `arm` is a consequence or else/elif clause around `inner` whose tests rule it out. */
function armCannotRun(arm: SyntaxNode, inner: SyntaxNode, values: Map<string, Known>): boolean {
  const parent = arm.parent;
  if (!parent || !contains(arm, inner)) return false;
  if ((parent.type === 'if_statement' || parent.type === 'elif_clause') && parent.childForFieldName('consequence')?.id === arm.id) {
    return truth(parent.childForFieldName('condition'), values) === false;
  }
  if (parent.type !== 'if_statement' || (arm.type !== 'elif_clause' && arm.type !== 'else_clause')) return false;
  // Reached only when the `if` test and every earlier elif test failed.
  const earlier = [parent.childForFieldName('condition'), ...parent.namedChildren.filter((c) => c.type === 'elif_clause' && c.startIndex < arm.startIndex).map((c) => c.childForFieldName('condition'))];
  return earlier.some((condition) => truth(condition, values) === true);
}

function truth(condition: SyntaxNode | null, values: Map<string, Known>): boolean | undefined {
  if (!condition) return undefined;
  const node = unparenthesized(condition);
  if (node.type === 'identifier') return values.get(node.text)?.truthy;
  if (node.type === 'not_operator') {
    const inner = truth(node.childForFieldName('argument'), values);
    return inner === undefined ? undefined : !inner;
  }
  if (node.type === 'boolean_operator') {
    const left = truth(node.childForFieldName('left'), values);
    const right = truth(node.childForFieldName('right'), values);
    const and = node.childForFieldName('operator')?.type === 'and';
    if (and) return left === false || right === false ? false : left === true && right === true ? true : undefined;
    return left === true || right === true ? true : left === false && right === false ? false : undefined;
  }
  if (node.type === 'comparison_operator' && node.namedChildren.length === 2) {
    const operators = node.children.filter((child) => !child.isNamed).map((child) => child.type).join(' ');
    const [left, right] = node.namedChildren as [SyntaxNode, SyntaxNode];
    if (left.type !== 'identifier' || right.type !== 'none') return undefined;
    const none = values.get(left.text)?.none;
    if (none === undefined) return undefined;
    return operators === 'is' ? none : operators === 'is not' ? !none : undefined;
  }
  return undefined;
}

/** The helper's parameters that this call gives a literal (or leaves to a literal default), and that the helper never rebinds. */
function argumentValues(call: SyntaxNode, helper: SyntaxNode): Map<string, Known> | undefined {
  const parts = callParts(call);
  if (parts.positional.some((argument) => argument.type === 'list_splat' || argument.type === 'dictionary_splat')) return undefined;
  const parameters = helper.childForFieldName('parameters')?.namedChildren.filter((node) => node.type !== 'comment') ?? [];
  const values = new Map<string, Known>();
  let position = firstIsBound(call, helper) ? -1 : 0;
  let keywordOnly = false;
  for (const parameter of parameters) {
    const splat = parameter.type === 'typed_parameter' ? parameter.namedChildren.find((c) => c.type.endsWith('splat_pattern'))?.type : undefined;
    if (parameter.type === 'list_splat_pattern' || parameter.type === 'keyword_separator' || splat === 'list_splat_pattern') {
      keywordOnly = true;
      continue;
    }
    if (parameter.type === 'dictionary_splat_pattern' || parameter.type === 'positional_separator' || splat === 'dictionary_splat_pattern') continue;
    const name = parameter.type === 'identifier' ? parameter.text : parameter.childForFieldName('name')?.text ?? parameter.namedChildren.find((c) => c.type === 'identifier')?.text;
    const at = keywordOnly ? undefined : position;
    if (!keywordOnly) position += 1;
    if (!name) continue;
    const given = parts.keywords.get(name) ?? (at !== undefined && at >= 0 ? parts.positional[at] : undefined);
    const value = given ?? parameter.childForFieldName('value') ?? undefined;
    const known = value ? literal(value) : undefined;
    if (known && !rebound(name, helper)) values.set(name, known);
  }
  return values;
}

/** `obj.method(...)` fills `self`/`cls`; `Class.method(obj, ...)` and a static method do not. */
function firstIsBound(call: SyntaxNode, helper: SyntaxNode): boolean {
  const receiver = callParts(call).receiver;
  const cls = helper.parent?.parent?.type === 'class_definition' ? helper.parent.parent : helper.parent?.parent?.parent?.type === 'class_definition' ? helper.parent.parent.parent : undefined;
  if (!receiver || !cls) return false;
  const decorators = helper.parent?.type === 'decorated_definition' ? helper.parent.namedChildren.filter((c) => c.type === 'decorator').map((c) => c.text) : [];
  if (decorators.some((text) => /staticmethod/.test(text))) return false;
  if (decorators.some((text) => /classmethod/.test(text))) return true;
  return receiver.text !== cls.childForFieldName('name')?.text;
}

function literal(value: SyntaxNode): Known | undefined {
  const node = unparenthesized(value);
  switch (node.type) {
    case 'true':
      return { truthy: true, none: false };
    case 'false':
      return { truthy: false, none: false };
    case 'none':
      return { truthy: false, none: true };
    case 'integer':
    case 'float': {
      const number = Number(node.text.replace(/_/g, ''));
      return Number.isNaN(number) ? { none: false } : { truthy: number !== 0, none: false };
    }
    case 'string': {
      // A plain string's truth is whether it has characters; an f-string's depends on what it interpolates.
      if (node.namedChildren.some((child) => child.type === 'interpolation')) return undefined;
      return { truthy: node.namedChildren.some((child) => child.type === 'string_content' || child.type === 'escape_sequence'), none: false };
    }
    case 'tuple': {
      const elements = node.namedChildren.filter((c) => c.type !== 'comment');
      return elements.every((element) => literal(element) !== undefined) ? { truthy: elements.length > 0, none: false } : undefined;
    }
    default:
      return undefined;
  }
}

/** The helper (nested code too, to stay safe) may bind `name` again. */
function rebound(name: string, helper: SyntaxNode): boolean {
  const body = helper.childForFieldName('body');
  return !body || body.descendantsOfType('identifier').some((identifier) => identifier.text === name && binds(identifier));
}
