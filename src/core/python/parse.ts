// Turns the bytes of one Python file into a PyModule. Never throws on odd
// input: a file that is not UTF-8, too large, Python 2, or broken still
// yields a module, with what went wrong in `notes` and `errors`.
import Parser from 'tree-sitter';
import Python from 'tree-sitter-python';
import type { PyModule, SourceRange, SyntaxNode } from './model.ts';
import { rangeOf } from './source-range.ts';

/** Files above this are generated or vendored far more often than reviewed; parsing them costs more than it tells. */
export const DEFAULT_MAX_BYTES = 1024 * 1024;

export interface ParseOptions {
  maxBytes?: number;
}

let sharedParser: Parser | undefined;

function parser(): Parser {
  if (!sharedParser) {
    sharedParser = new Parser();
    sharedParser.setLanguage(Python as Parser.Language);
  }
  return sharedParser;
}

/**
 * Parses Python source with the one shared parser. tree-sitter 0.25's node
 * binding reads strings through a callback, so large inputs need no
 * `bufferSize` (older bindings failed above 32 KiB).
 */
export function parsePython(source: string): Parser.Tree {
  return parser().parse(source);
}

export function parseModule(path: string, input: Uint8Array | string, options: ParseOptions = {}): PyModule {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const notes: string[] = [];
  const size = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.byteLength;
  if (size > maxBytes) {
    notes.push(`skipped: ${formatSize(size)} is over the ${formatSize(maxBytes)} limit (likely generated or vendored)`);
    return { path: normalizePath(path), source: '', tree: parsePython(''), errors: [], notes };
  }
  const source = typeof input === 'string' ? input : decodePythonSource(input, notes);
  const tree = parsePython(source);
  return { path: normalizePath(path), source, tree, errors: syntaxErrors(tree), notes };
}

/** UTF-8 first (with or without BOM); then the PEP 263 coding cookie; then latin-1, which decodes any byte. */
export function decodePythonSource(bytes: Uint8Array, notes: string[]): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const cookie = codingCookie(bytes);
    if (cookie && !/^utf-?8$/i.test(cookie)) {
      try {
        const text = new TextDecoder(cookie).decode(bytes);
        notes.push(`not UTF-8: decoded as ${cookie} (its coding declaration)`);
        return text;
      } catch {
        // An encoding TextDecoder does not know: latin-1 below still keeps every byte.
      }
    }
    notes.push('not UTF-8: decoded as latin-1, so non-ASCII text may be garbled');
    // Buffer's latin1 is ISO-8859-1 exactly; TextDecoder('latin1') means windows-1252 under full ICU.
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }
}

/** PEP 263: `coding[:=]name` in a comment on line 1 or 2. */
function codingCookie(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 400)).toString('latin1').split('\n').slice(0, 2);
  for (const line of head) {
    const match = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/.exec(line);
    if (match) return match[1];
  }
  return undefined;
}

function syntaxErrors(tree: Parser.Tree): SourceRange[] {
  const errors: SourceRange[] = [];
  // Only subtrees flagged hasError can hold an ERROR or MISSING node, so the walk stays small.
  const stack: SyntaxNode[] = tree.rootNode.hasError ? [tree.rootNode] : [];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'ERROR' || node.isMissing) {
      errors.push(rangeOf(node));
      continue;
    }
    for (let i = node.childCount - 1; i >= 0; i--) {
      const child = node.child(i);
      if (child && (child.hasError || child.isMissing)) stack.push(child);
    }
  }
  return errors;
}

function normalizePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\.\//, '');
}

function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}
