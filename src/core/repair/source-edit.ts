// Text edits on Python source that keep its style: statements found on the
// tree-sitter tree, re-indented by the module's own indent unit, and lines
// inside multi-line strings left exactly as written.
import type { SyntaxNode } from '../python/model.ts';

export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** Applies non-overlapping edits (any order) to `source`. */
export function applyEdits(source: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start);
  let out = source;
  let limit = Infinity;
  for (const edit of sorted) {
    if (edit.end > limit) throw new Error(`overlapping source edits at offset ${edit.start}: a repair strategy must not edit the same code twice`);
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
    limit = edit.start;
  }
  return out;
}

/** Offset of the start of the line holding `index`. */
export function lineStart(source: string, index: number): number {
  return source.lastIndexOf('\n', index - 1) + 1;
}

/** Offset just past the newline ending the line holding `index` (or the end of the source). */
export function lineEnd(source: string, index: number): number {
  const newline = source.indexOf('\n', index);
  return newline === -1 ? source.length : newline + 1;
}

export function indentOf(source: string, node: SyntaxNode): string {
  const start = lineStart(source, node.startIndex);
  return source.slice(start, node.startIndex).replace(/\S.*$/, '');
}

/** The unit the module indents by: the first block's indent relative to its header, else four spaces. */
export function indentUnit(root: SyntaxNode, source: string): string {
  const stack: SyntaxNode[] = [root];
  while (stack.length) {
    const node = stack.shift()!;
    if (node.type === 'block' && node.parent && node.namedChildren.length) {
      const outer = indentOf(source, node.parent);
      const inner = indentOf(source, node.namedChildren[0]!);
      if (inner.startsWith(outer) && inner.length > outer.length) return inner.slice(outer.length);
    }
    stack.push(...node.namedChildren);
  }
  return '    ';
}

/** 0-based rows that lie inside a multi-line string (after its first line): re-indenting them would change the string. */
export function rowsInsideStrings(node: SyntaxNode): Set<number> {
  const rows = new Set<number>();
  const stack = [node];
  while (stack.length) {
    const current = stack.pop()!;
    if ((current.type === 'string' || current.type === 'concatenated_string') && current.endPosition.row > current.startPosition.row) {
      if (current.type === 'string') for (let r = current.startPosition.row + 1; r <= current.endPosition.row; r++) rows.add(r);
    }
    stack.push(...current.namedChildren);
  }
  return rows;
}

/**
 * The whole lines from `first` to `last` (statements of one block), each
 * non-blank line shifted right by `extra`, except lines inside a multi-line string.
 */
export function reindentLines(source: string, first: SyntaxNode, last: SyntaxNode, extra: string, scope: SyntaxNode): string {
  const start = lineStart(source, first.startIndex);
  const end = lineEnd(source, last.endIndex - 1);
  const frozen = rowsInsideStrings(scope);
  const firstRow = first.startPosition.row;
  return source
    .slice(start, end)
    .split('\n')
    .map((line, i) => (line.trim() === '' || frozen.has(firstRow + i) ? line : extra + line))
    .join('\n');
}

/** The statement-level ancestor of `node` that is a direct child of `block`. */
export function childOfBlock(node: SyntaxNode, block: SyntaxNode): SyntaxNode | undefined {
  for (let current: SyntaxNode | null = node; current; current = current.parent) {
    if (current.parent?.id === block.id) return current;
  }
  return undefined;
}

/** Every descendant of `node` (itself included) of one of `types`, skipping nested functions and classes. */
export function descendantsOfType(node: SyntaxNode, types: readonly string[]): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const stack = [node];
  while (stack.length) {
    const current = stack.pop()!;
    if (types.includes(current.type)) out.push(current);
    for (const child of current.namedChildren) {
      if (child.type === 'function_definition' || child.type === 'class_definition') continue;
      stack.push(child);
    }
  }
  return out.sort((a, b) => a.startIndex - b.startIndex);
}

/** Identifiers used anywhere in the node, for picking names that do not collide. */
export function namesUsed(node: SyntaxNode): Set<string> {
  return new Set(descendantsOfType(node, ['identifier']).map((n) => n.text));
}

export function freshName(taken: Set<string>, wanted: string): string {
  let name = wanted;
  for (let i = 2; taken.has(name); i++) name = `${wanted}${i}`;
  taken.add(name);
  return name;
}

/** Adds `import <name>` after the module's last top-level import (or docstring), unless it is imported already. */
export function ensureImport(source: string, root: SyntaxNode, moduleName: string): TextEdit | undefined {
  const imported = root.namedChildren.some(
    (s) => s.type === 'import_statement' && s.namedChildren.some((n) => n.text === moduleName || n.text.startsWith(`${moduleName} as`)),
  );
  if (imported) return undefined;
  const imports = root.namedChildren.filter((s) => s.type === 'import_statement' || s.type === 'import_from_statement');
  const docstring = root.namedChildren[0]?.type === 'expression_statement' && root.namedChildren[0].namedChildren[0]?.type === 'string'
    ? root.namedChildren[0]
    : undefined;
  const future = imports.filter((s) => s.text.startsWith('from __future__'));
  const plain = imports.filter((s) => s.type === 'import_statement');
  // Imports kept in alphabetical order stay so: the new one goes before the first that sorts after it.
  const names = plain.map((s) => s.text.replace(/^import\s+/, ''));
  const sorted = names.every((name, i) => i === 0 || names[i - 1]! <= name);
  const next = sorted ? plain.find((s, i) => names[i]! > moduleName) : undefined;
  if (next) {
    const at = lineStart(source, next.startIndex);
    return { start: at, end: at, text: `import ${moduleName}\n` };
  }
  const after = plain.at(-1) ?? future.at(-1) ?? docstring;
  if (after) {
    const at = lineEnd(source, after.endIndex - 1);
    return { start: at, end: at, text: `import ${moduleName}\n` };
  }
  const blank = imports.length === 0 && root.namedChildren.length > 0 ? '\n\n' : '';
  return { start: 0, end: 0, text: `import ${moduleName}\n${blank}` };
}
