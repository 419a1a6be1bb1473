// `self._handle.seek(0)` then `self._handle.write(data)`: a long-lived file
// handle rewritten from its start, the way tinydb's JSONStorage.write saves the
// whole database. No open() in the function shows it, so it is found here.
// Partial: only handles kept on an attribute (opened elsewhere, usually in
// __init__); a local handle is judged at its open() call instead.
import { enclosingFunctionNode } from './functions.ts';
import type { SyntaxNode } from './model.ts';
import type { CallParts } from './body-walk.ts';
import { compactText } from './rules/syntax.ts';

/** True when `node` is `<attribute>.write(data)` and its function calls `<same attribute>.seek(0)` before it. */
export function rewindsThenWrites(call: CallParts, node: SyntaxNode): boolean {
  if (call.method !== 'write' || call.receiver?.type !== 'attribute' || call.positional.length !== 1) return false;
  const fn = enclosingFunctionNode(node);
  if (!fn) return false;
  const handle = compactText(call.receiver);
  return fn.descendantsOfType('call', fn.startPosition, node.startPosition).some((other) => {
    if (other.startIndex >= node.startIndex) return false;
    const callee = other.childForFieldName('function');
    const [offset, whence] = other.childForFieldName('arguments')?.namedChildren ?? [];
    // seek(0) or seek(0, SEEK_SET): the start; seek(0, 2) is the end, where appends go.
    const toStart = offset?.text === '0' && (whence === undefined || /^(0|(os\.|io\.)?SEEK_SET)$/.test(whence.text));
    const object = callee?.type === 'attribute' && callee.childForFieldName('attribute')?.text === 'seek' ? callee.childForFieldName('object') : null;
    return toStart && object !== null && compactText(object) === handle;
  });
}
