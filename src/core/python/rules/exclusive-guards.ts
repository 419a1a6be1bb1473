// Two statements under separate `if`s that test one parameter against different
// constants (`if flag == 'n': ...` then later `if flag == 'w': ...`): when the
// function never rebinds that parameter, at most one of them runs in one call.
// sqlitedict's constructor deletes the database file under one flag and clears
// the table under another; without this, the two looked like one crash window.
import type { SyntaxNode } from '../model.ts';
import { ancestorsWithin, contains } from './syntax-tree.ts';
import { enclosingFunctionNode } from '../functions.ts';

interface Guard {
  name: string;
  value: string;
}

export function exclusiveGuards(a: SyntaxNode, b: SyntaxNode, fnNode: SyntaxNode): boolean {
  const aGuards = guardsOf(a, fnNode);
  if (aGuards.length === 0) return false;
  const bGuards = guardsOf(b, fnNode);
  const params = parameterNames(fnNode);
  return aGuards.some((x) => bGuards.some((y) => x.name === y.name && x.value !== y.value && params.has(x.name) && !rebinds(fnNode, x.name)));
}

/**
 * Only a parameter is trusted to keep its value: a global could be changed by any call
 * between the two tests, a parameter only by the function itself (checked by rebinds).
 */
export function parameterNames(fnNode: SyntaxNode): Set<string> {
  const names = new Set<string>();
  for (const parameter of fnNode.childForFieldName('parameters')?.namedChildren ?? []) {
    const name =
      parameter.type === 'identifier'
        ? parameter
        : (parameter.childForFieldName('name') ?? parameter.namedChildren.find((child) => child.type === 'identifier' || child.type.endsWith('_pattern')));
    // `*args: T` is a typed parameter around a splat pattern: the name is one level further in.
    const identifier = name?.type === 'identifier' ? name : name?.namedChildren.find((child) => child.type === 'identifier');
    if (identifier) names.add(identifier.text);
  }
  return names;
}

/** The `name == constant` tests that must hold for `node` to run: conditions of the if/elif arms it sits in. */
function guardsOf(node: SyntaxNode, fnNode: SyntaxNode): Guard[] {
  const guards: Guard[] = [];
  for (const ancestor of ancestorsWithin(node, fnNode)) {
    if (ancestor.type !== 'if_statement' && ancestor.type !== 'elif_clause') continue;
    const consequence = ancestor.childForFieldName('consequence');
    if (!consequence || !contains(consequence, node)) continue;
    guards.push(...conjuncts(ancestor.childForFieldName('condition')));
  }
  return guards;
}

/** `x == 'a'`, `'a' == x`, and each side of an `and`. */
function conjuncts(condition: SyntaxNode | null): Guard[] {
  if (!condition) return [];
  if (condition.type === 'parenthesized_expression') return conjuncts(condition.namedChildren[0] ?? null);
  if (condition.type === 'boolean_operator' && condition.childForFieldName('operator')?.type === 'and') {
    return [...conjuncts(condition.childForFieldName('left')), ...conjuncts(condition.childForFieldName('right'))];
  }
  if (condition.type !== 'comparison_operator' || condition.namedChildren.length !== 2) return [];
  const operators = condition.children.filter((child) => !child.isNamed);
  if (operators.length !== 1 || operators[0]!.type !== '==') return [];
  const [left, right] = condition.namedChildren as [SyntaxNode, SyntaxNode];
  const name = left.type === 'identifier' ? left : right.type === 'identifier' ? right : undefined;
  const value = constantValue(name === left ? right : left);
  return name && value !== undefined ? [{ name: name.text, value }] : [];
}

/** A plain string or number literal, as a comparable value (`'n'` and `"n"` agree); undefined for anything else. */
function constantValue(node: SyntaxNode): string | undefined {
  if (node.type === 'integer' || node.type === 'float') return `number:${Number(node.text.replace(/_/g, ''))}`;
  if (node.type !== 'string') return undefined;
  const plain = /^([rRuU]?)(['"])([^'"\\]*)\2$/.exec(node.text);
  return plain ? `string:${plain[3]}` : undefined;
}

const PATTERN_PARENTS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern', 'list_splat_pattern', 'as_pattern_target', 'parenthesized_expression']);

/** True when the function (nested code included, to stay on the safe side) may bind `name` again. */
function rebinds(fnNode: SyntaxNode, name: string): boolean {
  const body = fnNode.childForFieldName('body');
  if (!body) return true;
  return body.descendantsOfType('identifier').some((identifier) => identifier.text === name && binds(identifier));
}

export function binds(identifier: SyntaxNode): boolean {
  let node = identifier;
  while (node.parent && PATTERN_PARENTS.has(node.parent.type)) node = node.parent;
  const parent = node.parent;
  if (!parent) return false;
  switch (parent.type) {
    case 'assignment':
    case 'augmented_assignment':
    case 'for_statement':
    case 'for_in_clause':
      return parent.childForFieldName('left')?.id === node.id;
    case 'named_expression':
      return parent.childForFieldName('name')?.id === node.id;
    case 'as_pattern':
      return parent.childForFieldName('alias')?.id === node.id;
    case 'global_statement':
    case 'nonlocal_statement':
    case 'delete_statement':
      return true;
    default:
      return false;
  }
}

/** How many places of the enclosing function bind the name `use` reads (a parameter counts as one). */
export function bindingSites(use: SyntaxNode): number {
  const fn = enclosingFunctionNode(use);
  const body = fn?.childForFieldName('body');
  if (!fn || !body) return 0;
  const name = use.text;
  const bindings = body.descendantsOfType('identifier').filter((identifier) => identifier.text === name && binds(identifier)).length;
  return bindings + (parameterNames(fn).has(name) ? 1 : 0);
}
