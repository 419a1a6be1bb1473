// `open(fd, 'wb')` where fd is a pipe's or a socket's descriptor: no file is behind it, so
// nothing is truncated and nothing persists for a crash to tear. joblib's loky
// Popen.__init__ writes the child's start-up data through the write end of os.pipe().
// Recognised: a name last bound from os.pipe()/os.pipe2()/os.openpty()/pty.openpty()
// (`r, w = os.pipe()`, or `fds = os.pipe()` then `fds[1]`), and `sock.fileno()` of a
// name last bound from socket.socket/create_connection/fromfd/socketpair or `.accept()`.
// The name must be bound nowhere else in the function (no other assignment, for,
// with ... as, augmented assignment, walrus, del, global or parameter of that name:
// exclusive-guards.ts binds and bindingSites, the one reading of "binds" the rules share).
// Partial: descriptors passed in as parameters or kept on `self` are not recognised
// (they stay reported).
import type { SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { localTupleSource } from '../tuple-binding.ts';
import { unparenthesized } from './syntax.ts';
import { bindingSites } from './exclusive-guards.ts';

const PIPE_MAKERS = new Set(['os.pipe', 'os.pipe2', 'os.openpty', 'pty.openpty']);
const SOCKET_MAKERS = /^(socket\.)?(socket|create_connection|create_server|fromfd|socketpair)$/;

/** The path of a write is a descriptor of a pipe, a pty or a socket, not of a file. */
export function isStreamDescriptor(path: SyntaxNode): boolean {
  const node = unparenthesized(path);
  if (node.type === 'identifier') {
    const value = lastBinding(node);
    if (!value) return false;
    return value.tuple ? isPipeCall(value.node) : isStreamDescriptorValue(value.node);
  }
  return isStreamDescriptorValue(node);
}

/** `os.pipe()[1]`, `fds[1]` with fds bound to os.pipe(), or `sock.fileno()`. */
function isStreamDescriptorValue(expression: SyntaxNode): boolean {
  const node = unparenthesized(expression);
  if (node.type === 'subscript') {
    const value = node.childForFieldName('value');
    if (!value) return false;
    if (isPipeCall(value)) return true;
    const bound = value.type === 'identifier' ? lastBinding(value) : undefined;
    return bound !== undefined && !bound.tuple && isPipeCall(bound.node);
  }
  if (node.type !== 'call') return false;
  const call = callParts(node);
  return call.method === 'fileno' && call.positional.length === 0 && call.receiver !== undefined && isSocket(call.receiver);
}

function isPipeCall(node: SyntaxNode): boolean {
  const value = unparenthesized(node);
  return value.type === 'call' && PIPE_MAKERS.has(callParts(value).callee);
}

function isSocket(receiver: SyntaxNode): boolean {
  const node = unparenthesized(receiver);
  const bound = node.type === 'identifier' ? lastBinding(node) : undefined;
  if (!bound) return false;
  const value = unparenthesized(bound.node);
  if (value.type !== 'call') return false;
  const call = callParts(value);
  // `conn, address = sock.accept()`: the first item is the connected socket.
  if (bound.tuple) return SOCKET_MAKERS.test(call.callee) || (call.method === 'accept' && bound.position === 0);
  return SOCKET_MAKERS.test(call.callee);
}

interface Binding {
  node: SyntaxNode;
  /** Bound as one item of `a, b = value`: `node` is the whole value. */
  tuple: boolean;
  position: number;
}

/** The value the name was last bound to before this use, by `x = v` or `a, x = v`, when that is its only binding in the function. */
function lastBinding(use: SyntaxNode): Binding | undefined {
  if (bindingSites(use) !== 1) return undefined;
  const plain = localAssignmentBefore(use);
  const tuple = localTupleSource(use);
  if (tuple && (!plain || plain.startIndex < tuple.value.startIndex)) return { node: tuple.value, tuple: true, position: tuple.position };
  return plain ? { node: plain, tuple: false, position: 0 } : undefined;
}
