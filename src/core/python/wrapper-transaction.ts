// `with self.transaction():` where `transaction` is this module's own wrapper
// around an explicit BEGIN (yoyo's DatabaseBackend.transaction returns a
// TransactionManager whose __enter__ reaches `self.execute("BEGIN")` through
// _do_begin and backend.begin, and whose __exit__ commits, or rolls back when
// the block raised). Effects do not follow a manager that deep, so the
// sqlite rules ask here whether a write sits inside such a block: it is then
// inside a transaction of its own, committed or rolled back as one.
//
// What qualifies, read off this module, and with the repository index off the
// modules its classes' bases come from (inherited-methods.ts: yoyo's
// RedshiftBackend inherits transaction() from base.py through postgresql.py);
// a wrapper that cannot be read stays unknown, and the write reported:
// - a @contextmanager method whose code before its first `yield` always runs
//   BEGIN, whose `yield` sits in a `try` with a bare or BaseException `except`
//   that rolls back, and that commits after the `yield`;
// - a method that returns `SomeManager(self, ...)`: a class of this module
//   whose __enter__ always runs BEGIN and whose __exit__ commits and rolls
//   back under `if exc_type:` (or `exc_type is not None`, or the exception
//   value: a test that holds for every exception). Returning another manager
//   is allowed only under an `if` that tests whether a transaction is open
//   (`_in_transaction`), and only when that one opens a SAVEPOINT and rolls
//   it back on error: a nested transaction inside the BEGIN one (yoyo's
//   SavepointTransactionManager), or opens nothing, never commits, and rolls
//   the whole transaction back on error (the same manager on Redshift, which
//   has no savepoints: it joins the open transaction).
// "Always runs": not under an if/elif/else, a loop, an except or try-else arm,
// a conditional expression or the right of and/or, nor after a `return`, in
// any function along the chain from the manager to the BEGIN (a try body and a
// finally count as always).
// A wrapper that commits but never rolls back on error does not qualify: the
// half-done writes stay pending in the open transaction, and the next commit
// on that connection saves them.
// The wrapper is also read as each subclass of the class (module or index)
// that overrides it: `self` may be one. A write counts only when it runs on
// the connection the wrapper begins, commits and rolls back on (traced to an
// attribute of the instance: `self._connection`, through a @property or a
// method like `self.execute` that runs its SQL on one), and no commit runs in
// the block before it.
// Calls are followed through `self.m()` (the instance's class first, then
// its bases), `super().m()` / `super(C, self).m()` (the bases of the defining
// class, or of C) and, in a manager, `self.<attr>.m()` where __init__ stored
// the instance that created it in <attr>, a few levels deep.
// Which wrappers qualify: wrapper-verdict.ts; which connection a call runs on: instance-connections.ts.
// Partial: only `with self.<wrapper>(...)` here; a top-level function run
// inside a caller's `with obj.<wrapper>()` from another module (yoyo's
// internalmigrations/v2.upgrade) is caller-wrapper.ts's to answer, with the
// repository index. A wrapper inherited from another module in a scan
// that keeps no trees (scan-sources.ts). Subclasses are checked for an
// override of the wrapper only, not of the methods it calls (yoyo's
// OracleBackend.begin runs no BEGIN).
import type { Effect, PyFunction, PyModule, SyntaxNode } from './model.ts';
import { findEffects } from './effects.ts';
import { functionsByQualname, classQualname } from './local-resolve.ts';
import { repoIndexOf } from './callgraph.ts';
import { methodOf, subclassesOf, type ClassRef } from './inherited-methods.ts';
import { calleeTextOf, scopeFacts } from './module-facts.ts';
import { contains } from './rules/syntax-tree.ts';
import { everyCallOf } from './rules/caller-connections.ts';
import { bare, hits, intersect, isAnyCommit, wrapperVerdict } from './wrapper-verdict.ts';
import { connectionOfCall, ownDispatch } from './instance-connections.ts';

/** A `with self.<wrapper>():` whose wrapper qualifies, and the instance connections it begins, commits and rolls back on. */
export interface WrapperBlock {
  statement: SyntaxNode;
  connections: ReadonlySet<string>;
}

/**
 * True when the effect runs inside a wrapper transaction, on its connection, with no commit before it
 * in the block: lexically in `fn`, or inside one in the same-module helper it came through, or `fn` is
 * a private method that every call of the module makes inside one (caller-connections.ts finds them all).
 */
export function insideWrapperTransaction(effect: Effect, fn: PyFunction, module: PyModule): boolean {
  const writer = writerOf(effect, fn, module);
  if (writer && fn.className !== undefined) {
    const connection = connectionOfCall(effect.call, writer, module, ownDispatch(fn, module));
    const inBlock = wrapperTransactionBlocks(fn, module).some(
      (block) => contains(block.statement, effect.node) && connection !== undefined && block.connections.has(connection) && !committedBefore(fn, module, block.statement, effect.node),
    );
    if (inBlock && !(effect.via && helperCommitsBefore(writer, module, effect.via.line))) return true;
    if (calledOnlyInsideWrapper(effect, fn, module)) return true;
  }
  // The helper's own `with` (however it is called: its write and its wrapper share its `self`); its effect's line is where the write runs.
  const helper = effect.via?.path === module.path ? functionsByQualname(module).get(effect.via.qualname) : undefined;
  if (!effect.via || !helper || helper.className === undefined) return false;
  const line = effect.via.line;
  const connection = connectionOfCall(effect.call, helper, module, ownDispatch(helper, module));
  return wrapperTransactionBlocks(helper, module).some(
    (block) =>
      block.statement.startPosition.row + 1 < line &&
      line <= block.statement.endPosition.row + 1 &&
      connection !== undefined &&
      block.connections.has(connection) &&
      !helperCommitsBefore(helper, module, line, block.statement),
  );
}

/**
 * The function whose code holds the effect's call: `fn`, or the same-module helper it came through when that
 * is a method called as `self.<name>(...)` (its `self` is then fn's, and so are its connections).
 */
function writerOf(effect: Effect, fn: PyFunction, module: PyModule): PyFunction | undefined {
  if (!effect.via) return fn;
  const helper = effect.via.path === module.path ? functionsByQualname(module).get(effect.via.qualname) : undefined;
  return helper?.className !== undefined && /^self\s*\.\s*\w+$/.test(calleeTextOf(effect.node)) ? helper : undefined;
}

/** Partial: only private methods called as `self.<name>(...)`, and only calls written inside the `with` itself (not through another helper). */
function calledOnlyInsideWrapper(effect: Effect, fn: PyFunction, module: PyModule): boolean {
  const sites = everyCallOf(fn, module);
  const writer = writerOf(effect, fn, module);
  if (!sites || !writer || fn.className === undefined) return false;
  const connection = connectionOfCall(effect.call, writer, module, ownDispatch(fn, module));
  if (connection === undefined || committedBefore(fn, module, fn.node, effect.node)) return false;
  if (effect.via && helperCommitsBefore(writer, module, effect.via.line)) return false;
  return sites.every(
    ({ call, caller }) =>
      new RegExp(`^self\\s*\\.\\s*${fn.name}$`).test(calleeTextOf(call)) &&
      wrapperTransactionBlocks(caller, module).some((block) => contains(block.statement, call) && block.connections.has(connection) && !committedBefore(caller, module, block.statement, call)),
  );
}

/** A commit in `region` (a `with` statement's body, or a function's) before the write, or in a loop around both. */
function committedBefore(fn: PyFunction, module: PyModule, region: SyntaxNode, write: SyntaxNode): boolean {
  const body = region.childForFieldName('body') ?? region;
  const before = (node: SyntaxNode): boolean => node.id !== write.id && contains(body, node) && (node.endIndex <= write.startIndex || inOneLoop(node, write, body));
  if (findEffects(fn, module).some((effect) => effect.kind === 'db-commit' && before(effect.node))) return true;
  return hits(fn, module, ownDispatch(fn, module), isAnyCommit, before).length > 0;
}

/** A commit in the helper before the line its write runs on (after the start of `from`, when given). */
function helperCommitsBefore(helper: PyFunction, module: PyModule, line: number, from?: SyntaxNode): boolean {
  const before = (node: SyntaxNode): boolean => node.startPosition.row + 1 < line && (from === undefined || node.startIndex >= from.startIndex);
  if (helper.className === undefined) return true;
  return hits(helper, module, ownDispatch(helper, module), isAnyCommit, before).length > 0;
}

function inOneLoop(node: SyntaxNode, write: SyntaxNode, region: SyntaxNode): boolean {
  for (let at = node.parent; at && at.id !== region.id; at = at.parent) {
    if ((at.type === 'for_statement' || at.type === 'while_statement') && contains(at, write)) return true;
  }
  return false;
}

// Keyed by the index too: a module indexed after a first look may now read its bases elsewhere.
const blocksCache = new WeakMap<PyFunction, { index: object | undefined; blocks: WrapperBlock[] }>();

/** The `with self.<wrapper>(...):` statements of the function's own code whose wrapper qualifies. */
export function wrapperTransactionBlocks(fn: PyFunction, module: PyModule): WrapperBlock[] {
  const index = repoIndexOf(module);
  const cached = blocksCache.get(fn);
  if (cached && cached.index === index) return cached.blocks;
  const blocks: WrapperBlock[] = [];
  const owner: ClassRef | undefined = fn.className === undefined ? undefined : { module, name: classQualname(fn) };
  for (const item of owner === undefined ? [] : scopeFacts(module, fn.node).withItems) {
    let value = item.childForFieldName('value');
    if (value?.type === 'as_pattern') value = value.namedChildren[0] ?? null;
    if (value?.type !== 'call') continue;
    const name = /^self\s*\.\s*(\w+)$/.exec(value.childForFieldName('function')?.text ?? '')?.[1];
    const statement = item.parent?.parent;
    if (!name || statement?.type !== 'with_statement') continue;
    const connections = wrapperConnections(owner!, name);
    if (connections) blocks.push({ statement, connections });
  }
  blocksCache.set(fn, { index, blocks });
  return blocks;
}

/** The connections the wrapper holds a transaction on, read on the class and on every subclass that overrides it. */
export function wrapperConnections(owner: ClassRef, name: string): Set<string> | undefined {
  const wrapper = methodOf(owner, name);
  let connections = wrapper && wrapperVerdict(wrapper, owner);
  for (const subclass of connections ? subclassesOf(owner) : []) {
    const override = methodOf(subclass, name);
    if (override?.fn === wrapper!.fn) continue;
    const theirs = override && wrapperVerdict(override, subclass);
    connections = theirs && intersect(connections!, theirs);
    if (!connections) break;
  }
  return connections && connections.size > 0 ? connections : undefined;
}
