// A loop whose every iteration's writes are idempotent per item converges when re-run after a crash
// mid-loop: whatever the crash kept is skipped or merged again, the rest is done (buku's importdb:
// add_rec skips a URL it finds, append_tag_at_index merges tags through a dedup). Shown only when:
// - every write in the loop is idempotent where it is written (idempotent-writes.ts), through at most
//   one write per helper, and no same-module function a helper calls, however deep, writes to the
//   database;
// - nothing in the loop sends, deletes, renames or appends to files, or changes the schema (notRepeatable);
// - nothing can make a re-run do less than the first run: no continue, break, return or raise in the
//   body, no write in an except clause, and a write under a test or a nested loop that reads database
//   state only in the branch a keyed insert's "already there" answer takes (`if res == -1:` after
//   `res = self.add_rec(...)`, whose key check returns -1);
// - over rows a query picks, the iteration writes once (a re-run skips the items the query no longer picks);
// - no call in the function makes a fresh value (uuid, random, time): a key built from one never matches.
//   Keys passed in (the items, the function's parameters) are taken as the same on a re-run.
// The same holds for every loop around it, and for the writes before them that its first commit takes.
// Partial: a call in the loop to a function of another module or library whose code is not read is
// taken as writing nothing, as everywhere in these rules.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { scopeFacts } from '../module-facts.ts';
import { directEffects } from '../effects.ts';
import { resolveLocalCall } from '../local-resolve.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { compactText, enclosingLoop, isOwnCode, unparenthesized } from './syntax.ts';
import { callParts } from '../body-walk.ts';
import { within } from './facts.ts';
import { idempotentWrite, writeSite, type IdempotentWrite } from './idempotent-writes.ts';

const NOT_REPEATABLE = new Set<Effect['kind']>(['send', 'file-write', 'file-rename', 'file-replace', 'file-delete', 'db-ddl', 'db-script']);

/**
 * Not repeated the same on a re-run: a send, a delete or rename, DDL or a script, and a file write
 * other than one that truncates and writes the file whole (`open(path, 'w')`, buku's print_rec
 * output): appending, exclusive creation and in-place updates change with every run. Whether the
 * truncating write can be torn is in-place-file-rewrite's question, not this rule's.
 */
function notRepeatable(effect: Effect): boolean {
  if (effect.kind === 'file-write') return !/^w[bt]?\+?$/.test(effect.mode ?? '');
  return NOT_REPEATABLE.has(effect.kind);
}
const LEAVES = ['continue_statement', 'break_statement', 'return_statement', 'raise_statement'];
const FRESH_VALUE = /uuid|random|randint|secrets|token_(hex|bytes|urlsafe)|\btime\s*\.\s*time\b|\bnow\b|utcnow|monotonic|perf_counter/;

export interface LoopScope {
  fn: PyFunction;
  module: PyModule;
  effects: readonly Effect[];
}

/**
 * The loop, and every loop around it, is idempotent per item, and every write the function makes
 * before them that no commit has taken yet (the loop's first commit takes it) is idempotent too: a
 * re-run repeats those as well.
 */
export function rerunConverges(loop: SyntaxNode, scope: LoopScope): boolean {
  let outermost = loop;
  for (let at: SyntaxNode | undefined = loop; at; at = at.parent ? enclosingLoop(at.parent, scope.fn.node) : undefined) {
    if (!itemsAreIdempotent(at, scope)) return false;
    outermost = at;
  }
  const effects = scope.effects;
  return effects.every((effect, at) => {
    if (effect.kind !== 'db-write' || effect.node.startIndex >= outermost.startIndex) return true;
    const committedBefore = effects.some((later, after) => after > at && later.kind === 'db-commit' && later.node.endIndex <= outermost.startIndex);
    if (committedBefore) return true;
    const site = writeSite(effect, scope.fn, scope.module);
    return site !== undefined && idempotentWrite(site, scope.fn) !== undefined;
  });
}

function itemsAreIdempotent(loop: SyntaxNode, scope: LoopScope): boolean {
  const body = loop.childForFieldName('body');
  if (!body) return false;
  const inLoop = scope.effects.filter((effect) => within(body, effect));
  if (inLoop.some(notRepeatable)) return false;
  if (body.descendantsOfType(LEAVES).some((node) => isOwnCode(node, scope.fn.node))) return false;
  const writes = inLoop.filter((effect) => effect.kind === 'db-write');
  if (writes.length === 0) return false;
  const perHelper = new Map<string, number>();
  const kinds = new Map<Effect, IdempotentWrite>();
  for (const write of writes) {
    const site = writeSite(write, scope.fn, scope.module);
    const kind = site && idempotentWrite(site, scope.fn);
    if (!kind) return false;
    kinds.set(write, kind);
    if (write.via) perHelper.set(`${write.node.id}`, (perHelper.get(`${write.node.id}`) ?? 0) + 1);
  }
  if ([...perHelper.values()].some((count) => count > 1)) return false;
  const ownCalls = scopeFacts(scope.module, scope.fn.node).calls;
  if (ownCalls.some((call) => FRESH_VALUE.test(call.callee))) return false;
  const calls = ownCalls.filter((call) => call.node.startIndex >= body.startIndex && call.node.endIndex <= body.endIndex);
  for (const call of calls) {
    const helper = resolveLocalCall(call.node, scope.module, scope.fn);
    if (helper && helper.node.id !== scope.fn.node.id && writesFurtherDown(helper, scope.module, new Set([scope.fn.node.id, helper.node.id]))) return false;
  }
  // Over rows a query picks (`WHERE status = 'new'`), a re-run skips an item its first write took out of
  // the query: only safe when that write is the item's only one.
  const iterated = loop.childForFieldName('right') ?? loop.childForFieldName('condition');
  if (writes.length > 1 && iterated && readsStateOf(iterated, scope, statefulNames(scope))) return false;
  return writes.every((write) => rerunDoesIt(write, body, scope, kinds));
}

/** A same-module function the helper calls (and so on, all the way down) writes to the database or does what a re-run does not repeat. */
function writesFurtherDown(helper: PyFunction, module: PyModule, seen: Set<number>): boolean {
  for (const call of scopeFacts(module, helper.node).calls) {
    const callee = resolveLocalCall(call.node, module, helper);
    if (!callee || seen.has(callee.node.id)) continue;
    seen.add(callee.node.id);
    if (directEffects(callee, module).some((effect) => effect.kind === 'db-write' || notRepeatable(effect))) return true;
    if (writesFurtherDown(callee, module, seen)) return true;
  }
  return false;
}

/** Every test and nested loop around the write (in the loop body) reads no database state, or only as a keyed insert's "already there". */
function rerunDoesIt(write: Effect, body: SyntaxNode, scope: LoopScope, kinds: ReadonlyMap<Effect, IdempotentWrite>): boolean {
  const stateful = statefulNames(scope);
  const readsState = (node: SyntaxNode) => readsStateOf(node, scope, stateful);
  for (let node = write.node; node.id !== body.id && node.parent; node = node.parent) {
    const parent = node.parent;
    if (parent.type === 'except_clause') return false;
    if (parent.type === 'if_statement') {
      const condition = parent.childForFieldName('condition')!;
      if (node.id === condition.id || !readsState(condition)) continue;
      if (parent.childForFieldName('consequence')?.id !== node.id || !alreadyThereTest(condition, write, kinds, readsState)) return false;
    }
    if (parent.type === 'elif_clause' || parent.type === 'else_clause') {
      const owner = parent.parent;
      const tests = owner?.type === 'if_statement' ? [owner.childForFieldName('condition'), ...owner.namedChildren.filter((child) => child.type === 'elif_clause').map((clause) => clause.childForFieldName('condition'))] : [owner];
      if (tests.some((test) => test && readsState(test))) return false;
    }
    if ((parent.type === 'for_statement' || parent.type === 'while_statement') && readsState(parent.childForFieldName('right') ?? parent.childForFieldName('condition') ?? parent)) return false;
    if (parent.type === 'conditional_expression' || parent.type === 'boolean_operator') return false;
  }
  return true;
}

/**
 * Names the function binds, before or in the loop, from a call with effects (a query, a write, a helper
 * that does either) or a fetch, and names bound from those (assignments and for targets, to a fixpoint).
 */
function statefulNames(scope: LoopScope): Set<string> {
  const names = new Set<string>();
  const bindings = scope.fn.node
    .descendantsOfType(['assignment', 'for_statement'])
    .filter((node) => isOwnCode(node, scope.fn.node))
    .map((node) => ({ left: node.childForFieldName('left'), right: node.childForFieldName('right') }));
  for (let changed = true; changed; ) {
    changed = false;
    for (const { left, right } of bindings) {
      if (!left || !right || !readsStateOf(right, scope, names)) continue;
      for (const name of left.type === 'identifier' ? [left] : left.descendantsOfType('identifier')) {
        if (names.has(name.text)) continue;
        names.add(name.text);
        changed = true;
      }
    }
  }
  return names;
}

const FETCH = /\.\s*(fetchone|fetchall|fetchmany)$/;

function readsStateOf(node: SyntaxNode, scope: LoopScope, stateful: ReadonlySet<string>): boolean {
  return [node, ...node.descendantsOfType(['identifier', 'call'])].some((part) =>
    part.type === 'identifier'
      ? stateful.has(part.text)
      : part.type === 'call' && (FETCH.test(part.childForFieldName('function')?.text ?? '') || scope.effects.some((effect) => effect.node.id === part.id)));
}

/**
 * `res == S` (alone or and-ed with tests that read no state) where `res = <call>` and the call's
 * write is a keyed insert whose key check returns S: the branch a re-run takes for an item already
 * done, also for the items the first run inserted. So the write under it must change nothing in a
 * row the insert just wrote: a dedup merge into that table's inserted columns of the very values the
 * insert was given (buku: add_rec(*item) inserts tags item[2], append_tag_at_index merges item[2]).
 */
function alreadyThereTest(condition: SyntaxNode, write: Effect, kinds: ReadonlyMap<Effect, IdempotentWrite>, readsState: (node: SyntaxNode) => boolean): boolean {
  const merge = kinds.get(write);
  if (merge?.how !== 'merge-update') return false;
  const test = unparenthesized(condition);
  const parts = test.type === 'boolean_operator' && test.children[1]?.text === 'and' ? [test.childForFieldName('left')!, test.childForFieldName('right')!] : [test];
  const comparisons = parts.map(unparenthesized).filter((part) => part.type === 'comparison_operator' && part.children[1]?.text === '==');
  return comparisons.some((comparison) => {
    const [tested, sentinel] = comparison.namedChildren;
    if (tested?.type !== 'identifier' || !sentinel) return false;
    const call = localAssignmentBefore(tested);
    const insert = call?.type === 'call' ? [...kinds].find(([effect]) => effect.node.id === call.id)?.[1] : undefined;
    if (insert?.how !== 'keyed-insert' || insert.sentinel !== sentinel.text || insert.table !== merge.table) return false;
    const inserted = merge.columns.flatMap((column) => {
      const parameter = insert.columnSources.get(column);
      return parameter === undefined ? [undefined] : [argumentFor(call!, insert.helper, parameter)];
    });
    const merged = merge.sources.map((parameter) => argumentFor(write.node, merge.fn, parameter));
    if (inserted.includes(undefined) || merged.some((argument) => argument === undefined || !inserted.includes(argument))) return false;
    // Every other and-ed test reads no state.
    return parts.every((part) => unparenthesized(part).id === comparison.id || !readsState(part));
  });
}

/** The text the call passes for the parameter: by keyword, by position, or `item[i]` through a lone `*item`. */
function argumentFor(call: SyntaxNode, fn: PyFunction, parameter: string): string | undefined {
  const parts = callParts(call);
  const keyword = parts.keywords.get(parameter);
  if (keyword) return compactText(keyword);
  const at = fn.params.filter((name) => name !== 'self' && name !== 'cls').indexOf(parameter);
  if (at < 0) return undefined;
  const splat = parts.positional.length === 1 && parts.positional[0]!.type === 'list_splat' ? parts.positional[0]!.namedChildren[0] : undefined;
  if (splat) return `${compactText(splat)}[${at}]`;
  if (parts.positional.some((argument) => argument.type === 'list_splat')) return undefined;
  const argument = parts.positional[at];
  return argument ? compactText(argument) : undefined;
}
