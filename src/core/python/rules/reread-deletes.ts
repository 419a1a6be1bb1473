// A loop over rows the function itself reads from a table, deleting from that same table per row, and no other
// write (jupyter_server's SessionManager.list_sessions: `c = self.cursor.execute("SELECT * FROM session")`,
// `for row in c.fetchall(): ... self.row_to_model(row)`, which runs `DELETE FROM session WHERE session_id=?` for a
// row whose kernel is gone). Each delete is whole on its own; a crash between two leaves rows not yet deleted
// still in the table, where the next run's read finds them and deletes them the same way. The half-done state is
// the state before a run that had deleted fewer, not a torn one, so "a crash between them leaves them half done"
// names no harm. Not when anything else is written (a later write may depend on the deleted rows), when the loop
// runs over values from elsewhere (a caller's list: a re-run is not sure to come), when the read is of another
// table, or when the delete is not in the loop over the read. The read is a plain `SELECT ... FROM <table>` of that
// table alone (not `WITH RECURSIVE` over a tree, whose re-read cannot reach what lies under a deleted root; no JOIN or
// subquery of another table), its filter values are constants or the function's own (not a caller's parameters: a
// re-run with the same filter is not sure to come). Between two deletes nothing else happens: the loop body calls
// nothing but the call that deletes, logging, pure builtins, a local list's or dict's filling and repository
// functions whose every definition (a subclass's override too) calls none but these and writes nothing (no hook
// a subclass fills with an UPDATE, no `os.remove` of the row's file, no call on an object not resolved); inside a
// helper that deletes, the same holds for what follows the DELETE.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { contains, isOwnCode, unparenthesized } from './syntax.ts';
import { bindingsOf } from './repository-connections.ts';
import { repoIndexOf, resolveCall, type RepoIndex } from '../callgraph.ts';
import { functionsByQualname } from '../local-resolve.ts';
import { directEffects } from '../effects.ts';
import { familyMethods, last } from './class-family.ts';

/** `writes`: every write of the function (DML, DDL, scripts); `effects`: all its effects. */
export function deletesRowsItReads(writes: readonly Effect[], effects: readonly Effect[], fn: PyFunction, module: PyModule): boolean {
  if (writes.length !== 1) return false;
  const [write] = writes;
  const sql = write?.sql;
  if (!write || write.kind !== 'db-write' || sql?.kind !== 'write' || !/^\s*delete\b/i.test(sql.text ?? '') || sql.tables.length !== 1) return false;
  const table = sql.tables[0]!.toLowerCase();
  if (!isOwnCode(write.node, fn.node)) return false;
  const loop = innermostFor(write.node, fn.node);
  const iterable = loop?.childForFieldName('right');
  if (!loop || !iterable) return false;
  const loopBody = loop.childForFieldName('body')!;
  const reads = effects.filter((effect) => effect.kind === 'db-read' && effect.via === undefined && effect.node.endIndex <= loopBody.startIndex && plainSelectOf(effect, table));
  const read = reads.length > 0 ? fromRead(iterable, reads, fn) : undefined;
  if (!read || filteredByCaller(read, fn)) return false;
  const index = repoIndexOf(module);
  if (!index) return false;
  // Nothing but reads happens at the delete's call or anywhere in the loop: no file, no send.
  if (effects.some((effect) => contains(loopBody, effect.node) && effect !== write && effect.kind !== 'db-read')) return false;
  if (!onlyHarmlessCalls(loopBody, fn, module, index, (call) => call.id === write.node.id)) return false;
  return write.via === undefined || helperQuietAfter(write, fn, module, index);
}

/** `SELECT ... FROM <table>` (comments first skipped), naming that table alone, no JOIN, no WITH. */
function plainSelectOf(read: Effect, table: string): boolean {
  const sql = read.sql;
  const text = (sql?.text ?? '').replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*/, '');
  if (sql?.kind !== 'read' || !/^select\b/i.test(text) || /\b(join|with|union|intersect|except)\b/i.test(text)) return false;
  return sql.tables.length === 1 && sql.tables[0]!.toLowerCase() === table;
}

/**
 * The read's arguments (its SQL and its parameters) use a parameter of the function (other than `self`/`cls`),
 * directly or through a local bound from one: the rows are a caller's choice.
 */
function filteredByCaller(read: Effect, fn: PyFunction): boolean {
  const parts = callParts(read.node);
  const callerParams = new Set(fn.params.map((param) => param.replace(/^\*+/, '').split(/[:=]/)[0]!.trim()).filter((param) => !/^(self|cls)$/.test(param)));
  const seen = new Set<string>();
  const usesParam = (node: SyntaxNode, depth: number): boolean => {
    if (depth > 4) return true;
    const names = node.type === 'identifier' ? [node] : node.descendantsOfType('identifier');
    return names.some((name) => {
      if (callerParams.has(name.text)) return true;
      // `x.attr`'s attribute name is no variable.
      if (name.parent?.type === 'attribute' && name.parent.childForFieldName('attribute')?.id === name.id) return false;
      if (seen.has(name.text)) return false;
      seen.add(name.text);
      const values = bindingsOf(fn.node, name.text);
      if (values === undefined) return true;
      return values.some((value) => usesParam(value, depth + 1));
    });
  };
  return [...parts.positional, ...parts.keywords.values()].some((argument) => usesParam(argument, 0));
}

const LOGGING = /(^|\.)(_?log|_?logger|logging|LOG|LOGGER|_?LOGGER|log_)\.(debug|info|warning|warn|error|exception|critical|log)$/;
const PURE_BUILTINS = new Set(['int', 'str', 'float', 'bool', 'bytes', 'len', 'tuple', 'list', 'dict', 'set', 'frozenset', 'repr', 'isinstance', 'min', 'max', 'sorted', 'format', 'print', 'abs', 'round', 'zip', 'enumerate', 'range', 'iter', 'next', 'hash', 'getattr', 'hasattr', 'any', 'all', 'sum', 'map', 'filter', 'reversed']);
const FILLING = /^(append|add|extend|update|insert|setdefault|pop|get|items|keys|values|format|join|strip|lower|upper|split|startswith|endswith|replace)$/;

/**
 * Every call in `scope` (its own code) is the deleting call (`isWrite`), logging, a pure builtin, an exception raised,
 * a method on a string literal or on a local the function binds only to a literal list/dict/set/string, or a call
 * of repository functions that are all, each definition that may run, free of writes and of other calls (`depth` 1).
 */
function onlyHarmlessCalls(scope: SyntaxNode, fn: PyFunction, module: PyModule, index: RepoIndex, isWrite: (call: SyntaxNode) => boolean, depth = 0): boolean {
  for (const call of scope.descendantsOfType('call')) {
    if (!isOwnCode(call, fn.node) || isWrite(call)) continue;
    if (harmless(call, fn)) continue;
    if (depth === 0 && writesNothing(call, fn, module, index)) continue;
    return false;
  }
  return true;
}

/** A name the function binds only to a literal list, dict, set or string (`result = []`), not a parameter. */
function localLiteral(node: SyntaxNode, fn: PyFunction): boolean {
  if (node.type !== 'identifier' || fn.params.includes(node.text)) return false;
  const values = bindingsOf(fn.node, node.text);
  return values !== undefined && values.length > 0 && values.every((value) => /^(list|dictionary|set|string|list_comprehension|dictionary_comprehension|set_comprehension)$/.test(unparenthesized(value).type));
}

/**
 * The call resolves to repository functions only, and each that may run (for `self.method()`, the method as every
 * class of the family defines it: a subclass's override too) has no effect but reads and calls nothing but harmless calls.
 */
function writesNothing(call: SyntaxNode, fn: PyFunction, module: PyModule, index: RepoIndex): boolean {
  const parts = callParts(call);
  let candidates: { fn: PyFunction; module: PyModule }[];
  if (parts.receiver?.text === 'self' && fn.className !== undefined) {
    candidates = familyMethods(last(fn.className), parts.method, index);
  } else {
    const resolved = resolveCall(index, module.path, call, fn);
    if (resolved.resolution !== 'exact') return false;
    candidates = resolved.targets.flatMap((target) => {
      const where = index.modules.get(target.path);
      const callee = where && functionsByQualname(where).get(target.qualname);
      return where && callee ? [{ fn: callee, module: where }] : [];
    });
    if (candidates.length !== resolved.targets.length) return false;
  }
  return candidates.length > 0 && candidates.every(({ fn: callee, module: where }) =>
    directEffects(callee, where).every((effect) => effect.kind === 'db-read') &&
    onlyHarmlessCalls(callee.node, callee, where, index, () => false, 1),
  );
}

/**
 * The DELETE runs in a helper the loop calls (jupyter_server's row_to_model): the helper is the call's one target,
 * and after the DELETE it calls nothing but harmless calls (logging, building the message, raising).
 */
function helperQuietAfter(write: Effect, fn: PyFunction, module: PyModule, index: RepoIndex): boolean {
  const via = write.via!;
  const inner = write.viaNode;
  const resolved = resolveCall(index, module.path, write.node, fn);
  if (resolved.resolution !== 'exact' || resolved.targets.length !== 1 || !inner) return false;
  const [target] = resolved.targets;
  if (target!.qualname !== via.qualname || target!.path !== via.path) return false;
  const where = index.modules.get(via.path);
  const helper = where && functionsByQualname(where).get(via.qualname);
  if (!where || !helper) return false;
  // a `self.helper()` a subclass overrides may do anything.
  if (helper.className !== undefined && familyMethods(last(helper.className), helper.name, index).length !== 1) return false;
  const following = statementsAfter(inner, helper.node);
  const after = following.flatMap((statement) => [...(statement.type === 'call' ? [statement] : []), ...statement.descendantsOfType('call')]).filter((call) => isOwnCode(call, helper.node));
  if (directEffects(helper, where).some((effect) => following.some((statement) => contains(statement, effect.node)) && effect.kind !== 'db-read')) return false;
  return after.every((call) => harmless(call, helper));
}

/**
 * The statements that may run after the node's own statement in the function: its later siblings, up to one that
 * leaves (`return`, `raise`), then those of each enclosing block in turn (a loop's whole body, which may run again).
 */
function statementsAfter(node: SyntaxNode, fnNode: SyntaxNode): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  let statement: SyntaxNode | null = node;
  while (statement && statement.parent && statement.parent.type !== 'block') statement = statement.parent;
  while (statement && statement.id !== fnNode.id) {
    const block: SyntaxNode | null = statement.parent;
    if (!block || block.type !== 'block') break;
    for (let next = statement.nextNamedSibling; next; next = next.nextNamedSibling) {
      found.push(next);
      if (next.type === 'return_statement' || next.type === 'raise_statement') return found;
    }
    // up to the compound statement holding the block (`if`, `try`, `for`, ...), then to the block holding that.
    let holder: SyntaxNode | null = block.parent;
    if (holder && /^(for_statement|while_statement)$/.test(holder.type)) found.push(holder);
    while (holder && holder.id !== fnNode.id && holder.parent?.type !== 'block') holder = holder.parent;
    if (!holder || holder.id === fnNode.id) break;
    statement = holder;
  }
  return found;
}

/** One call, by itself: logging, a pure builtin, an exception raised, or a method on a string literal or a local literal. */
function harmless(call: SyntaxNode, fn: PyFunction): boolean {
  const parts = callParts(call);
  if (LOGGING.test(parts.callee) || (parts.receiver === undefined && PURE_BUILTINS.has(parts.callee))) return true;
  if (call.parent?.type === 'raise_statement' && /(Error|Exception)$/.test(parts.callee)) return true;
  const receiver = parts.receiver ? unparenthesized(parts.receiver) : undefined;
  return receiver !== undefined && FILLING.test(parts.method ?? '') && (/^(string|concatenated_string)$/.test(receiver.type) || localLiteral(receiver, fn));
}

/** The innermost `for` of the function whose body holds the node (not its iterable). */
function innermostFor(node: SyntaxNode, fnNode: SyntaxNode): SyntaxNode | undefined {
  for (let current = node.parent, child: SyntaxNode = node; current && current.id !== fnNode.id; child = current, current = current.parent) {
    if (/^(while_statement|list_comprehension|set_comprehension|dictionary_comprehension|generator_expression)$/.test(current.type)) return undefined;
    if (current.type === 'for_statement') return current.childForFieldName('body')?.id === child.id ? current : undefined;
  }
  return undefined;
}

/** `conn.execute("SELECT ...")`, `cur.fetchall()` of one, or a local bound only to one of these: the one read it comes from. */
function fromRead(expression: SyntaxNode, reads: readonly Effect[], fn: PyFunction, depth = 0): Effect | undefined {
  const node = unparenthesized(expression);
  if (depth > 3) return undefined;
  const direct = reads.find((read) => read.node.id === node.id);
  if (direct) return direct;
  if (node.type === 'call') {
    const parts = callParts(node);
    if (parts.receiver !== undefined && /^(fetchall|fetchmany)$/.test(parts.method ?? '')) return fromRead(parts.receiver, reads, fn, depth + 1);
    return parts.callee === 'list' && parts.positional.length === 1 ? fromRead(parts.positional[0]!, reads, fn, depth + 1) : undefined;
  }
  if (node.type !== 'identifier' || fn.params.includes(node.text)) return undefined;
  const values = bindingsOf(fn.node, node.text);
  if (values === undefined || values.length !== 1 || !contains(fn.node, values[0]!)) return undefined;
  return fromRead(values[0]!, reads, fn, depth + 1);
}
