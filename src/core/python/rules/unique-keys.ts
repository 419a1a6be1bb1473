// Whether an insert names every column of some PRIMARY KEY or UNIQUE constraint of its table, as the
// module's own schema text declares it: INSERT OR IGNORE and a bare ON CONFLICT DO NOTHING skip a row
// only on a constraint violation, so without such a key they insert a duplicate on every run (an
// autoincrement id the insert leaves out never conflicts). Read from the string literals of the module
// (`CREATE TABLE t (... UNIQUE ...)`, `CREATE UNIQUE INDEX ... ON t (...)`); a schema kept elsewhere
// (another module, a migration file) is not found, and the insert is then not taken as keyed.
import type { PyModule } from '../model.ts';
import { memoizePer } from '../memo.ts';

const CREATE_TABLE = /create\s+table\s+(?:if\s+not\s+exists\s+)?["'`[]?(\w+)["'`\]]?\s*\(/gi;
const UNIQUE_INDEX = /create\s+unique\s+index\s+(?:if\s+not\s+exists\s+)?[\w."'`[\]]+\s+on\s+["'`[]?(\w+)["'`\]]?\s*\(([^)]*)\)/gi;

/** Table → the column sets of its keys (lower-cased). */
const keysOf: (module: PyModule) => Map<string, string[][]> = memoizePer((module: PyModule) => {
  const keys = new Map<string, string[][]>();
  const add = (table: string, columns: string[]) => {
    const list = keys.get(table.toLowerCase()) ?? [];
    list.push(columns.map((column) => column.trim().replace(/["'`[\]]/g, '').split(/\s+/)[0]!.toLowerCase()).filter(Boolean));
    keys.set(table.toLowerCase(), list);
  };
  for (const match of module.source.matchAll(CREATE_TABLE)) {
    const body = balanced(module.source, match.index! + match[0].length);
    if (body === undefined) continue;
    for (const part of splitTopLevel(body)) {
      const tableKey = /^\s*(?:constraint\s+\w+\s+)?(?:primary\s+key|unique)\s*\(([^)]*)\)/i.exec(part);
      if (tableKey) add(match[1]!, tableKey[1]!.split(','));
      else if (/\b(primary\s+key|unique)\b/i.test(part)) add(match[1]!, [part.trim()]);
    }
  }
  for (const match of module.source.matchAll(UNIQUE_INDEX)) add(match[1]!, match[2]!.split(','));
  return keys;
});

export function insertHitsKey(module: PyModule, table: string, insertedColumns: readonly string[]): boolean {
  const inserted = new Set(insertedColumns.map((column) => column.trim().toLowerCase()));
  return (keysOf(module).get(table.toLowerCase()) ?? []).some((key) => key.length > 0 && key.every((column) => inserted.has(column)));
}

/** The text up to the parenthesis closing the one opened just before `from`. */
function balanced(text: string, from: number): string | undefined {
  let depth = 1;
  for (let at = from; at < text.length; at++) {
    if (text[at] === '(') depth++;
    else if (text[at] === ')' && --depth === 0) return text.slice(from, at);
  }
  return undefined;
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let at = 0; at < body.length; at++) {
    if (body[at] === '(') depth++;
    else if (body[at] === ')') depth--;
    else if (body[at] === ',' && depth === 0) {
      parts.push(body.slice(start, at));
      start = at + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}
