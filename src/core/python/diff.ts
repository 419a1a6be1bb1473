// A unified diff, as the changed lines of each file's new side, and the
// functions those lines touch. parse-diff does the parsing; this module
// decides what counts as touching a function.
import parseDiff from 'parse-diff';
import type { PyFunction } from './model.ts';
import { definitionStartLine } from './functions.ts';

export type FileStatus = 'added' | 'modified' | 'renamed' | 'deleted';

export interface FileChange {
  /** The path on the new side; for a deleted file, the old path. */
  path: string;
  /** Set when the file was renamed (or deleted): its path on the old side. */
  oldPath?: string;
  status: FileStatus;
  /** New-side lines added or changed. */
  addedLines: number[];
  /** New-side lines next to which old lines were removed (the line that now follows the removal). */
  removalAnchors: number[];
  /** Every new-side line inside a hunk (context included): where an inline review comment may anchor. */
  hunkLines: Set<number>;
}

export function parseUnifiedDiff(text: string): FileChange[] {
  return parseDiff(text).flatMap((file): FileChange[] => {
    const from = stripPrefix(file.from);
    const to = stripPrefix(file.to);
    const path = to ?? from;
    if (!path) return [];
    const status: FileStatus = file.deleted || !to ? 'deleted' : file.new || !from ? 'added' : from !== to ? 'renamed' : 'modified';
    const change: FileChange = { path: status === 'deleted' ? from ?? path : path, status, addedLines: [], removalAnchors: [], hunkLines: new Set() };
    if (from && (status === 'renamed' || status === 'deleted')) change.oldPath = from;
    if (status !== 'deleted') collectLines(file.chunks, change);
    return [change];
  });
}

function collectLines(chunks: parseDiff.Chunk[], change: FileChange): void {
  for (const chunk of chunks) {
    let nextNewLine = chunk.newStart;
    let pendingRemoval = false;
    for (const line of chunk.changes) {
      if (line.type === 'del') {
        pendingRemoval = true;
        continue;
      }
      const newLine = line.type === 'add' ? line.ln : line.ln2;
      if (pendingRemoval) change.removalAnchors.push(newLine);
      pendingRemoval = false;
      if (line.type === 'add') change.addedLines.push(newLine);
      change.hunkLines.add(newLine);
      nextNewLine = newLine + 1;
    }
    // Lines removed at the end of a hunk sit after its last new-side line.
    if (pendingRemoval) change.removalAnchors.push(Math.max(nextNewLine - 1, chunk.newStart, 1));
  }
}

/** `a/x.py` → `x.py`; `/dev/null` → undefined. */
function stripPrefix(path: string | undefined): string | undefined {
  if (!path || path === '/dev/null') return undefined;
  return path.replace(/^"|"$/g, '').replace(/^[ab]\//, '');
}

/**
 * The functions a change touches: an added line inside the function
 * (decorators included), or a removal inside its body. A change to a nested
 * function touches it, not its parent, unless the parent's own lines changed.
 */
export function touchedFunctions(change: FileChange, functions: readonly PyFunction[]): PyFunction[] {
  if (change.status === 'deleted') return [];
  const touched = new Set<PyFunction>();
  for (const line of change.addedLines) {
    const innermost = innermostAt(functions, line);
    if (innermost) touched.add(innermost);
  }
  // Removed lines usually belonged to the block above them, so the line before the removal decides first.
  for (const anchor of change.removalAnchors) {
    const innermost = innermostAt(functions, anchor - 1) ?? innermostAt(functions, anchor);
    if (innermost) touched.add(innermost);
  }
  return functions.filter((fn) => touched.has(fn));
}

function innermostAt(functions: readonly PyFunction[], line: number): PyFunction | undefined {
  let best: PyFunction | undefined;
  for (const fn of functions) {
    const start = definitionStartLine(fn);
    if (line >= start && line <= fn.range.endLine && (!best || start >= definitionStartLine(best))) best = fn;
  }
  return best;
}

/** The new-side lines inside hunks, per path: what inline-comment anchors must be validated against. */
export function commentableLines(changes: readonly FileChange[]): Map<string, Set<number>> {
  return new Map(changes.filter((change) => change.status !== 'deleted').map((change) => [change.path, change.hunkLines]));
}
