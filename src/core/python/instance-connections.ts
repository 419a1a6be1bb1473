// Calls of a transaction wrapper followed to what they run (`self.m()`, `super().m()`, a manager's
// `self.<attr>.m()`), and the connection a call runs on, traced to an attribute of the instance
// whose wrapper it is (`self._connection`, through a @property or a method such as `self.execute`).
import type { PyFunction, PyModule, SyntaxNode } from './model.ts';
import { directEffects } from './effects.ts';
import { classQualname } from './local-resolve.ts';
import { decoratorTexts } from './functions.ts';
import { isOwnCode } from './rules/syntax.ts';
import { classNamed, methodAbove, methodOf, type ClassRef, type Located } from './inherited-methods.ts';

/** How far a receiver is traced to the instance attribute it stands for. */
const MAX_TRACE = 16;

/** Where calls are looked up, and how `self` relates to the instance whose wrapper it is. */
export interface Dispatch {
  /** Where `self.m()` is looked up. */
  self: ClassRef;
  /** The class of the instance whose wrapper it is: its attributes name the connections. */
  owner: ClassRef;
  /** In a manager, the attributes of `self` that hold that instance; undefined when `self` is it. */
  ownerAttrs?: ReadonlySet<string>;
}

export const ownDispatch = (fn: PyFunction, module: PyModule): Dispatch => {
  const cls = { module, name: fn.className === undefined ? '' : classQualname(fn) };
  return { self: cls, owner: cls };
};


/**
 * True when the node runs whenever the function does: not under an if/elif/else arm, a loop body, an except,
 * try-else or match arm, a conditional expression or the right of and/or, and after no `return`.
 */
export function runsAlways(node: SyntaxNode, fn: PyFunction): boolean {
  for (let child = node, at = node.parent; at && at.id !== fn.node.id; child = at, at = at.parent) {
    switch (at.type) {
      case 'if_statement':
      case 'while_statement':
        if (child.id !== at.childForFieldName('condition')?.id) return false;
        break;
      case 'for_statement':
        if (child.id !== at.childForFieldName('right')?.id) return false;
        break;
      case 'try_statement':
        if (child.id !== at.childForFieldName('body')?.id && child.type !== 'finally_clause') return false;
        break;
      case 'boolean_operator':
        if (child.id !== at.childForFieldName('left')?.id) return false;
        break;
      case 'conditional_expression':
      case 'match_statement':
      case 'list_comprehension':
      case 'set_comprehension':
      case 'dictionary_comprehension':
      case 'generator_expression':
      case 'lambda':
        return false;
    }
  }
  return !ownNodes(fn, 'return_statement').some((statement) => statement.endIndex <= node.startIndex);
}

/** The method a `self.m()`, `super().m()` or a manager's `self.<attr>.m()` call in `fn` runs, with the dispatch inside it. */
export function calledMethod(callee: string, fn: PyFunction, module: PyModule, dispatch: Dispatch): { fn: PyFunction; module: PyModule; dispatch: Dispatch } | undefined {
  const viaSuper = /^super\s*\(\s*(?:(\w+)\s*,\s*self\s*)?\)\s*\.\s*(\w+)$/.exec(callee);
  if (viaSuper) {
    const [, named, name = ''] = viaSuper;
    const target = superMethod(named, name, fn, module);
    return target && { ...target, dispatch };
  }
  const match = /^self\s*\.\s*(?:(\w+)\s*\.\s*)?(\w+)$/.exec(callee);
  if (!match) return undefined;
  const [, attribute, name = ''] = match;
  if (attribute === undefined) {
    const target = methodOf(dispatch.self, name);
    return target && { ...target, dispatch };
  }
  if (!dispatch.ownerAttrs?.has(attribute)) return undefined;
  const target = methodOf(dispatch.owner, name);
  return target && { ...target, dispatch: { self: dispatch.owner, owner: dispatch.owner } };
}

function superMethod(named: string | undefined, name: string, fn: PyFunction, module: PyModule): Located | undefined {
  const above = named !== undefined ? classNamed(module, named) : fn.className === undefined ? undefined : { module, name: classQualname(fn) };
  return above && methodAbove(above, name);
}

/** The receiver is the instance itself (`self.execute(...)` on the backend): its method decides. */
const INSTANCE = '<instance>';

/**
 * The connection a call such as `self._connection.execute` or `cursor.execute` runs on, as an attribute of the
 * instance (`attr:_connection`); for `self.execute(...)` the one that method runs its SQL on. Undefined when
 * the receiver cannot be traced to one.
 */
export function connectionOfCall(callText: string, fn: PyFunction, module: PyModule, dispatch: Dispatch, depth = 0): string | undefined {
  const text = callText.replace(/\s+/g, '');
  const dot = text.lastIndexOf('.');
  if (dot < 0 || depth > MAX_TRACE) return undefined;
  const receiver = text.slice(0, dot);
  const method = text.slice(dot + 1);
  const viaSuper = /^super\((?:(\w+),self)?\)$/.exec(receiver);
  if (viaSuper) {
    const target = superMethod(viaSuper[1], method, fn, module);
    return target && forwardedConnection(target, dispatch.owner, depth + 1);
  }
  const value = valueOf(receiver, fn, module, dispatch, depth + 1);
  if (value !== INSTANCE) return value;
  const target = methodOf(dispatch.owner, method);
  return target && forwardedConnection(target, dispatch.owner, depth + 1);
}

/** The one connection every database call of the instance's method runs on. */
function forwardedConnection(target: Located, owner: ClassRef, depth: number): string | undefined {
  const dispatch: Dispatch = { self: owner, owner };
  const calls = directEffects(target.fn, target.module).filter((effect) => effect.kind.startsWith('db-'));
  const connections = calls.map((effect) => connectionOfCall(effect.call, target.fn, target.module, dispatch, depth + 1));
  const [first] = connections;
  return first !== undefined && connections.every((connection) => connection === first) ? first : undefined;
}

/** What a receiver expression stands for: an instance attribute (`attr:name`), the instance itself, or unknown. */
function valueOf(expression: string, fn: PyFunction, module: PyModule, dispatch: Dispatch, depth: number): string | undefined {
  if (depth > MAX_TRACE) return undefined;
  const text = expression.replace(/\s+/g, '');
  // A cursor runs on the connection it came from (the instance's own `self.cursor()` is its method's business).
  const cursorOf = /^(.+)\.cursor\(\)$/.exec(text);
  const source = cursorOf ? valueOf(cursorOf[1]!, fn, module, dispatch, depth + 1) : undefined;
  if (cursorOf && source !== INSTANCE) return source;
  const relative = onInstance(text, dispatch);
  if (relative === undefined) {
    const assigned = /^\w+$/.test(text) && !fn.params.includes(text) ? onlyAssignment(fn, text) : undefined;
    return assigned && valueOf(assigned.text, fn, module, dispatch, depth + 1);
  }
  if (relative === '') return INSTANCE;
  const called = /^(\w+)\(\)$/.exec(relative)?.[1];
  const name = called ?? (/^\w+$/.test(relative) ? relative : undefined);
  if (name === undefined) return /^[\w.]+$/.test(relative) ? `attr:${relative}` : undefined;
  const target = methodOf(dispatch.owner, name);
  // `self.connection` through a @property, `self.cursor()` through a method: what they return.
  if (target && (called !== undefined) !== isDecoratedWith(target.fn, 'property')) return returnedValue(target, dispatch.owner, depth + 1);
  return called === undefined && !target ? `attr:${name}` : undefined;
}

/** The expression relative to the instance ('' for the instance), or undefined when it does not start from it. */
function onInstance(text: string, dispatch: Dispatch): string | undefined {
  if (!dispatch.ownerAttrs) return text === 'self' ? '' : text.startsWith('self.') ? text.slice(5) : undefined;
  const held = /^self\.(\w+)(?:\.(.+))?$/.exec(text);
  return held && dispatch.ownerAttrs.has(held[1]!) ? (held[2] ?? '') : undefined;
}

function returnedValue(target: Located, owner: ClassRef, depth: number): string | undefined {
  const dispatch: Dispatch = { self: owner, owner };
  const values = ownNodes(target.fn, 'return_statement').map((statement) => statement.namedChildren[0]);
  const traced = values.map((value) => value && valueOf(value.text, target.fn, target.module, dispatch, depth + 1));
  const [first] = traced;
  return first !== undefined && traced.every((value) => value === first) ? first : undefined;
}

/** The right side of the function's only assignment to the name. */
function onlyAssignment(fn: PyFunction, name: string): SyntaxNode | undefined {
  const assignments = ownNodes(fn, 'assignment').filter((assignment) => assignment.childForFieldName('left')?.text === name);
  return assignments.length === 1 ? (assignments[0]!.childForFieldName('right') ?? undefined) : undefined;
}

/** Nodes of that type in the function's own code, in source order. */
export function ownNodes(fn: PyFunction, type: string): SyntaxNode[] {
  return fn.node.descendantsOfType(type).filter((node) => isOwnCode(node, fn.node));
}

export function isDecoratedWith(fn: PyFunction, name: string): boolean {
  const pattern = new RegExp(`(^|\\.)${name}$`);
  return decoratorTexts(fn.node).some((decorator) => pattern.test(decorator));
}
