// A handle rewound and rewritten with one small fixed-size record: `f.seek(0)`, then
// `f.write(struct.pack(">L", n))` and nothing more written through `f` (queuelib's
// LifoDiskQueue.close rewrites the 4-byte item count at the file's start). One write() of
// a few bytes over bytes the file already has either happens or does not: a crash cannot
// leave it part old, part new, nor cut the file short.
import type { PyModule, SyntaxNode } from '../model.ts';
import { callParts, walkFunctionBody } from '../body-walk.ts';
import { resolveString } from '../string-value.ts';
import { compactText } from './syntax.ts';

/** A counter or a few fields: far under a disk sector, so not split. */
const MAX_RECORD_BYTES = 64;

/** What a handle is still asked after its last write without changing the file's bytes. */
const SETTLING = new Set(['close', 'flush', 'fileno']);

/** struct's standard sizes (a byte-order prefix given, so no native alignment). */
const STANDARD_SIZE: Readonly<Record<string, number>> = {
  x: 1, c: 1, b: 1, B: 1, '?': 1, h: 2, H: 2, i: 4, I: 4, l: 4, L: 4, q: 8, Q: 8, e: 2, f: 4, d: 8, s: 1, p: 1,
};

export function smallFixedRecord(write: SyntaxNode, fnNode: SyntaxNode, module: PyModule): boolean {
  const call = callParts(write);
  const [record] = call.positional;
  if (call.method !== 'write' || !call.receiver || call.positional.length !== 1 || record?.type !== 'call') return false;
  const pack = callParts(record);
  if (pack.callee !== 'struct.pack' && pack.callee !== 'pack') return false;
  const size = recordSize(resolveString(pack.positional[0], module)?.text);
  if (size === undefined || size > MAX_RECORD_BYTES) return false;
  return !writesAgain(compactText(call.receiver), write, fnNode);
}

/** The size of a struct format with a byte-order prefix (`>L`, `<2I`), or undefined for any other. */
function recordSize(format: string | undefined): number | undefined {
  const body = /^[<>!=]([\sxcbB?hHiIlLqQefdsp0-9]*)$/.exec(format ?? '')?.[1];
  if (body === undefined) return undefined;
  let size = 0;
  for (const [, count, code] of body.replace(/\s+/g, '').matchAll(/(\d*)([a-zA-Z?])/g)) size += Number(count || 1) * (STANDARD_SIZE[code!] ?? Infinity);
  return Number.isFinite(size) ? size : undefined;
}

/**
 * Another write through the same handle after this one, or a later call that may make one: a call the
 * handle is passed to, or, for a handle kept on `self`, any later method call on `self` (its helper
 * may write the rest of the file). The record is then not all that changes.
 */
function writesAgain(handle: string, write: SyntaxNode, fnNode: SyntaxNode): boolean {
  const onSelf = handle.startsWith('self.');
  let again = false;
  walkFunctionBody(fnNode, (node) => {
    if (again || node.type !== 'call' || node.startIndex <= write.startIndex) return;
    const call = callParts(node);
    const receiver = call.receiver && compactText(call.receiver);
    const passed = [...call.positional, ...call.keywords.values()].some((argument) => compactText(argument) === handle);
    const selfMethod = onSelf && receiver === 'self';
    const settles = receiver === handle && SETTLING.has(call.method);
    again = !settles && (receiver === handle || passed || selfMethod);
  });
  return again;
}
