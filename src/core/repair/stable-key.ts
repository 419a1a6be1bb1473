// A stable idempotency key for a send, derived from the row that records it:
// `f"<table>-{<the row's id>}"`. The id is the WHERE key of an UPDATE/DELETE, or,
// for an INSERT, the first of its values that is one of the function's own
// parameters (a request's own id, never a value made during the run).
import { callParts } from '../python/body-walk.ts';
import type { Effect, PyFunction, SyntaxNode } from '../python/model.ts';
import { PER_RUN_VALUE } from '../python/rules/send-before-record.ts';
import { localAssignmentBefore } from '../python/local-assignments.ts';
import { indentOf, type TextEdit } from './source-edit.ts';

export function stableKeyFor(record: Effect, fn: PyFunction): string | undefined {
  const table = record.sql?.tables[0];
  const sql = record.sql?.text;
  const params = callParts(record.node).positional[1];
  if (!table || !sql || !params) return undefined;
  const items = params.type === 'tuple' || params.type === 'list' ? params.namedChildren.filter((n) => n.type !== 'comment') : [params];
  let key: SyntaxNode | undefined;
  if (/^\s*insert\b/i.test(sql)) {
    key = items.find((item) => item.type === 'identifier' && fn.params.includes(item.text));
  } else {
    const where = sql.search(/\bwhere\b/i);
    const placeholders = [...sql.matchAll(/\?/g)].map((m) => m.index);
    const keyIndex = where >= 0 ? placeholders.findIndex((i) => i > where) : placeholders.length - 1;
    key = items[keyIndex >= 0 ? keyIndex : 0];
  }
  if (!key || !/^[\w.]+$/.test(key.text)) return undefined;
  return `f"${table}-{${key.text}}"`;
}

/** True when an argument of the call is built from a value that changes per run (a token, the time): the re-run would send other content under the same key. */
export function sendsPerRunValue(call: SyntaxNode): boolean {
  const args = call.childForFieldName('arguments');
  if (!args) return false;
  const seen = new Set<string>();
  const dependsOnRun = (node: SyntaxNode, depth: number): boolean => {
    if (PER_RUN_VALUE.test(node.text)) return true;
    if (depth > 3) return false;
    for (const id of node.descendantsOfType('identifier')) {
      if (seen.has(id.text)) continue;
      seen.add(id.text);
      const value = localAssignmentBefore(id);
      if (value && dependsOnRun(value, depth + 1)) return true;
    }
    return false;
  };
  return dependsOnRun(args, 0);
}

/** A keyword argument added last, on its own line when the call is written one argument per line. */
export function keywordInsertion(source: string, args: SyntaxNode, keyword: string): TextEdit {
  const items = args.namedChildren.filter((n) => n.type !== 'comment');
  const last = items.at(-1);
  const close = args.endIndex - 1;
  if (!last) return { start: close, end: close, text: keyword };
  const between = source.slice(last.endIndex, close);
  const multiLine = between.includes('\n');
  if (multiLine) {
    const indent = indentOf(source, last);
    const comma = between.includes(',');
    const at = comma ? last.endIndex + between.indexOf(',') + 1 : last.endIndex;
    return { start: at, end: at, text: `${comma ? '' : ','}\n${indent}${keyword}${comma ? ',' : ''}` };
  }
  return { start: last.endIndex, end: last.endIndex, text: `, ${keyword}` };
}
