// A write to T that the function, on every path that reaches it, lets run only after
// T's old contents were copied or moved to another name (shutil.copy/copy2/copyfile,
// shutil.move, os.rename, os.replace, Path.rename/replace), or only when T is absent
// (absent-target-guard.ts). A crash mid-write tears T, but the old contents survive
// under the other name. joblib's PrintTime.__init__ copies its log to logfile + '.1'
// when the log exists, then reopens it 'w'.
// The caller decides what that is worth: a backup nobody reads back does not keep a
// re-run from reading the torn T (the reference's backup_then_write), so the rule
// stays on when the function itself reads T.
// Partial: the copy must sit in a statement that runs before the write on every path
// (or in an arm of an existence test as above), outside loops and conditions; a copy
// inside a `try` whose failure is swallowed still counts (a failed copy and then a
// crash: two faults). Nothing may delete the copy between it and the write.
import type { Effect, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { precedingStatements, samePath, targetKnownAbsent } from './absent-target-guard.ts';
import { ancestorsWithin, compactText, contains } from './syntax.ts';

const COPIES = new Set(['shutil.copy', 'shutil.copy2', 'shutil.copyfile']);

/** Node types under which a statement may be skipped or run zero times. */
const CONDITIONAL = new Set([
  'if_statement',
  'elif_clause',
  'else_clause',
  'for_statement',
  'while_statement',
  'match_statement',
  'case_clause',
  'except_clause',
  'except_group_clause',
  'conditional_expression',
  'boolean_operator',
  'lambda',
  'list_comprehension',
  'set_comprehension',
  'dictionary_comprehension',
  'generator_expression',
  'function_definition',
  'class_definition',
]);

export interface KeptAside {
  /** The copy or move that keeps T's old contents. */
  copy: Effect;
  /** Where they are kept, as written. */
  aside: SyntaxNode;
}

/** The copy or move of T's old contents that precedes the write on every path; undefined when there is none. */
export function keptAsideBefore(target: SyntaxNode, write: Effect, fnNode: SyntaxNode, effects: readonly Effect[]): KeptAside | undefined {
  const copies = effects
    .filter((effect) => !effect.via && effect.node.endIndex <= write.node.startIndex)
    .map((effect) => ({ effect, aside: asideOf(effect, target) }))
    .filter((found): found is { effect: Effect; aside: SyntaxNode } => found.aside !== undefined)
    .filter(({ effect, aside }) => !asideDeletedBefore(aside, effect, write, effects));
  const runsIn = (region: SyntaxNode) => copies.find(({ effect }) => runsWhenever(effect.node, region));
  for (const statement of precedingStatements(write.node, fnNode)) {
    const found = runsIn(statement);
    if (found) return { copy: found.effect, aside: found.aside };
  }
  // One copy at a time, so the copy reported is one the guard's arms make.
  const inArm = copies.find(({ effect }) =>
    targetKnownAbsent(target, write, fnNode, effects, (armBody) => armBody.namedChildren.some((statement) => runsWhenever(effect.node, statement))),
  );
  return inArm ? { copy: inArm.effect, aside: inArm.aside } : undefined;
}

/** The other name a copy or move of T writes to; undefined when the effect is none, or copies T onto itself. */
function asideOf(effect: Effect, target: SyntaxNode): SyntaxNode | undefined {
  const call = callParts(effect.node);
  const moduleCall = COPIES.has(call.callee) || call.callee.startsWith('os.') || call.callee.startsWith('shutil.');
  const isMove = effect.kind === 'file-rename' || effect.kind === 'file-replace';
  if (!isMove && !(effect.kind === 'file-write' && COPIES.has(call.callee))) return undefined;
  const source = moduleCall ? call.positional[0] : call.receiver;
  const aside = moduleCall ? call.positional[1] : call.positional[0];
  if (!source || !aside || !samePath(source, target) || compactText(aside) === compactText(target)) return undefined;
  return aside;
}

/** A delete between the copy and the write that may remove the copy (or any delete in a helper). */
function asideDeletedBefore(aside: SyntaxNode, copy: Effect, write: Effect, effects: readonly Effect[]): boolean {
  return effects.some((effect) => {
    if (effect.kind !== 'file-delete' || effect.node.startIndex < copy.node.endIndex || effect.node.endIndex > write.node.startIndex) return false;
    if (effect.via) return true;
    const call = callParts(effect.node);
    const deleted = call.positional[0] ?? call.receiver;
    return deleted !== undefined && compactText(deleted) === compactText(aside);
  });
}

/** `node` runs every time `region` runs to its end: nothing from it up to `region` is a branch, a loop or a handler. */
function runsWhenever(node: SyntaxNode, region: SyntaxNode): boolean {
  if (!contains(region, node)) return false;
  const chain = [node, ...ancestorsWithin(node, region), region];
  for (let i = 1; i < chain.length; i++) {
    const holder = chain[i]!;
    if (CONDITIONAL.has(holder.type)) return false;
    // Only a try's body (and `finally`) runs on every path; its handlers and `else` may not.
    if (holder.type === 'try_statement' && chain[i - 1]!.type !== 'block' && chain[i - 1]!.type !== 'finally_clause') return false;
  }
  return true;
}
