// Whether a commit or write goes through a connection that the module itself opened in sqlite3's default
// mode and can never switch to autocommit: `sqlite3.connect(path)` with no `isolation_level` or
// `autocommit`, in a module that assigns neither attribute anywhere (buku: `self.conn, self.cur =
// BukuDb.initdb(...)`, whose `conn = sqlite3.connect(dbfile, check_same_thread=False)`). There the
// implicit transaction holds the writes together up to the commit, so the autocommit harm that
// commit-without-begin and writes-rely-on-implicit-transaction describe cannot happen. Anything not
// traced to such a connect call (a parameter, another module, a global, a value the reader cannot
// follow) is not provable, and the rules keep speaking.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import type { RuleContext } from './rule.ts';
import { callParts, type CallParts } from '../body-walk.ts';
import { directEffects } from '../effects.ts';
import { classQualname, functionsByQualname, resolveLocalCall } from '../local-resolve.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { localTupleSource } from '../tuple-binding.ts';
import { moduleFacts } from '../module-facts.ts';
import { memoizePer } from '../memo.ts';
import { driverOf } from './facts.ts';
import { isOwnCode, unparenthesized } from './syntax.ts';

/** A guard against cycles (a function returning its own call): how many steps a connection is followed through; buku needs 7. */
const MAX_DEPTH = 12;

/** True when the database call `effect` (a commit, a write) runs on a connection or cursor the module opened in the default mode. */
export function onOwnDefaultModeConnection(context: Pick<RuleContext, 'module' | 'fn'>, effect: Effect): boolean {
  const { module, fn } = context;
  if (driverOf(module, fn).kind !== 'sqlite3' || mayChangeMode(module)) return false;
  const site = effectSite(effect, fn, module);
  const receiver = site ? callParts(site.node).receiver : undefined;
  return site !== undefined && receiver !== undefined && ownDefaultConnection(receiver, site.fn, module, 0);
}

/** Where the call is written: here, or in a helper of this module (its `via`). */
function effectSite(effect: Effect, fn: PyFunction, module: PyModule): { node: SyntaxNode; fn: PyFunction } | undefined {
  const via = effect.via;
  if (!via) return { node: effect.node, fn };
  if (via.path !== module.path) return undefined;
  const helper = functionsByQualname(module).get(via.qualname);
  const own = helper && directEffects(helper, module).find((candidate) => candidate.kind === effect.kind && candidate.range.startLine === via.line);
  return helper && own ? { node: own.node, fn: helper } : undefined;
}

/**
 * Anywhere in the module: an assignment to `.isolation_level` or `.autocommit` (of any object: sqlitedict's
 * `self.autocommit = autocommit` feeds its connection's mode), `setattr` of either, or a connect call passing either.
 */
const mayChangeMode = memoizePer((module: PyModule): boolean => {
  if (/setattr\s*\([^)]*['"](isolation_level|autocommit)['"]/.test(module.source)) return true;
  for (const scope of moduleFacts(module).scopes.values()) {
    if (scope.modeAssignments.length > 0) return true;
    for (const { node, callee } of [...scope.calls, ...scope.lambdaCalls]) {
      if (!/connect$/.test(callee)) continue;
      if (!connectKeepsDefault(callParts(node))) return true;
    }
  }
  return false;
});

/**
 * Neither `isolation_level` nor `autocommit` passed: not by keyword, not fourth positionally
 * (`connect(database, timeout, detect_types, isolation_level, ...)`), not through `*args`/`**kwargs`.
 */
function connectKeepsDefault(parts: CallParts): boolean {
  if (parts.keywords.has('isolation_level') || parts.keywords.has('autocommit')) return false;
  if (parts.positional.some((argument) => argument.type === 'list_splat' || argument.type === 'dictionary_splat')) return false;
  return parts.positional.length <= 3;
}

function ownDefaultConnection(expression: SyntaxNode, fn: PyFunction, module: PyModule, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  if (expression.type === 'identifier') {
    // A parameter is a connection from a caller, whatever it is reassigned to later.
    if (fn.params.includes(expression.text)) return false;
    // Partial: the last assignment before the use is read, not every branch's.
    const assigned = localAssignmentBefore(expression);
    if (assigned) return fromValue(assigned, undefined, fn, module, depth + 1);
    const unpacked = localTupleSource(expression);
    return unpacked !== undefined && fromValue(unpacked.value, unpacked.position, fn, module, depth + 1);
  }
  if (expression.type === 'attribute') {
    const object = expression.childForFieldName('object');
    const attribute = expression.childForFieldName('attribute')?.text;
    if (!object || !attribute) return false;
    const owner = ownerClass(object, fn, module);
    return owner !== undefined && classAttributeOwnDefault(owner, attribute, module, depth + 1);
  }
  if (expression.type === 'call' || expression.type === 'parenthesized_expression') return fromValue(expression, undefined, fn, module, depth + 1);
  return false;
}

/** A value bound to a connection name; `position` when it is unpacked from a tuple (`conn, cur = initdb()`). */
function fromValue(value: SyntaxNode, position: number | undefined, fn: PyFunction, module: PyModule, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  value = unparenthesized(value);
  if (position !== undefined && (value.type === 'tuple' || value.type === 'expression_list')) {
    const element = value.namedChildren.filter((child) => child.type !== 'comment')[position];
    return element !== undefined && fromValue(element, undefined, fn, module, depth + 1);
  }
  if (value.type === 'identifier' || value.type === 'attribute') return position === undefined && ownDefaultConnection(value, fn, module, depth + 1);
  if (value.type !== 'call') return false;
  const parts = callParts(value);
  if (parts.callee === 'sqlite3.connect') return position === undefined && connectKeepsDefault(parts);
  // A cursor works in its connection's mode.
  if (parts.method === 'cursor' && parts.receiver && position === undefined) return ownDefaultConnection(parts.receiver, fn, module, depth + 1);
  const callee = resolveLocalCall(value, module, fn);
  return callee !== undefined && returnsOwnDefault(callee, position, module, depth + 1);
}

/** Every `return` of the function gives such a connection (or, with `position`, a tuple holding one there). */
function returnsOwnDefault(fn: PyFunction, position: number | undefined, module: PyModule, depth: number): boolean {
  const returns = fn.node.descendantsOfType('return_statement').filter((statement) => isOwnCode(statement, fn.node));
  if (returns.length === 0) return false;
  return returns.every((statement) => {
    const value = statement.namedChildren[0];
    return value !== undefined && fromValue(value, position, fn, module, depth);
  });
}

/** The class whose instance `object` is: `self`/`cls` in a method, or a local built as `Class(...)` of this module. */
function ownerClass(object: SyntaxNode, fn: PyFunction, module: PyModule): string | undefined {
  if ((object.text === 'self' || object.text === 'cls') && fn.className !== undefined) return classQualname(fn);
  if (object.type !== 'identifier' || fn.params.includes(object.text)) return undefined;
  const built = localAssignmentBefore(object);
  if (built?.type !== 'call') return undefined;
  const name = callParts(built).callee;
  return classMethods(module).has(name) ? name : undefined;
}

/** Class qualname → its methods. */
const classMethods = memoizePer((module: PyModule): Map<string, PyFunction[]> => {
  const classes = new Map<string, PyFunction[]>();
  for (const fn of functionsByQualname(module).values()) {
    if (fn.className === undefined) continue;
    const owner = classQualname(fn);
    classes.set(owner, [...(classes.get(owner) ?? []), fn]);
  }
  return classes;
});

/**
 * Every assignment to `.attribute` anywhere in the module is `self.attribute = ...` in a method of the
 * class, and each gives such a connection; at least one does. An instance attribute set from outside
 * (`store.conn = other`) could be any connection.
 */
function classAttributeOwnDefault(owner: string, attribute: string, module: PyModule, depth: number): boolean {
  const methods = classMethods(module).get(owner) ?? [];
  const assignments = attributeAssignments(module).get(attribute) ?? [];
  if (assignments.length === 0) return false;
  return assignments.every(({ target, value, position }) => {
    const method = methods.find((candidate) => isOwnCode(target, candidate.node));
    return method !== undefined && target.text === `self.${attribute}` && fromValue(value, position, method, module, depth);
  });
}

interface AttributeAssignment {
  target: SyntaxNode;
  value: SyntaxNode;
  position?: number;
}

/** Attribute name → every assignment to it in the module, with the target's place in an unpacking. */
const attributeAssignments = memoizePer((module: PyModule): Map<string, AttributeAssignment[]> => {
  const found = new Map<string, AttributeAssignment[]>();
  for (const assignment of module.tree.rootNode.descendantsOfType(['assignment', 'augmented_assignment'])) {
    const left = assignment.childForFieldName('left');
    const value = assignment.childForFieldName('right');
    if (!left || !value) continue;
    const targets = left.type === 'pattern_list' || left.type === 'tuple_pattern' ? left.namedChildren : [left];
    targets.forEach((target, index) => {
      if (target.type !== 'attribute') return;
      const name = target.childForFieldName('attribute')?.text ?? '';
      const entry: AttributeAssignment = { target, value };
      if (targets.length > 1 || target !== left) entry.position = index;
      found.set(name, [...(found.get(name) ?? []), entry]);
    });
  }
  return found;
});
