// Where a function reads a file: `open(p)` / `open(p, 'rb')`, `p.open()`, `p.read_text()`, `p.read_bytes()`.
import type { SyntaxNode } from '../model.ts';
import { callParts, walkFunctionBody } from '../body-walk.ts';
import { compactText, literalText } from './syntax.ts';

/** Openers whose first argument is the path (`os.fdopen` takes a descriptor, usually a temp file's). */
export const PATH_OPENERS = new Set(['open', 'io.open', 'codecs.open', 'builtins.open', 'gzip.open', 'bz2.open', 'lzma.open', 'tarfile.open']);

/** The path a call reads, as compact text; undefined when the call reads no file by path. */
function readPath(node: SyntaxNode): string | undefined {
  const call = callParts(node);
  if (call.receiver && ['read_text', 'read_bytes', 'open'].includes(call.method)) {
    if (call.method !== 'open' || readMode(call.keywords.get('mode') ?? call.positional[0])) return compactText(call.receiver);
  }
  if (PATH_OPENERS.has(call.callee) && call.positional[0] && readMode(call.keywords.get('mode') ?? call.positional[1])) {
    return compactText(call.positional[0]);
  }
  return undefined;
}

/** True when one of `paths` (compact text) is read in the function, before `before` (a source offset) when given. */
export function readsPath(fnNode: SyntaxNode, paths: ReadonlySet<string>, before = Infinity): boolean {
  let read = false;
  walkFunctionBody(fnNode, (node) => {
    if (read || node.type !== 'call' || node.endIndex > before) return;
    const path = readPath(node);
    read = path !== undefined && paths.has(path);
  });
  return read;
}

function readMode(mode: SyntaxNode | undefined): boolean {
  return mode === undefined || (mode.type === 'string' && !/[wax+]/.test(literalText(mode)));
}
