// A file a database row names: its name passed to a database write (store_upload's INSERT of
// stored_as), or built from what a query returned (a cache file named by a meta row).
import type { Effect, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { nameBindings } from './name-bindings.ts';
import { unparenthesized } from './syntax.ts';
import { MAX_DEPTH } from './path-keys.ts';
import type { ReadBack } from './read-back.ts';

const DATABASE_CALL = /\.(execute|executemany|fetchone|fetchall|fetchmany)\(/;

/**
 * The file's name is kept in, or taken from, the database: a name this function passes to a
 * database write (store_upload's INSERT of stored_as), or a path built from what a query returned
 * (a cache file named by a meta row). A record names the file, so something reads it back.
 */
export function namedByRecord(path: SyntaxNode, fnNode: SyntaxNode, effects: readonly Effect[]): ReadBack | undefined {
  const bindings = nameBindings(fnNode);
  const names = new Set<string>();
  let query: SyntaxNode | undefined;
  const visit = (node: SyntaxNode, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (!query && DATABASE_CALL.test(node.text)) query = node;
    for (const identifier of node.type === 'identifier' ? [node] : node.descendantsOfType('identifier')) {
      // Plain names only: `os` of os.path.join or a callee names no data.
      if (names.has(identifier.text) || identifier.parent?.type === 'attribute' || identifier.parent?.type === 'call') continue;
      names.add(identifier.text);
      for (const value of bindings.values.get(identifier.text) ?? []) visit(value, depth + 1);
    }
  };
  visit(unparenthesized(path), 0);
  if (query) return { line: query.startPosition.row + 1, how: 'queried' };
  const record = effects.find(
    (effect) =>
      effect.kind === 'db-write' &&
      callParts(effect.node)
        .positional.slice(1)
        .some((argument) => [argument, ...argument.descendantsOfType('identifier')].some((identifier) => identifier.type === 'identifier' && names.has(identifier.text))),
  );
  return record && { line: record.range.startLine, how: 'recorded' };
}
