// A write that cannot be pending when an except handler of its `try` runs: it is the last thing the try body does
// on every path through it (zim 0.75's Index._db_connect):
//
//     try:
//         ...
//         self.set_property('db_version', DB_VERSION)   # def set_property: if ...: execute(DELETE) else: execute(INSERT)
//     except sqlite3.OperationalError:
//         self._db_init()                               # executescript: commits what is pending first
//
// When the handler runs, something in the try body raised. Nothing runs after the write in the body, so either the
// write itself raised (a failed statement changes nothing: SQLite undoes it) or the exception came before it and it
// never ran. Either way the handler finds nothing of it to commit.
// What qualifies: the handler is an except clause of the function's own `try`, the write's call in that try's body;
// from the call up to the try body, each statement is the last of its block and the blocks nest only in if / elif /
// else arms (no loop, `with`, `try`, match); the call is a statement of its own (or a `return` of it). A write made
// through a helper the try body calls directly qualifies when the helper's call is so placed in the try body and
// the write's call is so placed in the helper's body; and the `try` is in no loop of the function. The write is one
// statement: not `executemany` (its first rows stay pending when a later one fails). The helper is one level: it
// calls no function of the module and no other method of `self` (whose writes would come before), every statement
// call on a connection in it is such a tail, and no subclass in the repository redefines it. Anything else (a
// write followed by another statement, a loop that writes again after a first success, a helper reached through
// another helper, an overridden helper) does not.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { resolveLocalCall } from '../local-resolve.ts';
import { statementCall } from './listed-table-drop.ts';
import { contains } from './syntax-tree.ts';
import { classQualname } from '../local-resolve.ts';
import { overriddenBelow } from './reopen-rebuild.ts';

/** True when the write has not happened whenever the handler that holds `inHandler` runs (see above). */
export function failedBeforeHandler(write: Effect, inHandler: SyntaxNode, fn: PyFunction, module: PyModule): boolean {
  const fnNode = fn.node;
  let handled = false;
  for (let at = inHandler.parent; at && at.id !== fnNode.id; at = at.parent) {
    if (at.type === 'function_definition' || at.type === 'lambda' || at.type === 'class_definition') return false;
    if (at.type !== 'except_clause') continue;
    const tryStatement = at.parent?.type === 'try_statement' ? at.parent : null;
    const tryBody = tryStatement?.childForFieldName('body');
    // In a loop, an earlier round's write may have succeeded before this round's raised.
    if (tryStatement && !inLoop(tryStatement, fnNode) && tryBody && contains(tryBody, write.node) && lastIn(write.node, tryBody)) handled = true;
    break;
  }
  if (!handled) return false;
  if (!write.via) return !manyRows(write.node);
  // Through one helper, called by the try body itself.
  const located = statementCall(write, fn, module);
  const helper = resolveLocalCall(write.node, module, fn);
  if (!located || !helper || helper.qualname !== write.via.qualname || located.fn.node.id !== helper.node.id) return false;
  const body = helper.node.childForFieldName('body');
  if (body === null || !lastIn(located.call, body) || manyRows(located.call)) return false;
  if (helper.className !== undefined && overriddenBelow(module, classQualname(helper), [helper.name])) return false;
  // One level: no call of the module's functions or of self's methods; every execute-like call a tail of the body.
  return body.descendantsOfType('call').every((call) => {
    if (resolveLocalCall(call, module, helper)) return false;
    const callee = call.childForFieldName('function');
    if (callee?.type !== 'attribute') return true;
    if (callee.childForFieldName('object')?.text === 'self') return false;
    return !/^execute(?:many|script)?$/.test(callee.childForFieldName('attribute')?.text ?? '') || (lastIn(call, body) && !manyRows(call));
  });
}

/** `executemany(...)`: several statements, the first rows written when a later one fails. */
function manyRows(call: SyntaxNode): boolean {
  const callee = call.childForFieldName('function');
  return callee?.type === 'attribute' && callee.childForFieldName('attribute')?.text === 'executemany';
}

function inLoop(node: SyntaxNode, fnNode: SyntaxNode): boolean {
  for (let at = node.parent; at && at.id !== fnNode.id; at = at.parent) {
    if (at.type === 'for_statement' || at.type === 'while_statement') return true;
  }
  return false;
}

/** From the call up to `block`, each statement is the last of its block, nested only in if/elif/else arms. */
function lastIn(call: SyntaxNode, block: SyntaxNode): boolean {
  const statement = call.parent;
  if (statement?.type !== 'expression_statement' && statement?.type !== 'return_statement') return false;
  if (statement.namedChildren.length !== 1 || statement.namedChildren[0]!.id !== call.id) return false;
  let current: SyntaxNode = statement;
  for (;;) {
    const parent = current.parent;
    if (parent?.type !== 'block') return false;
    const statements = parent.namedChildren.filter((child) => child.type !== 'comment');
    if (statements[statements.length - 1]?.id !== current.id) return false;
    if (parent.id === block.id) return true;
    const arm = parent.parent;
    if (arm?.type === 'if_statement' && arm.childForFieldName('consequence')?.id === parent.id) current = arm;
    else if ((arm?.type === 'elif_clause' || arm?.type === 'else_clause') && arm.parent?.type === 'if_statement') current = arm.parent;
    else return false;
  }
}
