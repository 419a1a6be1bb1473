// Whether one database write, read where it is written (in the function under review or in the
// same-module helper its effect came through), lands the same state when it runs again for the
// same item: `INSERT OR IGNORE` or `ON CONFLICT ... DO NOTHING` on a key, a DELETE, an UPDATE whose SET
// values are literals, an UPDATE whose value is merged through a same-module dedup (dedup-merge.ts,
// buku's parse_tags), or a plain INSERT in a helper that first looks the row up by the very value it
// inserts as that key and returns when it is found (keyed-insert.ts, buku's add_rec).
// Anything else (an increment, an insert without a key check or with a check of another key or
// table or connection, unresolved SQL) is not idempotent.
import type { PyFunction, SyntaxNode } from '../model.ts';
import { insertHitsKey } from './unique-keys.ts';
import { boundArguments, type WriteSite } from './write-site.ts';
import { mergedThroughDedup } from './dedup-merge.ts';
import { keyedInsert, type KeyedInsert } from './keyed-insert.ts';

export { writeSite, type WriteSite } from './write-site.ts';

export type IdempotentWrite =
  | { how: 'ignore' | 'delete' | 'absolute-update' }
  /** `sources`: the parameters of `fn` whose values are merged into `columns` (with the row's old values). */
  | { how: 'merge-update'; table: string; columns: string[]; sources: string[]; fn: PyFunction }
  | KeyedInsert;

export function idempotentWrite(site: WriteSite, reviewed: PyFunction): IdempotentWrite | undefined {
  const sql = site.write.sql;
  if (site.write.kind !== 'db-write' || sql?.kind !== 'write' || sql.text === undefined) return undefined;
  const text = sql.text.trim();
  // ON CONFLICT (cols) names its key (SQLite refuses a target no constraint matches); OR IGNORE and a bare
  // ON CONFLICT skip only on a violation, so the insert must name every column of a key (unique-keys.ts).
  if (/\bon\s+conflict\s*\([^)]*\)\s*do\s+nothing\s*;?$/i.test(text)) return { how: 'ignore' };
  if (/^insert\s+or\s+ignore\b/i.test(text) || /\bon\s+conflict\s+do\s+nothing\s*;?$/i.test(text)) {
    const insert = /^insert\s+(?:or\s+ignore\s+)?into\s+(\w+)\s*\(([^)]*)\)/i.exec(text);
    return insert && insertHitsKey(site.module, insert[1]!, insert[2]!.split(',')) ? { how: 'ignore' } : undefined;
  }
  if (/^delete\b/i.test(text)) return { how: 'delete' };
  if (/^update\b/i.test(text)) return updateKind(site, text);
  // The key check must sit in a helper, where its `return` skips only the helper's own insert.
  if (/^insert\s+into\b/i.test(text) && site.fn.node.id !== reviewed.node.id) return keyedInsert(site, text);
  return undefined;
}

const UPDATE = /^update\s+\w+\s+set\s+(.+?)\s+where\s+(.+?)\s*;?$/is;
const ASSIGNMENT = /^\s*\w+\s*=\s*(\?|-?\d+(\.\d+)?|'[^']*'|null)\s*$/i;

/** Every SET is `col = ?` or a literal; each bound value is a literal, or merged through a dedup. */
function updateKind(site: WriteSite, text: string): IdempotentWrite | undefined {
  const match = UPDATE.exec(text);
  if (!match || /[()]/.test(match[1]!)) return undefined;
  const assignments = match[1]!.split(',');
  if (!assignments.every((assignment) => ASSIGNMENT.test(assignment))) return undefined;
  const bound = assignments.filter((assignment) => /=\s*\?\s*$/.test(assignment)).length;
  const values = boundArguments(site.write.node)?.slice(0, bound);
  if (!values || values.length < bound) return undefined;
  const setColumns = assignments.filter((assignment) => /=\s*\?\s*$/.test(assignment)).map((assignment) => assignment.split('=')[0]!.trim().toLowerCase());
  const columns: string[] = [];
  const sources = new Set<string>();
  for (const [at, value] of values.entries()) {
    if (isLiteralValue(value)) continue;
    const merged = mergedThroughDedup(value, site);
    if (!merged) return undefined;
    columns.push(setColumns[at]!);
    for (const source of merged) sources.add(source);
  }
  if (columns.length === 0) return { how: 'absolute-update' };
  const table = /^update\s+(\w+)/i.exec(text)![1]!.toLowerCase();
  return { how: 'merge-update', table, columns, sources: [...sources], fn: site.fn };
}

const LITERALS = new Set(['string', 'integer', 'float', 'true', 'false', 'none']);

/**
 * A literal: the same value on every run. A value bound from the item is not taken as absolute: the
 * item may be the caller's computation from the rows this loop changes (sqlite-utils' convert passes
 * `fn(old value)`), and a re-run would compute it again from the changed rows. Partial: where the items
 * come from is not traced, so values from a file the function parses are refused too.
 */
function isLiteralValue(value: SyntaxNode): boolean {
  return LITERALS.has(value.type) || (value.type === 'unary_operator' && LITERALS.has(value.lastNamedChild?.type ?? ''));
}
