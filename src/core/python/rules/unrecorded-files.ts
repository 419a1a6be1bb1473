// A deletion of files the database does not name: `for path in found - known:
// os.remove(path)`, where `known` holds only values taken from the rows of a query the
// function ran (`known = set()` then `known.add(...)` in loops over those rows, or a
// comprehension over them). The files removed are the ones no row the function read
// names, so no record of it is left naming them: there is no record to keep in step.
// diskcache's Cache.check(fix=True) removes the files os.walk finds that no Cache row
// names (`error = set(paths) - filenames`).
// Partial: the difference must be written with `-` on a local name; `.difference()`,
// `not in` tests and sets filled by helpers are not recognised. A query that reads only
// some of the rows is trusted to read every row that names a file.
import type { Effect, SyntaxNode } from '../model.ts';
import { callParts, walkFunctionBody } from '../body-walk.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { ancestorsWithin, compactText, contains } from './syntax.ts';

const SET_ADDERS = new Set(['add', 'update']);

export function deletesOnlyUnrecordedFiles(deletion: Effect, fnNode: SyntaxNode, effects: readonly Effect[]): boolean {
  const deleted = callParts(deletion.node).positional[0];
  if (deleted?.type !== 'identifier') return false;
  const loop = ancestorsWithin(deletion.node, fnNode).find(
    (ancestor) => ancestor.type === 'for_statement' && ancestor.childForFieldName('left')?.text === deleted.text,
  );
  const body = loop?.childForFieldName('body');
  if (!loop || !body || !contains(body, deletion.node)) return false;
  // Not rebound in the loop between the loop's start and the deletion.
  const rebound = localAssignmentBefore(deleted);
  if (rebound && rebound.startIndex > loop.startIndex) return false;
  const known = subtrahend(loop.childForFieldName('right'));
  return known !== undefined && filledFromRows(known, fnNode, effects);
}

/** `known` in `for p in found - known`, or in `for p in diff` after `diff = found - known`. */
function subtrahend(iterable: SyntaxNode | null): SyntaxNode | undefined {
  const expression = iterable?.type === 'identifier' ? localAssignmentBefore(iterable) : (iterable ?? undefined);
  if (expression?.type !== 'binary_operator' || expression.childForFieldName('operator')?.type !== '-') return undefined;
  const right = expression.childForFieldName('right');
  return right?.type === 'identifier' ? right : undefined;
}

/** Everything the set holds came from the rows of a query this function ran. */
function filledFromRows(known: SyntaxNode, fnNode: SyntaxNode, effects: readonly Effect[]): boolean {
  const reads = effects.filter((effect) => effect.kind === 'db-read' && !effect.via);
  const readsIn = (expression: SyntaxNode | null | undefined): boolean =>
    expression !== null && expression !== undefined && reads.some((read) => contains(expression, read.node));
  const fromRows = (expression: SyntaxNode | null | undefined): boolean =>
    readsIn(expression) || (expression?.type === 'identifier' && readsIn(localAssignmentBefore(expression)));
  const assigned = localAssignmentBefore(known);
  if (!assigned) return false;
  if (readsIn(assigned)) return true;
  const emptySet = assigned.type === 'call' && callParts(assigned).callee === 'set' && callParts(assigned).positional.length === 0;
  if (!emptySet) return false;
  let adds = 0;
  let allFromRows = true;
  walkFunctionBody(fnNode, (node) => {
    const between = node.startIndex >= assigned.endIndex && node.endIndex <= known.startIndex;
    if (between && node.type === 'augmented_assignment' && node.childForFieldName('left')?.text === known.text) allFromRows = false;
    if (node.type !== 'call' || node.startIndex < assigned.endIndex || node.endIndex > known.startIndex) return;
    const call = callParts(node);
    if (!SET_ADDERS.has(call.method) || !call.receiver || compactText(call.receiver) !== known.text) return;
    adds++;
    const rowLoop = ancestorsWithin(node, fnNode).find((ancestor) => ancestor.type === 'for_statement' && fromRows(ancestor.childForFieldName('right')));
    if (!rowLoop) allFromRows = false;
  });
  return adds > 0 && allFromRows;
}
