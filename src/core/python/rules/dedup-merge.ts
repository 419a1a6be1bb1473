// An UPDATE value merged through a same-module dedup (`tags = parse_tags([tags])`, buku): merging the
// same values in again changes nothing. Read by idempotent-writes.ts.
import type { PyFunction, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { resolveLocalCall } from '../local-resolve.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { compactText, isOwnCode, statementOf, unparenthesized } from './syntax.ts';
import { CONSTANT, type WriteSite } from './write-site.ts';

/**
 * `tags = parse_tags([tags])` as the statement just before the execute, parse_tags a same-module
 * function that returns its tokens deduplicated: merging the same tags in again changes nothing.
 * Partial: that the dedup's output parses back to the same tokens is assumed, not shown.
 */
export function mergedThroughDedup(value: SyntaxNode, site: WriteSite): string[] | undefined {
  if (value.type !== 'identifier') return undefined;
  const previous = statementOf(site.write.node).previousNamedSibling;
  const assignment = previous?.type === 'expression_statement' ? previous.namedChildren[0] : undefined;
  if (assignment?.type !== 'assignment' || assignment.childForFieldName('left')?.text !== value.text) return undefined;
  const call = assignment.childForFieldName('right');
  if (call?.type !== 'call' || !mergesFixedInputs(call)) return undefined;
  const dedup = resolveLocalCall(call, site.module, site.fn);
  return dedup !== undefined && returnsDeduplicated(dedup) ? mergedParameters(call, site.fn) : undefined;
}

/**
 * The parameters whose values the dedup call merges: the names in its arguments and in their last
 * assignments, each a parameter or a for target over fetched rows (the row's old value); undefined
 * when another name feeds it.
 */
function mergedParameters(call: SyntaxNode, fn: PyFunction): string[] | undefined {
  const names = call.childForFieldName('arguments')!.descendantsOfType('identifier');
  const feeding = names.flatMap((name) => {
    const assigned = localAssignmentBefore(name);
    return assigned ? [...(assigned.type === 'identifier' ? [assigned] : assigned.descendantsOfType('identifier'))] : [name];
  });
  const parameters = new Set(fn.params);
  const rows = fetchedRowNames(fn);
  if (!feeding.every((name) => parameters.has(name.text) || rows.has(name.text))) return undefined;
  return [...new Set(feeding.filter((name) => parameters.has(name.text)).map((name) => name.text))];
}

/** `for row in rows:` where `rows = <cursor>.fetchall()` (or the fetch itself is iterated). */
function fetchedRowNames(fn: PyFunction): Set<string> {
  const names = new Set<string>();
  for (const loop of fn.node.descendantsOfType('for_statement')) {
    if (!isOwnCode(loop, fn.node)) continue;
    let iterated = loop.childForFieldName('right');
    if (iterated?.type === 'identifier') iterated = localAssignmentBefore(iterated) ?? null;
    const target = loop.childForFieldName('left');
    if (iterated?.type === 'call' && /^fetch(all|many)$/.test(callParts(iterated).method) && target?.type === 'identifier') names.add(target.text);
  }
  return names;
}

/** No call in the dedup's arguments, nor in the last assignment of a name they use: a fresh token (a time) would be new on every run. */
function mergesFixedInputs(call: SyntaxNode): boolean {
  const argumentList = call.childForFieldName('arguments');
  if (!argumentList || argumentList.descendantsOfType('call').length > 0) return false;
  return argumentList.descendantsOfType('identifier').every((name) => {
    const assigned = localAssignmentBefore(name);
    return assigned === undefined || (assigned.type !== 'call' && assigned.descendantsOfType('call').length === 0);
  });
}

const DEDUPLICATES = /^(?:(?:sorted|list|tuple)\(\s*)?(?:set|frozenset)\(/;

/**
 * The function ends `return f(N)` with N its one assignment from `sorted(set(...))` (or `set`,
 * `frozenset`, `list(set(...))`), every other name in that return a callee or a CONSTANT; every
 * earlier return gives a constant, or a name an enclosing `if name == CONSTANT:` has just compared.
 */
function returnsDeduplicated(fn: PyFunction): boolean {
  const body = fn.node.childForFieldName('body');
  const last = body?.lastNamedChild;
  const result = last?.type === 'return_statement' ? last.namedChildren[0] : undefined;
  if (!body || !result) return false;
  const assignments = fn.node.descendantsOfType('assignment').filter((node) => isOwnCode(node, fn.node));
  const deduplicated = assignments.filter((node) => DEDUPLICATES.test(compactText(node.childForFieldName('right') ?? node)));
  const names = deduplicated.map((node) => node.childForFieldName('left')?.text ?? '');
  const dedupName = names.find((name) => assignments.filter((node) => node.childForFieldName('left')?.text === name).length === 1);
  if (!dedupName) return false;
  const mentions = result.type === 'identifier' ? [result] : result.descendantsOfType('identifier');
  const calleeIds = new Set(result.descendantsOfType('call').map((call) => call.childForFieldName('function')?.id));
  const resultOk = mentions.some((name) => name.text === dedupName)
    && mentions.every((name) => name.text === dedupName || CONSTANT.test(name.text) || calleeIds.has(name.id) || calleeIds.has(name.parent?.id));
  if (!resultOk) return false;
  const earlier = fn.node.descendantsOfType('return_statement').filter((node) => isOwnCode(node, fn.node) && node.id !== last!.id);
  return earlier.every(returnsConstant);
}

function returnsConstant(statement: SyntaxNode): boolean {
  const value = statement.namedChildren[0];
  if (!value || CONSTANT.test(value.text)) return true;
  if (value.type !== 'identifier') return false;
  const block = statement.parent;
  const test = block?.parent?.type === 'if_statement' && block.parent.childForFieldName('consequence')?.id === block.id ? block.parent.childForFieldName('condition') : undefined;
  const compared = test ? unparenthesized(test) : undefined;
  if (compared?.type !== 'comparison_operator' || !/^\s*==\s*$/.test(compared.children[1]?.text ?? '')) return false;
  const [left, right] = compared.namedChildren;
  return left?.text === value.text && right !== undefined && CONSTANT.test(right.text);
}
