import type { SourceRange, SyntaxNode } from './model.ts';

/** tree-sitter rows are 0-based; the model's lines are 1-based. */
export function rangeOf(node: SyntaxNode): SourceRange {
  return {
    startLine: node.startPosition.row + 1,
    startColumn: node.startPosition.column,
    endLine: node.endPosition.row + 1,
    endColumn: node.endPosition.column,
  };
}

export function lineOf(node: SyntaxNode): number {
  return node.startPosition.row + 1;
}

export function containsLine(range: SourceRange, line: number): boolean {
  return line >= range.startLine && line <= range.endLine;
}
