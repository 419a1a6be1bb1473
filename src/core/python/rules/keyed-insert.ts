// A plain INSERT in a helper that first looks its row up by the value it inserts as the key and
// returns when found (buku's add_rec: `if self.get_rec_id(url) != -1: return -1`): run again for
// the same item, it inserts nothing. Read by idempotent-writes.ts.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { directEffects } from '../effects.ts';
import { resolveLocalCall } from '../local-resolve.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { compactText, isOwnCode, statementOf, unparenthesized } from './syntax.ts';
import { boundArguments, CONSTANT, reassigned, type WriteSite } from './write-site.ts';

/**
 * `sentinel`: what the helper returns when the row was already there (the caller may branch on it);
 * `columnSources`: for an inserted column whose value is a parameter of the helper, that parameter.
 */
export interface KeyedInsert {
  how: 'keyed-insert';
  sentinel: string;
  helper: PyFunction;
  table: string;
  columnSources: Map<string, string>;
}

const INSERT = /^insert\s+into\s+(\w+)\s*\(([^)]*)\)\s*values\s*\(([^)]*)\)\s*;?$/is;

/**
 * A plain INSERT in a helper, after a statement `if <lookup> != S: return S'` (or `is not`), where the
 * lookup is `v = self.h(key)` just before it, or `self.h(key)` in the test itself, h a same-class method
 * that runs one `SELECT ... FROM table WHERE col = ? [LIMIT 1]` with its parameter on the same receiver
 * as the insert and returns `<row> if rows else S`: col is an inserted column, its inserted value is
 * `key`, and `key` is never reassigned. The helper writes nothing else, so the return skips only this.
 */
export function keyedInsert(site: WriteSite, text: string): KeyedInsert | undefined {
  const match = INSERT.exec(text);
  if (!match) return undefined;
  const [, table = '', columnList = ''] = match;
  const columns = columnList.split(',').map((column) => column.trim().toLowerCase());
  const values = boundArguments(site.write.node);
  const receiver = callParts(site.write.node).receiver;
  const writes = directEffects(site.fn, site.module).filter((effect) => ['db-write', 'db-ddl', 'db-script', 'send', 'file-write', 'file-delete', 'file-rename', 'file-replace'].includes(effect.kind));
  if (!values || values.length !== columns.length || !receiver || writes.length !== 1) return undefined;
  for (let at = statementOf(site.write.node); at.parent && at.id !== site.fn.node.id; at = statementOf(at.parent)) {
    for (let guard = at.previousNamedSibling; guard; guard = guard.previousNamedSibling) {
      const sentinel = guardReturn(guard);
      if (sentinel === undefined) continue;
      const lookup = keyLookup(guard, site);
      if (!lookup || lookup.table !== table.toLowerCase() || lookup.receiver !== compactText(receiver)) continue;
      const position = columns.indexOf(lookup.column);
      const key = values[position];
      if (position < 0 || key?.type !== 'identifier' || key.text !== lookup.key || reassigned(key.text, site.fn)) continue;
      return { how: 'keyed-insert', sentinel, helper: site.fn, table: table.toLowerCase(), columnSources: parameterColumns(columns, values, site.fn) };
    }
    if (at.parent.type === 'module') break;
  }
  return undefined;
}

/** Inserted columns whose value is a parameter, reassigned (if at all) only from itself: `tags_in = delim_wrap(tags_in)`. */
function parameterColumns(columns: readonly string[], values: readonly SyntaxNode[], fn: PyFunction): Map<string, string> {
  const found = new Map<string, string>();
  for (const [at, value] of values.entries()) {
    if (value.type !== 'identifier' || !fn.params.includes(value.text)) continue;
    const assignments = fn.node.descendantsOfType('assignment').filter((node) => isOwnCode(node, fn.node) && node.childForFieldName('left')?.text === value.text);
    const fromItself = assignments.every((node) => {
      const right = node.childForFieldName('right')!;
      const calleeIds = new Set(right.descendantsOfType('call').map((call) => call.childForFieldName('function')?.id));
      return right.descendantsOfType('identifier').every((name) => name.text === value.text || calleeIds.has(name.id) || CONSTANT.test(name.text));
    });
    if (fromItself) found.set(columns[at]!, value.text);
  }
  return found;
}

/** `if <test>: ... return X` with no elif/else: X's text ('' for a bare return). */
function guardReturn(statement: SyntaxNode): string | undefined {
  if (statement.type !== 'if_statement' || statement.childForFieldName('alternative')) return undefined;
  const last = statement.childForFieldName('consequence')?.lastNamedChild;
  return last?.type === 'return_statement' ? (last.namedChildren[0]?.text ?? '') : undefined;
}

interface KeyLookup {
  table: string;
  column: string;
  key: string;
  receiver: string;
}

function keyLookup(guard: SyntaxNode, site: WriteSite): KeyLookup | undefined {
  const test = unparenthesized(guard.childForFieldName('condition')!);
  if (test.type !== 'comparison_operator' || !/^(!=|is\s+not)$/.test(test.children[1]?.text.replace(/\s+/g, ' ') ?? '')) return undefined;
  const [tested, missing] = test.namedChildren;
  if (!tested || !missing || !CONSTANT.test(missing.text)) return undefined;
  let call: SyntaxNode | undefined = tested.type === 'call' ? tested : undefined;
  if (tested.type === 'identifier') {
    const before = guard.previousNamedSibling;
    const assignment = before?.type === 'expression_statement' ? before.namedChildren[0] : undefined;
    if (assignment?.type === 'assignment' && assignment.childForFieldName('left')?.text === tested.text) {
      const right = assignment.childForFieldName('right');
      call = right?.type === 'call' ? right : undefined;
    }
  }
  const key = call && callParts(call).positional[0];
  if (!call || !key || callParts(call).positional.length !== 1) return undefined;
  const lookup = resolveLocalCall(call, site.module, site.fn);
  if (!lookup || lookup.className === undefined || lookup.className !== site.fn.className) return undefined;
  return lookupOf(lookup, site.module, key.text, missing.text);
}

const ONE_KEY_SELECT = /^select\b.+?\bfrom\s+(\w+)\s+where\s+(\w+)\s*=\s*\?\s*(limit\s+1\s*)?;?$/is;

/** h(self, p): one SELECT ... WHERE col = ? bound to (p,), on a `self.` receiver, then `return <row> if <rows> else MISSING`. */
function lookupOf(lookup: PyFunction, module: PyModule, key: string, missing: string): KeyLookup | undefined {
  const effects = directEffects(lookup, module);
  const reads = effects.filter((effect) => effect.kind === 'db-read');
  if (reads.length !== 1 || effects.some((effect) => effect.kind !== 'db-read')) return undefined;
  const read = reads[0]!;
  const match = ONE_KEY_SELECT.exec(read.sql?.text?.trim() ?? '');
  const parameter = lookup.params.filter((name) => name !== 'self' && name !== 'cls')[0];
  const bound = boundArguments(read.node);
  const receiver = callParts(read.node).receiver;
  if (!match || !parameter || bound?.length !== 1 || bound[0]!.text !== parameter || !receiver?.text.startsWith('self.')) return undefined;
  if (reassigned(parameter, lookup)) return undefined;
  const returns = lookup.node.descendantsOfType('return_statement').filter((node) => isOwnCode(node, lookup.node));
  const value = returns.length === 1 ? returns[0]!.namedChildren[0] : undefined;
  if (value?.type !== 'conditional_expression') return undefined;
  const [found, rows, absent] = value.namedChildren;
  if (absent?.text !== missing || !found || found.text === missing || !fetchedFrom(rows, read, receiver)) return undefined;
  return { table: match[1]!.toLowerCase(), column: match[2]!.toLowerCase(), key, receiver: compactText(receiver) };
}

/** `rows`, last assigned `<receiver>.fetchall()` / `.fetchone()` after the read, or `<read>.fetchone()`: the read's answer. */
function fetchedFrom(rows: SyntaxNode | undefined, read: Effect, receiver: SyntaxNode): boolean {
  if (rows?.type !== 'identifier') return false;
  const fetch = localAssignmentBefore(rows);
  if (fetch?.type !== 'call' || fetch.startIndex < read.node.startIndex) return false;
  const parts = callParts(fetch);
  if (!/^fetch(one|all|many)$/.test(parts.method) || !parts.receiver) return false;
  return parts.receiver.id === read.node.id || compactText(parts.receiver) === compactText(receiver);
}
