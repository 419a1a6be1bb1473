// A top-level function's write on its connection parameter runs inside a transaction when every
// call that can reach it (repo-callers.ts) passes, as that parameter, an object whose wrapper
// transaction encloses the call: `with backend.transaction(): ... v2.upgrade(backend)` in yoyo's
// internalmigrations/__init__.upgrade, `backend` being (through that function's only caller,
// `internalmigrations.upgrade(self)` in DatabaseBackend) an instance of a class whose
// `transaction` qualifies (wrapper-verdict.ts), on the connection the write runs on, for the
// class and every subclass. Nothing on the way may end that transaction first: no commit,
// rollback or script in the block before the call (or in a loop around it) nor in the function,
// through the object's methods or the repository functions the object is passed to; a `with` on
// the object, a call the object is passed to whose target is unknown, or a nested function or
// lambda counts as one, and so does the object's attribute taken as a value (`done = backend.commit`)
// unless only formatted into a string. Nothing may swallow the function's exception inside the
// wrapper either (an except, another manager, in the same with statement or between), else the
// wrapper commits half-done work; any finally between gives no answer (it is not followed, and may
// commit or drop the exception). The object named other than as a receiver or a call argument
// (`same = backend`) gives no answer: calls on the alias are not followed. An async function or a
// generator has no answer (its body may run after the with has ended), nor has a caller that is one
// (it may pause inside the wrapper while others end the transaction), nor a call in a lambda or a
// generator expression. Closed world: a caller outside the repository gets no transaction, and
// this quieting trusts the repository to hold every caller (a library function called by its
// users is quieted wrongly). Without the repository index there is no answer.
import type { Effect, PyFunction, PyModule, SyntaxNode } from './model.ts';
import { findEffects } from './effects.ts';
import { repoIndexOf } from './callgraph.ts';
import { decoratorTexts } from './functions.ts';
import { functionsByQualname, classQualname } from './local-resolve.ts';
import { methodOf, subclassesOf, type ClassRef } from './inherited-methods.ts';
import { connectionOfCall, type Dispatch } from './instance-connections.ts';
import { calleeTextOf, scopeFacts } from './module-facts.ts';
import { contains, ownWithItems } from './rules/syntax-tree.ts';
import { isOwnCode } from './rules/syntax.ts';
import { everyRepoCallOf, identifiersNamed, plainTopLevel, targetsOf, type RepoCallSite } from './repo-callers.ts';
import { hits } from './wrapper-verdict.ts';
import { wrapperConnections } from './wrapper-transaction.ts';

/** How many callers up the class of a passed object is traced, and how deep calls are followed for commits. */
const MAX_CALLERS = 3;
const MAX_CALLS = 4;

export function insideCallerWrapper(effect: Effect, fn: PyFunction, module: PyModule): boolean {
  // An async function or a generator runs its body when awaited or iterated, maybe after the with has ended.
  if (!repoIndexOf(module) || !plainTopLevel(fn) || runsLater(fn)) return false;
  const write = writeOnParameter(effect, fn, module);
  const sites = write && everyRepoCallOf(fn, module);
  if (!write || !sites) return false;
  return sites.every((site) => {
    const held = heldBySite(site, fn, write.param);
    return held !== undefined && held.classes.every((cls) => writeOnWrapperConnection(cls, held.wrapper, write.tail, fn, module)) && !mayEndTransactionIn(fn, module, write.param, held.classes, 0);
  });
}

/** The write's receiver as `<parameter><tail>` (`backend` + `.execute`), through one same-repository helper at most. */
function writeOnParameter(effect: Effect, fn: PyFunction, module: PyModule): { param: string; tail: string } | undefined {
  if (!effect.via) {
    const direct = splitReceiver(calleeTextOf(effect.node));
    return direct && plainParameter(fn, module, direct.root) ? { param: direct.root, tail: direct.tail } : undefined;
  }
  const index = repoIndexOf(module)!;
  const helperModule = index.modules.get(effect.via.path);
  const helper = helperModule && functionsByQualname(helperModule).get(effect.via.qualname);
  const targets = targetsOf(effect.node, module, index);
  if (!helper || !helperModule || targets?.length !== 1 || targets[0]!.fn !== helper || runsLater(helper)) return undefined;
  // The helper's own call at that line; one found through a further helper has no answer.
  const inner = findEffects(helper, helperModule).filter((each) => each.range.startLine === effect.via!.line && each.kind === effect.kind && each.call === effect.call);
  if (inner.length !== 1 || inner[0]!.via) return undefined;
  const split = splitReceiver(calleeTextOf(inner[0]!.node));
  if (!split || !plainParameter(helper, helperModule, split.root)) return undefined;
  const passed = argumentFor(effect.node, helper, split.root);
  return passed?.type === 'identifier' && plainParameter(fn, module, passed.text) ? { param: passed.text, tail: split.tail } : undefined;
}

function splitReceiver(callee: string): { root: string; tail: string } | undefined {
  const match = /^(\w+)((?:\.\w+)+)$/.exec(callee.replace(/\s+/g, ''));
  return match ? { root: match[1]!, tail: match[2]! } : undefined;
}

/** A parameter of the function that its own code never binds again. */
function plainParameter(fn: PyFunction, module: PyModule, name: string): boolean {
  return fn.params.includes(name) && !reboundIn(fn, module, name);
}

function reboundIn(fn: PyFunction, module: PyModule, name: string): boolean {
  const body = fn.node.childForFieldName('body');
  return identifiersNamed(name, module).some((use) => {
    if (!body || !contains(body, use)) return false;
    const parent = use.parent;
    if (!parent) return false;
    if (['assignment', 'augmented_assignment', 'for_statement', 'for_in_clause'].includes(parent.type) && parent.childForFieldName('left')?.id === use.id) return true;
    return ['as_pattern_target', 'global_statement', 'nonlocal_statement', 'pattern_list', 'tuple_pattern', 'named_expression', 'delete_statement', 'parameters', 'default_parameter', 'typed_parameter'].includes(parent.type);
  });
}

/** The expression a call passes for the target's parameter: by position or keyword; undefined with a splat, for a method, or when the default is used. */
function argumentFor(call: SyntaxNode, target: PyFunction, param: string): SyntaxNode | undefined {
  const at = target.params.indexOf(param);
  const args = call.childForFieldName('arguments');
  if (target.className !== undefined || at < 0 || target.params.slice(0, at).some((name) => name.startsWith('*')) || args?.type !== 'argument_list') return undefined;
  if (args.namedChildren.some((arg) => arg.type === 'list_splat' || arg.type === 'dictionary_splat')) return undefined;
  const positional = args.namedChildren.filter((arg) => arg.type !== 'keyword_argument' && arg.type !== 'comment');
  if (at < positional.length) return positional[at];
  const keyword = args.namedChildren.find((arg) => arg.type === 'keyword_argument' && arg.childForFieldName('name')?.text === param);
  return keyword?.childForFieldName('value') ?? undefined;
}

interface Held {
  /** The wrapper method: `transaction` in `with backend.transaction():`. */
  wrapper: string;
  /** The classes the passed object may be an instance of (each with its subclasses). */
  classes: ClassRef[];
}

/** The call passes an object of known class and sits in `with <object>.<wrapper>(...):` with nothing ending the transaction before it. */
function heldBySite(site: RepoCallSite, fn: PyFunction, param: string): Held | undefined {
  const { call, caller, module } = site;
  const passed = argumentFor(call, fn, param);
  // A caller that is async or a generator may pause inside the wrapper, and whoever resumes it may end the transaction meanwhile.
  if (!caller || passed?.type !== 'identifier' || runsDeferred(call, caller.node) || runsLater(caller)) return undefined;
  // Passed once only: through another parameter (`f(backend, backend.connection)`) the function could end the transaction unseen.
  const mentions = (call.childForFieldName('arguments')?.descendantsOfType('identifier') ?? []).filter((use) => use.text === passed.text);
  if (mentions.length !== 1) return undefined;
  const classes = classesOfObject(passed.text, caller, module, 0);
  if (!classes) return undefined;
  for (let at = call.parent; at && at.id !== caller.node.id; at = at.parent) {
    // An except (or another manager, which may suppress) between the wrapper and the call would let the block end
    // normally after the function failed half way, and the wrapper commit what it wrote.
    if (at.type === 'try_statement' && at.namedChildren.some((part) => part.type === 'except_clause' || part.type === 'except_group_clause')) return undefined;
    // A finally runs between the call and the wrapper's exit: a commit there, or a return, break or continue that
    // drops the pending exception, would leave the write outside the transaction. Finally clauses are not followed.
    if (at.type === 'try_statement' && at.namedChildren.some((part) => part.type === 'finally_clause')) return undefined;
    if (at.type !== 'with_statement') continue;
    const wrapper = wrapperOn(at, passed.text);
    const body = at.childForFieldName('body');
    if (wrapper === undefined || !body || !contains(body, call)) return undefined;
    return mayEndTransactionBefore(at, call, caller, module, passed.text, classes) ? undefined : { wrapper, classes };
  }
  return undefined;
}

/** `with obj.transaction():` → `transaction`; undefined when the statement holds another manager (`, contextlib.suppress(...)` may swallow the exception before the wrapper sees it). */
function wrapperOn(statement: SyntaxNode, object: string): string | undefined {
  const items = ownWithItems(statement);
  if (items.length !== 1) return undefined;
  for (const item of items) {
    let value = item.childForFieldName('value');
    if (value?.type === 'as_pattern') value = value.namedChildren[0] ?? null;
    const callee = value?.type === 'call' ? value.childForFieldName('function') : undefined;
    if (callee?.type === 'attribute' && callee.childForFieldName('object')?.text === object) return callee.childForFieldName('attribute')?.text;
  }
  return undefined;
}

/** `self` in a method (its class), or a parameter every caller passes an object of known class for. */
function classesOfObject(name: string, fn: PyFunction, module: PyModule, depth: number): ClassRef[] | undefined {
  if (name === 'self') {
    const method = fn.className !== undefined && fn.params[0] === 'self' && !decoratorTexts(fn.node).some((d) => /^(staticmethod|classmethod)$/.test(d));
    return method && !reboundIn(fn, module, 'self') ? [{ module, name: classQualname(fn) }] : undefined;
  }
  if (depth >= MAX_CALLERS || !plainParameter(fn, module, name)) return undefined;
  const sites = everyRepoCallOf(fn, module);
  if (!sites) return undefined;
  const classes: ClassRef[] = [];
  for (const site of sites) {
    const passed = argumentFor(site.call, fn, name);
    const theirs = site.caller && passed?.type === 'identifier' && !runsDeferred(site.call, site.caller.node) ? classesOfObject(passed.text, site.caller, site.module, depth + 1) : undefined;
    if (!theirs) return undefined;
    for (const cls of theirs) if (!classes.some((known) => known.module === cls.module && known.name === cls.name)) classes.push(cls);
  }
  return classes;
}

/** For the class and each subclass: the write's connection is one the wrapper holds its transaction on. */
function writeOnWrapperConnection(cls: ClassRef, wrapper: string, tail: string, fn: PyFunction, module: PyModule): boolean {
  const connections = wrapperConnections(cls, wrapper);
  if (!connections) return false;
  return [cls, ...subclassesOf(cls)].every((each) => {
    const connection = connectionOfCall(`self${tail}`, fn, module, { self: each, owner: each });
    return connection !== undefined && connections.has(connection);
  });
}

/** Something in the with block before the call (or in a loop around both, the call itself included), or a bound method or nested code on the object anywhere in the caller, may end the transaction. */
function mayEndTransactionBefore(statement: SyntaxNode, call: SyntaxNode, caller: PyFunction, module: PyModule, object: string, classes: ClassRef[]): boolean {
  const body = statement.childForFieldName('body');
  if (!body) return true;
  const before = (node: SyntaxNode): boolean => contains(body, node) && (node.endIndex <= call.startIndex || inOneLoop(node, call, body));
  if (findEffects(caller, module).some((effect) => ends(effect) && before(effect.node))) return true;
  // A bound method or nested code made anywhere in the caller (before the with too) may be called in the block.
  const callerBody = caller.node.childForFieldName('body') ?? caller.node;
  if (hasNestedCode(callerBody, object) || valueReadsOf(callerBody, object).length > 0 || aliasedIn(callerBody, object)) return true;
  return scopeFacts(module, caller.node).calls.some(({ node }) => before(node) && mayEndTransactionAt(node, object, caller, module, classes, 0));
}

/** Anything in the function may end the transaction on its object parameter. */
function mayEndTransactionIn(fn: PyFunction, module: PyModule, param: string, classes: ClassRef[], depth: number): boolean {
  if (depth > MAX_CALLS || reboundIn(fn, module, param)) return true;
  const body = fn.node.childForFieldName('body') ?? fn.node;
  if (findEffects(fn, module).some(ends) || hasNestedCode(body, param) || valueReadsOf(body, param).length > 0 || aliasedIn(body, param)) return true;
  return scopeFacts(module, fn.node).calls.some(({ node }) => mayEndTransactionAt(node, param, fn, module, classes, depth));
}

/**
 * The call may end the transaction: a method of the object (for any of the classes or their subclasses)
 * that commits, rolls back or runs a script; a manager on the object in a `with`; a method of an attribute
 * of it; or a function the object is passed to that may, or whose target is unknown.
 */
function mayEndTransactionAt(call: SyntaxNode, object: string, fn: PyFunction, module: PyModule, classes: ClassRef[], depth: number): boolean {
  const callee = calleeTextOf(call).replace(/\s+/g, '');
  if (callee.startsWith(`${object}.`)) {
    const method = /^\w+\.(\w+)$/.exec(callee)?.[1];
    if (method === undefined || call.parent?.type === 'with_item' || call.parent?.type === 'as_pattern') return true;
    return classes.some((cls) =>
      [cls, ...subclassesOf(cls)].some((each) => {
        const target = methodOf(each, method);
        const dispatch: Dispatch = { self: each, owner: each };
        return !target || hits(target.fn, target.module, dispatch, ends).length > 0;
      }),
    );
  }
  const args = call.childForFieldName('arguments')?.namedChildren ?? [];
  const valueOf = (arg: SyntaxNode): SyntaxNode | null => (arg.type === 'keyword_argument' ? arg.childForFieldName('value') : arg);
  // An argument naming the object only as `object.attr` passes what the attribute holds (a method called there is a call of its own).
  const passes = args.some((arg) => valueOf(arg)?.text === object || escapesIn(arg, object));
  if (!passes) return false;
  // `"... {0.log_table_quoted}".format(backend)`: str.format reads attributes, it runs no SQL of the object.
  const receiver = call.childForFieldName('function')?.childForFieldName('object');
  if ((receiver?.type === 'string' || receiver?.type === 'concatenated_string') && callee.endsWith('.format') && args.every((arg) => valueOf(arg)?.text === object || !escapesIn(arg, object))) return false;
  if (args.some((arg) => valueOf(arg)?.text !== object && escapesIn(arg, object))) return true;
  const index = repoIndexOf(module)!;
  const targets = targetsOf(call, module, index);
  if (!targets || targets.length === 0) return true;
  return targets.some((target) => {
    const passed = args.find((arg) => valueOf(arg)?.text === object);
    const param = passed && parameterReceiving(call, target.fn, passed);
    return param === undefined || mayEndTransactionIn(target.fn, target.module, param, classes, depth + 1);
  });
}

/** The target's parameter an argument of the call lands in (undefined with splats, for methods, or when unsure). */
function parameterReceiving(call: SyntaxNode, target: PyFunction, argument: SyntaxNode): string | undefined {
  if (argument.type === 'keyword_argument') {
    const name = argument.childForFieldName('name')?.text;
    return name !== undefined && target.params.includes(name) ? name : undefined;
  }
  const named = target.params.find((param) => argumentFor(call, target, param)?.id === argument.id);
  return named;
}

/** The object named in the argument other than as the receiver of an attribute (`[backend]`, `f(backend)`, `x or backend`). */
function escapesIn(arg: SyntaxNode, object: string): boolean {
  const uses = arg.type === 'identifier' ? [arg] : arg.descendantsOfType('identifier');
  return uses.some((use) => use.text === object && !(use.parent?.type === 'attribute' && use.parent.childForFieldName('object')?.id === use.id));
}

/**
 * `object.<attr>` read as a value, not called (`done = backend.commit; done()`): a bound method so taken may
 * end the transaction where no call on the object shows it. Read only to be formatted into a string
 * (`"... {}".format(backend.table)`, an f-string) it is never called, so it does not count.
 */
function valueReadsOf(region: SyntaxNode, object: string): SyntaxNode[] {
  return region.descendantsOfType('attribute').filter((read) => {
    if (read.childForFieldName('object')?.type !== 'identifier' || read.childForFieldName('object')?.text !== object) return false;
    let top = read;
    while (top.parent?.type === 'attribute' && top.parent.childForFieldName('object')?.id === top.id) top = top.parent;
    if (top.parent?.type === 'call' && top.parent.childForFieldName('function')?.id === top.id) return false;
    // An assignment to the attribute stores, it reads nothing.
    if (top.id === read.id && top.parent?.type === 'assignment' && top.parent.childForFieldName('left')?.id === top.id) return false;
    return !formattedOnly(top);
  });
}

function formattedOnly(value: SyntaxNode): boolean {
  if (value.parent?.type === 'interpolation') return true;
  const list = value.parent?.type === 'keyword_argument' && value.parent.childForFieldName('value')?.id === value.id ? value.parent.parent : value.parent;
  const call = list?.type === 'argument_list' ? list.parent : undefined;
  const callee = call?.type === 'call' ? call.childForFieldName('function') : undefined;
  const receiver = callee?.type === 'attribute' && callee.childForFieldName('attribute')?.text === 'format' ? callee.childForFieldName('object') : undefined;
  return receiver?.type === 'string' || receiver?.type === 'concatenated_string';
}

/** Async, or a generator: its own `yield` (a nested function's is its own). */
function runsLater(fn: PyFunction): boolean {
  if (fn.isAsync) return true;
  const body = fn.node.childForFieldName('body');
  return (body?.descendantsOfType('yield') ?? []).some((node) => isOwnCode(node, fn.node));
}

const ends = (effect: Effect): boolean => effect.kind === 'db-commit' || effect.kind === 'db-rollback' || effect.kind === 'db-script';

/** A nested def, class or lambda naming the object: it may run later, anywhere, and is not followed. */
function hasNestedCode(region: SyntaxNode, object: string): boolean {
  return region.descendantsOfType(['function_definition', 'lambda', 'class_definition']).some((nested) => new RegExp(`(?<![\\w])${object}(?![\\w])`).test(nested.text));
}

function inOneLoop(node: SyntaxNode, call: SyntaxNode, region: SyntaxNode): boolean {
  for (let at = node.parent; at && at.id !== region.id; at = at.parent) {
    if ((at.type === 'for_statement' || at.type === 'while_statement') && contains(at, call)) return true;
  }
  return false;
}

/** In a lambda or a generator expression: it runs when called or iterated, maybe after the with has ended (a list, set or dict comprehension runs at once). */
function runsDeferred(node: SyntaxNode, fnNode: SyntaxNode): boolean {
  for (let at = node.parent; at && at.id !== fnNode.id; at = at.parent) if (at.type === 'lambda' || at.type === 'generator_expression') return true;
  return false;
}

/**
 * The object's name used other than as an attribute's receiver or a call's direct argument (`same = backend`,
 * `[backend]`, `return backend`, `(same := backend)`): another name for the object, whose calls
 * (`same.checkpoint()`) are not followed, may end the transaction.
 */
function aliasedIn(region: SyntaxNode, object: string): boolean {
  return region.descendantsOfType('identifier').some((use) => {
    if (use.text !== object) return false;
    const parent = use.parent;
    if (!parent) return true;
    if (parent.type === 'attribute' && parent.childForFieldName('object')?.id === use.id) return false;
    if (parent.type === 'argument_list') return false;
    if (parent.type === 'keyword_argument') return parent.childForFieldName('value')?.id === use.id ? parent.parent?.type !== 'argument_list' : false;
    return true;
  });
}
