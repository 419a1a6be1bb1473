// Which code can only be left by an exception: a block every path of which
// ends in `raise`, or in a call to a function that itself never returns
// normally (`rollback_and_reraise(exc_info)`: `try: rollback() finally:
// reraise(*exc_info)`). Functions are followed through the resolver the
// caller gives, each judged once; a cycle of calls counts as returning.
//
// Conservative throughout, so a "never returns" answer can be trusted: a loop,
// a `with` (its manager may suppress the error), a `match`, an `await` or a
// call that is not followed all count as completing; any `return`, `break`
// or `continue` in the block counts as a normal way out; a generator or
// coroutine function returns its generator at once.
//
// Partial: the rules get same-module resolution only, and the repository's
// call graph rates a name that a package re-exports with `import *` as
// approximate (pony's `reraise`, re-exported by pony/utils/__init__.py), so a
// callee that cannot be followed is trusted by name only when the standard
// library or a well-known idiom says it never returns (UNFOLLOWED_NEVER_RETURNING).
import type { PyFunction, PyModule, SyntaxNode } from '../model.ts';
import type { HelperResolver, HelperTarget } from '../effects.ts';
import { calleeTextOf } from '../module-facts.ts';
import { isOwnCode } from './syntax.ts';

/**
 * Callees not followed that never return: the process ends (`sys.exit`, `os._exit`, `os.abort`), or the
 * name says it raises what it is given (six's and future's `reraise`, `raise_from`, `raise_`,
 * `raise_with_traceback`, and projects' own copies of them). `gen.throw()` is left out: it returns
 * the generator's next value.
 */
const UNFOLLOWED_NEVER_RETURNING = /^(sys\.exit|os\._exit|os\.abort|(\w+\.)*(reraise|raise_from|raise_|raise_with_traceback))$/;

const NORMAL_EXITS = ['return_statement', 'break_statement', 'continue_statement'];

export interface NeverReturnsScope {
  /** The function the block is in: calls in it are resolved as this function's calls. */
  fn: PyFunction;
  module: PyModule;
  resolveHelper: HelperResolver;
}

/** True when `block` (an except clause's body, say) can be left only by an exception. */
export function onlyRaises(block: SyntaxNode, scope: NeverReturnsScope): boolean {
  const normalExit = block.descendantsOfType(NORMAL_EXITS).some((exit) => isOwnCode(exit, scope.fn.node));
  return !normalExit && !completes(block, scope);
}

/** True when every call of `helper` ends in an exception. */
export function neverReturns(helper: HelperTarget, resolveHelper: HelperResolver): boolean {
  let known = verdicts.get(resolveHelper);
  if (!known) verdicts.set(resolveHelper, (known = new WeakMap()));
  const cached = known.get(helper.fn);
  if (cached !== undefined) return cached;
  // Asked again while being judged (recursion): say it returns, the safe answer.
  known.set(helper.fn, false);
  const verdict = !runsLater(helper.fn) && bodyOnlyRaises(helper, resolveHelper);
  known.set(helper.fn, verdict);
  return verdict;
}

const verdicts = new WeakMap<HelperResolver, WeakMap<PyFunction, boolean>>();

function bodyOnlyRaises(helper: HelperTarget, resolveHelper: HelperResolver): boolean {
  const body = helper.fn.node.childForFieldName('body');
  return body !== null && onlyRaises(body, { fn: helper.fn, module: helper.module, resolveHelper });
}

/** A coroutine or generator function: calling it runs none of its body. */
function runsLater(fn: PyFunction): boolean {
  return fn.isAsync || fn.node.descendantsOfType('yield').some((node) => isOwnCode(node, fn.node));
}

/** True when control can fall off the end of `node` (a statement or a block). */
function completes(node: SyntaxNode, scope: NeverReturnsScope): boolean {
  switch (node.type) {
    case 'block':
      return node.namedChildren.every((statement) => completes(statement, scope));
    case 'raise_statement':
      return false;
    case 'expression_statement': {
      const call = node.namedChildren.length === 1 && node.namedChildren[0]!.type === 'call' ? node.namedChildren[0]! : undefined;
      return !(call && callNeverReturns(call, scope));
    }
    case 'if_statement':
      return ifCompletes(node, scope);
    case 'try_statement':
      return tryCompletes(node, scope);
    default:
      // Loops, `with`, `match`, definitions, assignments...: taken to complete (see the file comment).
      return true;
  }
}

function ifCompletes(node: SyntaxNode, scope: NeverReturnsScope): boolean {
  const consequence = node.childForFieldName('consequence');
  if (!consequence || completes(consequence, scope)) return true;
  const alternatives = node.namedChildren.filter((child) => child.type === 'elif_clause' || child.type === 'else_clause');
  if (!alternatives.some((child) => child.type === 'else_clause')) return true;
  return alternatives.some((child) => {
    const block = child.type === 'elif_clause' ? child.childForFieldName('consequence') : child.childForFieldName('body');
    return !block || completes(block, scope);
  });
}

/** A `finally` that cannot complete overrides everything; else the body (and else) or any handler completing will do. */
function tryCompletes(node: SyntaxNode, scope: NeverReturnsScope): boolean {
  const blockOf = (clause: SyntaxNode | undefined): SyntaxNode | undefined => clause?.namedChildren.find((child) => child.type === 'block');
  const finallyBlock = blockOf(node.namedChildren.find((child) => child.type === 'finally_clause'));
  if (finallyBlock && !completes(finallyBlock, scope)) return false;
  const body = node.childForFieldName('body');
  const elseBlock = blockOf(node.namedChildren.find((child) => child.type === 'else_clause'));
  const bodyCompletes = !body || (completes(body, scope) && (!elseBlock || completes(elseBlock, scope)));
  const handlers = node.namedChildren.filter((child) => child.type === 'except_clause' || child.type === 'except_group_clause');
  return bodyCompletes || handlers.some((handler) => {
    const block = blockOf(handler);
    return !block || completes(block, scope);
  });
}

function callNeverReturns(call: SyntaxNode, scope: NeverReturnsScope): boolean {
  const helper = scope.resolveHelper(call, scope.fn, scope.module);
  if (helper) return helper.fn.node.id !== scope.fn.node.id && neverReturns(helper, scope.resolveHelper);
  return UNFOLLOWED_NEVER_RETURNING.test(calleeTextOf(call).replace(/\s+/g, ''));
}
