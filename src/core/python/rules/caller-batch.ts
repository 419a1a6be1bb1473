// A commit that runs in a helper only outside a caller's batch (hamster's `execute`: `if not self.__con:
// con.commit()`, set by `start_transaction` and cleared by `end_transaction`; khal's `sql_ex`: `if not
// self._at_once: self.conn.commit()`, set by the `at_once()` context manager), in a function that every
// repository call path reaches only inside such a batch, commits nothing there: the function's writes stay in
// the batch's one implicit transaction on a default-mode connection, and a crash (the process dying) inside the
// batch leaves none of them. Then "commit() in a loop makes each iteration its own transaction" and "commit()
// ends a transaction this function never began" are both not so.
//
// What is proven, each part conservatively:
// - the helper's commit is the consequence of `if not self.F:`; the helper never assigns `self.F`;
// - the class family is exact (the class, its subclasses, their bases, resolved through imports; any base not
//   resolved gives no answer), and every assignment to an attribute named F in the repository is `self.F = ...`
//   in one of its methods, none of which uses setattr/__dict__/vars: an opener (a truthy value, `True` or a
//   connection it then calls `.cursor()` on, as an unconditional top-level statement, undecorated), `__init__`, or
//   anything else, which makes the method a clearer;
// - an opener is a plain method (`start(); ...; end()`) or a `@contextmanager` whose commits are neither in an
//   `except` nor in a `finally` clause and whose handlers re-raise: an exception leaving the batch is not
//   committed by its own closer;
// - every repository call of the function (by name, in every module; a local bound to the bound method counts
//   by its calls; any other use of the name, or a string spelled like it, gives no answer) is in a caller that
//   opens the batch on the same object before it (a statement `R.open()` earlier in an enclosing block, or a
//   `with R.open():` around it) with no call between that may clear the flag (a clearer, or a function calling
//   one: on `self` or the batch object resolved in the family, on a builtin literal value not at all, otherwise
//   every repository function so named), and no `try` of that caller around the call whose handler or `finally`
//   may commit or whose handler swallows the exception; or in a caller itself reached only so (a few callers up;
//   the object is `self` or a `self.attr` assigned only in `__init__`);
// - the function itself calls nothing that may clear the flag; the commit's connection is proven default-mode
//   (default-mode-connection.ts), and the helper's database calls are on that connection or a cursor of it, as
//   are those of every other family method a write in question runs in (or that write is proven default-mode).
// - (rev-B) no family class overrides the helper, an opener or a closer; no computed getattr in a module that is or
//   names a family class; a handler re-raises only when every path through it ends in `raise`; a @contextmanager
//   opener's except/finally call nothing but a rollback of the batch connection; the whole batch region (before and
//   after the call, to the closer) reaches no clearer, opener or closer, and holds no other `with` around the call;
//   no function on the path is decorated, a generator or async; a `self.attr` batch object is assigned (only) in
//   `__init__` and no function or class-level binding anywhere is so named; `__init__` assigning F is a clearer; a
//   private flag is assigned only in the helper's own class; a private target is never spelled mangled; no call on
//   the path sits in a lambda.
// Out of the claim (the rules' own fix, one commit after the loop with no rollback, behaves alike): an exception
// swallowed inside the batch below the opening caller, or one that leaves a plain batch's flag set so that a
// later closer commits what was pending; these are soft failures, and the rules' claim is about the process dying.
// Partial: the object's identity is textual (`self`, `self.attr`); the repository is taken as closed (a caller
// outside it, or an instance handed to code that assigns its attributes under another name, is not seen).
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import type { RuleContext } from './rule.ts';
import { repoIndexOf, type RepoIndex } from '../callgraph.ts';
import { callParts } from '../body-walk.ts';
import { decoratorTexts, enclosingFunctionNode, listFunctions, listedFunction } from '../functions.ts';
import { directEffects } from '../effects.ts';
import { memoizePer } from '../memo.ts';
import { identifiersNamed } from '../repo-callers.ts';
import { last } from './class-family.ts';
import { classesOf, classNamed, subclassesOf, type ClassRef } from '../inherited-methods.ts';
import { functionsByQualname } from '../local-resolve.ts';
import { onOwnDefaultModeConnection } from './default-mode-connection.ts';
import { getattrComputed } from './name-references.ts';
import { compactText, unparenthesized } from './syntax.ts';

/** How many callers up a path is followed. */
const MAX_HOPS = 4;

interface Placed {
  fn: PyFunction;
  module: PyModule;
}

/** The classes `self` of a method of the class can be, and whose methods it runs: the class, its subclasses, their bases. */
interface Family {
  keys: Set<string>;
  refs: ClassRef[];
}

const classKey = (path: string, name: string): string => `${path}\0${name}`;

/**
 * Exactly, through the repository's imports (inherited-methods.ts); undefined when a base cannot be resolved (it may
 * come from outside and define anything), or when some class names a member as a base by a name that does not resolve.
 */
function exactFamily(module: PyModule, className: string, index: RepoIndex): Family | undefined {
  const root = classNamed(module, className);
  if (!root) return undefined;
  const refs = new Map<string, ClassRef>();
  for (const pending = [root, ...subclassesOf(root)]; pending.length > 0; ) {
    const cls = pending.pop()!;
    const key = classKey(cls.module.path, cls.name);
    if (refs.has(key)) continue;
    refs.set(key, cls);
    for (const base of classesOf(cls.module).get(cls.name) ?? []) {
      if (base.text === 'object') continue;
      const resolved = classNamed(cls.module, base.text);
      if (!resolved) return undefined;
      pending.push(resolved);
    }
  }
  const names = new Set([...refs.values()].map((cls) => cls.name));
  for (const each of index.modules.values()) {
    for (const bases of classesOf(each).values()) {
      if (bases.some((base) => names.has(last(base.text)) && !classNamed(each, base.text))) return undefined;
    }
  }
  return { keys: new Set(refs.keys()), refs: [...refs.values()] };
}

function inFamily(placed: Placed, family: Family): boolean {
  return placed.fn.className !== undefined && family.keys.has(classKey(placed.module.path, placed.fn.className));
}

function familyMethodsOf(family: Family, method: string): Placed[] {
  return family.refs.flatMap((cls) => {
    const fn = functionsByQualname(cls.module).get(`${cls.name}.${method}`);
    return fn ? [{ fn, module: cls.module }] : [];
  });
}

/** The module is a family class's own, or names one (`Db`, `backend.Db`) resolving to it. */
function namesFamilyClass(module: PyModule, family: Family): boolean {
  return family.refs.some((cls) => {
    if (module.path === cls.module.path) return true;
    for (const spelled of module.source.matchAll(new RegExp(`[\\w.]*\\b${escape(cls.name)}\\b`, 'g'))) {
      const resolved = classNamed(module, spelled[0]);
      if (resolved && resolved.module.path === cls.module.path && resolved.name === cls.name) return true;
    }
    return false;
  });
}

interface FlagRoles {
  flag: string;
  plainOpeners: Set<string>;
  withOpeners: Set<string>;
  /** The methods that assign the flag other than as a plain opener (a context manager opener clears it at its end). */
  clearers: Set<PyFunction>;
  /** The plain openers' functions: a call reaching one inside the batch re-opens (and may later close) it. */
  openerFns: Set<PyFunction>;
  /** The commit's connections as the helper's `self` attributes (`self.conn`). */
  connections: Set<string>;
  family: Family;
  index: RepoIndex;
  /** Whether a function may clear the flag, as found. */
  memo: Map<PyFunction, boolean>;
}

/** The commit, in a helper called on `self`, runs only outside a batch every path into the function is inside. */
export function commitSkippedInCallerBatch(context: Pick<RuleContext, 'module' | 'fn'>, commit: Effect, writes: readonly Effect[]): boolean {
  const index = repoIndexOf(context.module);
  if (!index?.complete || index.modules.size !== index.summaries.size) return false;
  if (!commit.via || !commit.viaNode || callParts(commit.node).receiver?.text !== 'self' || context.fn.className === undefined) return false;
  const helperModule = index.modules.get(commit.via.path);
  const helperNode = enclosingFunctionNode(commit.viaNode);
  const helper = helperModule && helperNode && listedFunction(helperNode, helperModule);
  if (!helper || !helperModule || helper.className === undefined || helper.qualname !== commit.via.qualname) return false;
  const flag = guardFlag(commit.viaNode, helper.node);
  if (flag === undefined || assignsAttribute(helper.node, flag)) return false;
  const family = exactFamily(helperModule, helper.className, index);
  if (!family || !inFamily({ fn: context.fn, module: context.module }, family)) return false;
  // `getattr(obj, 'update_' + kind)` where obj may be of the family: any of its methods may be reached there, inside a
  // batch or not (partial: a module that never names a family class, handed an instance, is not seen).
  if ([...index.modules.values()].some((module) => getattrComputed(module) && namesFamilyClass(module, family))) return false;
  const connections = commitConnections(helper, commit.viaNode);
  if (!connections) return false;
  const roles = flagRoles(flag, family, index, helper.className, connections);
  if (!roles || roles.plainOpeners.size + roles.withOpeners.size === 0) return false;
  // A subclass overriding the helper, an opener or a closer may commit, or not open, whatever the base does.
  const roleNames = [helper.name, ...roles.plainOpeners, ...roles.withOpeners, ...[...roles.clearers].map((fn) => fn.name)].filter((name) => name !== '__init__');
  if (roleNames.some((name) => familyMethodsOf(family, name).length > 1)) return false;
  if (!onOwnDefaultModeConnection(context, commit) || !callsOnConnection(helper, connections, family, index)) return false;
  if (!writes.every((write) => onOwnDefaultModeConnection(context, write) || throughHelper(write, helper, helperModule, connections, family, index))) return false;
  return everyPathInBatch({ fn: context.fn, module: context.module }, 'self', roles, index, 0, new Set());
}

/** `if not self.F:` whose consequence holds the commit; F, or undefined. */
function guardFlag(commitNode: SyntaxNode, helperNode: SyntaxNode): string | undefined {
  for (let child: SyntaxNode = commitNode, at = commitNode.parent; at && at.id !== helperNode.id; child = at, at = at.parent) {
    if (at.type !== 'if_statement' || at.childForFieldName('consequence')?.id !== child.id) continue;
    const condition = unparenthesized(at.childForFieldName('condition')!);
    if (condition.type !== 'not_operator') continue;
    const operand = condition.childForFieldName('argument');
    if (operand?.type === 'attribute' && operand.childForFieldName('object')?.text === 'self') return operand.childForFieldName('attribute')?.text;
  }
  return undefined;
}

/** Assignment targets (plain, augmented, tuple parts) in the node that are an attribute named `name`. */
function attributeTargets(node: SyntaxNode, name: string): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  for (const assignment of node.descendantsOfType(['assignment', 'augmented_assignment'])) {
    const left = assignment.childForFieldName('left');
    if (!left) continue;
    for (const target of left.descendantsOfType('attribute')) {
      if (target.childForFieldName('attribute')?.text === name && !found.some((each) => each.id === target.id)) found.push(target);
    }
  }
  // `del self.F`, `setattr(..., 'F', ...)` are read as assignments too.
  for (const statement of node.descendantsOfType('delete_statement')) {
    for (const target of statement.descendantsOfType('attribute')) if (target.childForFieldName('attribute')?.text === name) found.push(target);
  }
  return found;
}

function assignsAttribute(node: SyntaxNode, name: string): boolean {
  return attributeTargets(node, name).length > 0;
}

/**
 * Who sets and who clears the flag. Undefined when something outside the family's methods may assign it
 * (another object's attribute, a module-level assignment, setattr of its name).
 */
function flagRoles(flag: string, family: Family, index: RepoIndex, helperClass: string, connections: Set<string>): FlagRoles | undefined {
  // `self.__con` in a subclass is `_Sub__con`, another attribute: a private flag is the helper's class's own.
  const mangled = flag.startsWith('__') && !flag.endsWith('__');
  const plainOpeners = new Set<string>();
  const openerFns = new Set<PyFunction>();
  const withOpeners = new Set<string>();
  const clearers = new Set<string>();
  const clearerFns = new Set<PyFunction>();
  for (const module of index.modules.values()) {
    if (new RegExp(`['"]${escape(flag)}['"]`).test(module.source)) return undefined;
    const targets = attributeTargets(module.tree.rootNode, flag);
    for (const target of targets) {
      const fnNode = enclosingFunctionNode(target);
      const fn = fnNode && listedFunction(fnNode, module);
      if (!fn || !inFamily({ fn, module }, family) || target.childForFieldName('object')?.text !== 'self') return undefined;
      if (mangled && fn.className !== helperClass) return undefined;
    }
    for (const fn of listFunctions(module)) {
      if (!inFamily({ fn, module }, family)) continue;
      // `setattr(self, name, value)`, `self.__dict__[...]`: an attribute the reader cannot name may be the flag.
      if (/\b(setattr|__setattr__|__dict__|vars)\b/.test(fn.node.text)) return undefined;
      // `__init__` assigning the flag clears it (`self.__init__(path)` re-initialises the object).
      const own = targets.filter((target) => enclosingFunctionNode(target)?.id === fn.node.id);
      if (own.length === 0) continue;
      const role = fn.name === '__init__' ? undefined : openerRole(fn, flag, own, connections);
      if (role === 'plain') (plainOpeners.add(fn.name), openerFns.add(fn));
      else if (role === 'with') (withOpeners.add(fn.name), clearers.add(fn.name), clearerFns.add(fn));
      else (clearers.add(fn.name), clearerFns.add(fn));
    }
  }
  // An opener name shared with a clearer (an override that clears) is no opener.
  for (const name of clearers) plainOpeners.delete(name);
  return { flag, plainOpeners, withOpeners, clearers: clearerFns, openerFns, connections, family, index, memo: new Map() };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `plain`: one unconditional top-level `self.F = <truthy>` and no other assignment of F; `with`: a `@contextmanager`
 * doing so before its `yield`, whose commits sit in no `except`/`finally` and whose handlers re-raise; else none.
 */
function openerRole(fn: PyFunction, flag: string, targets: SyntaxNode[], connections: Set<string>): 'plain' | 'with' | undefined {
  const body = fn.node.childForFieldName('body');
  const sets = targets.filter((target) => {
    const assignment = target.parent;
    const statement = assignment?.parent;
    return assignment?.type === 'assignment' && assignment.childForFieldName('left')?.id === target.id && statement?.parent?.id === body?.id && truthy(assignment.childForFieldName('right')!, fn, flag, statement!);
  });
  if (sets.length !== 1 || !body) return undefined;
  const set = sets[0]!.parent!.parent!;
  const yields = fn.node.descendantsOfType('yield').filter((node) => node.isNamed);
  const isManager = decoratorTexts(fn.node).some((decorator) => /(^|\.)contextmanager$/.test(decorator));
  // A decorator may run something else than the body, or not run it at all.
  if (!isManager) return decoratorTexts(fn.node).length === 0 && yields.length === 0 && targets.length === 1 && !returnsBefore(fn.node, set) ? 'plain' : undefined;
  if (yields.length !== 1 || yields[0]!.startIndex < set.endIndex || returnsBefore(fn.node, set)) return undefined;
  // On the way out of the batch only the flag's clearing and a rollback of the batch's connection may run: any other
  // call (`self.sql_ex(...)`, `self.save()`) may commit what the batch left pending.
  for (const call of fn.node.descendantsOfType('call')) {
    if (!ancestorTypes(call, fn.node).some((type) => type === 'except_clause' || type === 'finally_clause')) continue;
    const parts = callParts(call);
    if (parts.method !== 'rollback' || !parts.receiver || !connections.has(compactText(parts.receiver))) return undefined;
  }
  for (const handler of fn.node.descendantsOfType('except_clause')) {
    if (!reraises(handler.namedChildren.find((child) => child.type === 'block'))) return undefined;
  }
  return 'with';
}

/** Every path through the handler's block ends in `raise`: its last statement raises and nothing in it jumps out. */
function reraises(block: SyntaxNode | undefined): boolean {
  const statements = block?.namedChildren.filter((child) => child.type !== 'comment') ?? [];
  if (statements[statements.length - 1]?.type !== 'raise_statement') return false;
  return block!.descendantsOfType(['return_statement', 'continue_statement', 'break_statement']).length === 0;
}

function returnsBefore(fnNode: SyntaxNode, statement: SyntaxNode): boolean {
  return fnNode.descendantsOfType(['return_statement', 'raise_statement']).some((node) => node.startIndex < statement.startIndex);
}

/** `True`, a non-zero number, or a value the method then calls `.cursor()`/`.execute()` on through `self.F` (a connection). */
function truthy(value: SyntaxNode, fn: PyFunction, flag: string, statement: SyntaxNode): boolean {
  const node = unparenthesized(value);
  if (node.type === 'true') return true;
  if (node.type === 'integer' && !/^0+$/.test(node.text.replace(/[_]/g, ''))) return true;
  return fn.node.descendantsOfType('call').some((call) => {
    const parts = callParts(call);
    return call.startIndex > statement.endIndex && ['cursor', 'execute'].includes(parts.method) && parts.receiver?.text === `self.${flag}`;
  });
}

function ancestorTypes(node: SyntaxNode, top: SyntaxNode): string[] {
  const types: string[] = [];
  for (let at = node.parent; at && at.id !== top.id; at = at.parent) types.push(at.type);
  return types;
}

/** The names given, and every function's name that calls a method so named (to a fixed point). */
function callersByName(seed: Set<string>, index: RepoIndex): Set<string> {
  const names = new Set(seed);
  const called = calledNames(index);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, calls] of called) {
      if (names.has(name)) continue;
      if ([...calls].some((method) => names.has(method))) (names.add(name), (grew = true));
    }
  }
  return names;
}

/** Per function name, the method names its calls name (nested functions' calls included). */
const calledNames = memoizePer((index: RepoIndex): Map<string, Set<string>> => {
  const called = new Map<string, Set<string>>();
  for (const module of index.modules.values()) {
    for (const fn of listFunctions(module)) {
      const set = called.get(fn.name) ?? new Set<string>();
      for (const call of fn.node.descendantsOfType('call')) set.add(callParts(call).method);
      called.set(fn.name, set);
    }
  }
  return called;
});

/** Names of functions that commit (a direct commit), and of those calling a method so named. */
const committingNames = memoizePer((index: RepoIndex): Set<string> => {
  const seed = new Set<string>(['commit']);
  for (const module of index.modules.values()) {
    for (const fn of listFunctions(module)) if (directEffects(fn, module).some((effect) => effect.kind === 'db-commit')) seed.add(fn.name);
  }
  return callersByName(seed, index);
});

/**
 * A write through the helper itself, through `self.<helper name>(...)` in another family method (the helper being the
 * family's only method so named), or in another family method whose every database call is on the helper's connection.
 */
function throughHelper(write: Effect, helper: PyFunction, helperModule: PyModule, connections: Set<string>, family: Family, index: RepoIndex): boolean {
  if (!write.via) return false;
  if (write.via.qualname === helper.qualname && write.via.path === helperModule.path) return true;
  const viaModule = index.modules.get(write.via.path);
  const via = viaModule && functionsByQualname(viaModule).get(write.via.qualname);
  if (!via || !viaModule || !inFamily({ fn: via, module: viaModule }, family)) return false;
  if (write.call === `self.${helper.name}` && familyMethodsOf(family, helper.name).length === 1) return true;
  return callsOnConnection(via, connections, family, index);
}

/** The commit's receiver as the helper's `self` attributes (`con = self.__con or self.connection`: both), with the receiver itself. */
function commitConnections(helper: PyFunction, commitNode: SyntaxNode): Set<string> | undefined {
  const receiver = callParts(commitNode).receiver;
  if (!receiver) return undefined;
  const connections = new Set<string>();
  if (isSelfAttribute(receiver)) connections.add(compactText(receiver));
  for (const operand of orOperands(localValue(receiver, helper))) if (isSelfAttribute(operand)) connections.add(compactText(operand));
  return connections.size > 0 ? connections : undefined;
}

/**
 * Each database call in the function is on one of the connections or a cursor of one: a receiver whose value (a
 * local's one assignment, or every assignment of `self.attr` in the family) is, per `or` operand, one of them,
 * `X.cursor()` of such a value, or None.
 */
function callsOnConnection(fn: PyFunction, connections: Set<string>, family: Family, index: RepoIndex): boolean {
  const onConnection = (node: SyntaxNode, depth: number): boolean => {
    if (connections.has(compactText(node)) || node.type === 'none') return true;
    if (depth > 3) return false;
    if (node.type === 'call') {
      const parts = callParts(node);
      return parts.method === 'cursor' && parts.receiver !== undefined && parts.positional.length === 0 && onConnection(parts.receiver, depth + 1);
    }
    const values = node.type === 'identifier' ? [localValue(node, fn)] : isSelfAttribute(node) ? familyAssignedValues(node.childForFieldName('attribute')!.text, family, index) : undefined;
    return values !== undefined && values.length > 0 && values.every((value) => value !== undefined && orOperands(value).every((operand) => onConnection(operand, depth + 1)));
  };
  return fn.node.descendantsOfType('call').every((call) => {
    const parts = callParts(call);
    if (!['execute', 'executemany', 'executescript', 'commit'].includes(parts.method) || !parts.receiver) return true;
    return onConnection(parts.receiver, 0);
  });
}

/** `t = v`, or `a, t = u, v` (the value in the same place); undefined for anything else (augmented, unpacked from one value). */
function assignedValue(target: SyntaxNode): SyntaxNode | undefined {
  const assignment = target.parent;
  if (assignment?.type === 'assignment' && assignment.childForFieldName('left')?.id === target.id) return assignment.childForFieldName('right') ?? undefined;
  const pattern = target.parent;
  const outer = pattern?.parent;
  if ((pattern?.type !== 'pattern_list' && pattern?.type !== 'tuple_pattern') || outer?.type !== 'assignment' || outer.childForFieldName('left')?.id !== pattern.id) return undefined;
  const right = outer.childForFieldName('right');
  const items = right && (right.type === 'expression_list' || right.type === 'tuple') ? right.namedChildren : undefined;
  const at = pattern.namedChildren.findIndex((child) => child.id === target.id);
  return items && items.length === pattern.namedChildren.length ? items[at] : undefined;
}

function isSelfAttribute(node: SyntaxNode): boolean {
  return node.type === 'attribute' && node.childForFieldName('object')?.text === 'self';
}

function orOperands(node: SyntaxNode | undefined): SyntaxNode[] {
  if (!node) return [];
  const bare = unparenthesized(node);
  if (bare.type === 'boolean_operator' && bare.children.some((child) => child.type === 'or')) {
    return [...orOperands(bare.childForFieldName('left') ?? undefined), ...orOperands(bare.childForFieldName('right') ?? undefined)];
  }
  return [bare];
}

/** The one value a local name of the function is assigned (plainly, once, in the function's own body). */
function localValue(name: SyntaxNode, fn: PyFunction): SyntaxNode | undefined {
  if (name.type !== 'identifier') return undefined;
  const uses = fn.node.descendantsOfType('identifier').filter((use) => use.text === name.text && !namesAttributeOrKeyword(use));
  const bindings = uses.filter((use) => use.parent?.type !== 'attribute' || use.parent.childForFieldName('object')?.id === use.id).filter(bindsName);
  if (bindings.length !== 1) return undefined;
  const assignment = bindings[0]!.parent!;
  return assignment.type === 'assignment' && assignment.childForFieldName('left')?.id === bindings[0]!.id ? assignment.childForFieldName('right') ?? undefined : undefined;
}

function bindsName(use: SyntaxNode): boolean {
  const parent = use.parent;
  if (!parent) return false;
  if ((parent.type === 'assignment' || parent.type === 'augmented_assignment' || parent.type === 'for_statement') && parent.childForFieldName('left')?.id === use.id) return true;
  return ['as_pattern_target', 'parameters', 'default_parameter', 'typed_parameter', 'global_statement', 'nonlocal_statement', 'pattern_list', 'tuple_pattern', 'named_expression'].includes(parent.type);
}

/**
 * Every value `self.<attribute>` is assigned in the family; undefined when some assignment is not a plain one. Another
 * object's attribute so named (`canv.cursor = 0, 0`) is taken for another object's in a module that names no class of
 * the family (partial: an instance handed there unnamed is not seen).
 */
function familyAssignedValues(attribute: string, family: Family, index: RepoIndex): (SyntaxNode | undefined)[] | undefined {
  const values: (SyntaxNode | undefined)[] = [];
  const classNames = family.refs.map((cls) => cls.name);
  for (const module of index.modules.values()) {
    const namesFamily = classNames.some((name) => new RegExp(`(?<![\\w])${escape(name)}(?![\\w])`).test(module.source));
    for (const target of attributeTargets(module.tree.rootNode, attribute)) {
      if (target.childForFieldName('object')?.text !== 'self' && !namesFamily) continue;
      const fnNode = enclosingFunctionNode(target);
      const fn = fnNode && listedFunction(fnNode, module);
      if (!fn || !inFamily({ fn, module }, family)) return undefined;
      const value = assignedValue(target);
      if (!value) return undefined;
      values.push(value);
    }
  }
  return values;
}

interface Site {
  call: SyntaxNode;
  receiver: string;
  caller: Placed;
}

/** Every path into `target` (whose batch object is `object`, `self` or `self.attr`) runs inside a batch on that object. */
function everyPathInBatch(target: Placed, object: string, roles: FlagRoles, index: RepoIndex, hops: number, visiting: Set<string>): boolean {
  const key = `${target.module.path}\0${target.fn.node.id}\0${object}`;
  if (visiting.has(key)) return true;
  if (hops > MAX_HOPS || target.fn.className === undefined || mayClear(target, object, roles)) return false;
  // A decorator may run the function elsewhere or later, or register it where the reader sees no call.
  if (decoratorTexts(target.fn.node).length > 0 || suspends(target.fn)) return false;
  const sites = callSites(target.fn, index);
  const members = exactFamily(target.module, target.fn.className, index);
  if (!sites || !members) return false;
  visiting.add(key);
  return sites.every((site) => {
    const needed = object === 'self' ? site.receiver : site.receiver === 'self' ? object : undefined;
    if (needed === undefined || !(needed === 'self' || (/^self\.\w+$/.test(needed) && assignedOnlyInInit(needed.slice(5), index) && !descriptorNamed(needed.slice(5), index)))) return false;
    // At a `yield` or an `await` other code runs, inside the batch, and may close or re-open it.
    if (suspends(site.caller.fn)) return false;
    // `self.name(...)` reaches the target only from its own family; from any other class it is not provably ours.
    if (site.receiver === 'self' && !inFamily(site.caller, members)) return false;
    return batchAround(site.call, site.caller, needed, roles, index) || everyPathInBatch(site.caller, needed, roles, index, hops + 1, visiting);
  });
}

/** The function calls something that may clear the flag, or assigns it; `object` is the batch object there. */
function mayClear(placed: Placed, object: string | undefined, roles: FlagRoles): boolean {
  return assignsAttribute(placed.fn.node, roles.flag) || placed.fn.node.descendantsOfType('call').some((call) => callMayClear(call, placed, object, roles, 0));
}

/** Some function the call may run may clear the flag. */
function callMayClear(call: SyntaxNode, caller: Placed, object: string | undefined, roles: FlagRoles, depth: number): boolean {
  return calledTargets(call, caller.fn.node).some(({ receiver, method }) => candidatesFor(receiver, method, caller, object, roles).some((fn) => fnMayClear(fn, roles, depth + 1)));
}

/** A function clears the flag, or calls something that may (a cycle taken as not; too deep taken as may). */
function fnMayClear(placed: Placed, roles: FlagRoles, depth: number): boolean {
  const { fn } = placed;
  if (roles.clearers.has(fn) || roles.openerFns.has(fn)) return true;
  const known = roles.memo.get(fn);
  if (known !== undefined) return known;
  if (depth > 10) return true;
  roles.memo.set(fn, false);
  const answer = fn.node.descendantsOfType('call').some((call) => callMayClear(call, placed, undefined, roles, depth));
  roles.memo.set(fn, answer);
  return answer;
}

/** `R.m(...)` → R and m; `local(...)` with `local` bound only to bound methods `R.m` → each; else the name. */
function calledTargets(call: SyntaxNode, fnNode: SyntaxNode): { receiver?: string; method: string }[] {
  const callee = call.childForFieldName('function');
  const parts = callParts(call);
  if (parts.receiver && builtinValue(parts.receiver, fnNode)) return [];
  if (callee?.type !== 'identifier') return [parts.receiver ? { receiver: compactText(parts.receiver), method: parts.method } : { method: parts.method }];
  const bound: { receiver: string; method: string }[] = [];
  for (const use of fnNode.descendantsOfType('identifier').filter((each) => each.text === callee.text && !namesAttributeOrKeyword(each))) {
    const parent = use.parent;
    if (parent?.type === 'call' && parent.childForFieldName('function')?.id === use.id) continue;
    const value = parent?.type === 'assignment' && parent.childForFieldName('left')?.id === use.id ? parent.childForFieldName('right') : undefined;
    if (value?.type !== 'attribute') return [{ method: callee.text }];
    bound.push({ receiver: compactText(value.childForFieldName('object')!), method: value.childForFieldName('attribute')!.text });
  }
  return bound.length > 0 ? bound : [{ method: callee.text }];
}

const LITERALS = new Set(['string', 'concatenated_string', 'list', 'dictionary', 'set', 'tuple', 'list_comprehension', 'dictionary_comprehension', 'set_comprehension', 'integer', 'float']);

/** A literal (`'{}'.format(...)`), or a local of the function bound only to literals (`attributes = {}`): a builtin value, none of the repository's. */
function builtinValue(node: SyntaxNode, fnNode: SyntaxNode): boolean {
  const bare = unparenthesized(node);
  if (LITERALS.has(bare.type)) return true;
  if (bare.type !== 'identifier') return false;
  const bindings = fnNode.descendantsOfType('identifier').filter((use) => use.text === bare.text && !namesAttributeOrKeyword(use) && bindsName(use));
  return bindings.length > 0 && bindings.every((use) => {
    const assignment = use.parent!;
    const value = assignment.type === 'assignment' && assignment.childForFieldName('left')?.id === use.id ? assignment.childForFieldName('right') : undefined;
    return value !== undefined && value !== null && LITERALS.has(unparenthesized(value).type);
  });
}

/** What `receiver.method` may be: the family's methods on the batch object or on `self` of a family method, the class's own on `self`, else every function so named. */
function candidatesFor(receiver: string | undefined, method: string, caller: Placed, object: string | undefined, roles: FlagRoles): Placed[] {
  const { index, family } = roles;
  const byName = (): Placed[] => functionsNamed(index).get(method) ?? [];
  if (receiver !== undefined && (receiver === object || (receiver === 'self' && inFamily(caller, family)))) {
    const methods = familyMethodsOf(family, method);
    return methods.length > 0 ? methods : byName();
  }
  const own = receiver === 'self' && caller.fn.className !== undefined ? exactFamily(caller.module, caller.fn.className, index) : undefined;
  const methods = own ? familyMethodsOf(own, method) : [];
  return methods.length > 0 ? methods : byName();
}

const functionsNamed = memoizePer((index: RepoIndex): Map<string, Placed[]> => {
  const named = new Map<string, Placed[]>();
  for (const module of index.modules.values()) for (const fn of listFunctions(module)) named.set(fn.name, [...(named.get(fn.name) ?? []), { fn, module }]);
  return named;
});

/** `attribute` is assigned (as any object's attribute) only in `__init__` methods of the repository. */
function assignedOnlyInInit(attribute: string, index: RepoIndex): boolean {
  let assigned = false;
  for (const module of index.modules.values()) {
    for (const target of attributeTargets(module.tree.rootNode, attribute)) {
      const fnNode = enclosingFunctionNode(target);
      if (fnNode?.childForFieldName('name')?.text !== '__init__') return false;
      assigned = true;
    }
  }
  return assigned;
}

/** A function (a `@property`, any method) or a class-level binding so named anywhere: `self.<name>` may be computed per access. */
function descriptorNamed(name: string, index: RepoIndex): boolean {
  for (const module of index.modules.values()) {
    if (listFunctions(module).some((fn) => fn.name === name)) return true;
    for (const cls of module.tree.rootNode.descendantsOfType('class_definition')) {
      for (const statement of cls.childForFieldName('body')?.namedChildren ?? []) {
        const assignment = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
        if (assignment?.type === 'assignment' && assignment.childForFieldName('left')?.text === name) return true;
      }
    }
  }
  return false;
}

/** An `async def`, or a function holding `yield`/`await`/`async for`/`async with` (read from its text, strings included). */
function suspends(fn: PyFunction): boolean {
  return /\b(yield|await|async)\b/.test(fn.node.text);
}

/**
 * Every call of the method `fn` in the repository, by its name: `R.name(...)`, or a local bound to `R.name` (and
 * only to such bound methods) whose every other use is a call. Undefined when the name is used otherwise or spelled
 * in a string.
 */
function callSites(fn: PyFunction, index: RepoIndex): Site[] | undefined {
  const sites: Site[] = [];
  for (const module of index.modules.values()) {
    if (new RegExp(`['"]${escape(fn.name)}['"]`).test(module.source)) return undefined;
    // `self._Store__add_items(...)`: a private method called by its mangled name.
    if (fn.name.startsWith('__') && !fn.name.endsWith('__') && new RegExp(`\\w${escape(fn.name)}\\b`).test(module.source)) return undefined;
    for (const use of identifiersNamed(fn.name, module)) {
      const parent = use.parent;
      if (parent?.type === 'function_definition' && parent.childForFieldName('name')?.id === use.id) continue;
      if (parent?.type !== 'attribute' || parent.childForFieldName('attribute')?.id !== use.id) return undefined;
      const receiver = compactText(parent.childForFieldName('object')!);
      const callerNode = enclosingFunctionNode(parent);
      const caller = callerNode && listedFunction(callerNode, module);
      if (!caller || caller.node.id !== callerNode!.id) return undefined;
      // A call in a lambda runs whenever the lambda is called, maybe after the batch closed.
      if (ancestorTypes(parent, caller.node).includes('lambda')) return undefined;
      const holder = parent.parent;
      if (holder?.type === 'call' && holder.childForFieldName('function')?.id === parent.id) {
        sites.push({ call: holder, receiver, caller: { fn: caller, module } });
        continue;
      }
      const calls = boundMethodCalls(parent, caller);
      if (!calls) return undefined;
      for (const call of calls) sites.push({ call, receiver, caller: { fn: caller, module } });
    }
  }
  return sites.length > 0 ? sites : undefined;
}

/** `x.name` or `f(name=...)`: the identifier names an attribute or a keyword, not the local. */
function namesAttributeOrKeyword(use: SyntaxNode): boolean {
  const parent = use.parent;
  if (parent?.type === 'attribute' && parent.childForFieldName('attribute')?.id === use.id) return true;
  return parent?.type === 'keyword_argument' && parent.childForFieldName('name')?.id === use.id;
}

/** `local = R.name`: the calls of `local` in the function, when every use of it is such an assignment's target or a call's callee. */
function boundMethodCalls(attribute: SyntaxNode, caller: PyFunction): SyntaxNode[] | undefined {
  const assignment = attribute.parent;
  const local = assignment?.type === 'assignment' && assignment.childForFieldName('right')?.id === attribute.id ? assignment.childForFieldName('left') : undefined;
  if (local?.type !== 'identifier') return undefined;
  const calls: SyntaxNode[] = [];
  for (const use of caller.node.descendantsOfType('identifier').filter((each) => each.text === local.text && !namesAttributeOrKeyword(each))) {
    const parent = use.parent;
    if (parent?.type === 'assignment' && parent.childForFieldName('left')?.id === use.id && parent.childForFieldName('right')?.type === 'attribute') continue;
    if (parent?.type === 'call' && parent.childForFieldName('function')?.id === use.id) {
      calls.push(parent);
      continue;
    }
    return undefined;
  }
  return calls;
}

/**
 * The call runs inside a batch its caller opens on `object`: a `with object.open():` around it, or `object.open()`
 * earlier in an enclosing block; nothing in the batch's region (before or after the call: the whole `with` body, or
 * the statements from the opener to the closer) may reach the closer, an opener or the flag's clearing; no other
 * `with` between the opener and the call (`contextlib.suppress` swallows like `except: pass`).
 */
function batchAround(call: SyntaxNode, caller: Placed, object: string, roles: FlagRoles, index: RepoIndex): boolean {
  let inOtherWith = false;
  for (let child: SyntaxNode = call, at = call.parent; at && at.id !== caller.fn.node.id; child = at, at = at.parent) {
    if (at.type === 'with_statement' && at.childForFieldName('body')?.id === child.id) {
      const opens = withItemCalls(at).some((item) => opensBatch(item, object, roles.withOpeners));
      if (opens) return !inOtherWith && !touchesFlag(child.namedChildren, call, caller, object, roles) && exitsCleanly(call, caller, object, index, roles);
      inOtherWith = true;
    }
    if (at.type !== 'block') continue;
    const statements = at.namedChildren;
    const position = statements.findIndex((statement) => statement.id === child.id);
    for (let before = position - 1; before >= 0; before--) {
      const statement = statements[before]!;
      const opener = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
      if (opener?.type === 'call' && opensBatch(opener, object, roles.plainOpeners)) {
        if (inOtherWith) return false;
        let closer = statements.length;
        for (let after = position + 1; after < statements.length; after++) {
          const each = statements[after]!;
          const closing = each.type === 'expression_statement' ? each.namedChildren[0] : undefined;
          if (closing?.type === 'call' && closesBatch(closing, object, roles)) {
            closer = after;
            break;
          }
        }
        return !touchesFlag(statements.slice(before + 1, closer), call, caller, object, roles) && exitsCleanly(call, caller, object, index, roles);
      }
    }
  }
  return false;
}

/** `object.close()` where `close` is a family method that clears the flag and opens nothing. */
function closesBatch(call: SyntaxNode, object: string, roles: FlagRoles): boolean {
  const parts = callParts(call);
  if (parts.receiver === undefined || compactText(parts.receiver) !== object) return false;
  return [...roles.clearers].some((fn) => fn.name === parts.method) && !roles.plainOpeners.has(parts.method) && !roles.withOpeners.has(parts.method);
}

function withItemCalls(statement: SyntaxNode): SyntaxNode[] {
  return statement.descendantsOfType('with_item').map((item) => item.childForFieldName('value')).flatMap((value) => {
    const node = value?.type === 'as_pattern' ? value.namedChildren[0] : value;
    return node?.type === 'call' ? [node] : [];
  });
}

function opensBatch(call: SyntaxNode, object: string, openers: Set<string>): boolean {
  const parts = callParts(call);
  return parts.receiver !== undefined && compactText(parts.receiver) === object && openers.has(parts.method) && parts.positional.length === 0 && parts.keywords.size === 0;
}

/**
 * Anything in the statements that may clear the flag, re-open the batch or close it (a call reaching a clearer or an
 * opener, an assignment of the flag); the call into the target itself is left to the target's own check (mayClear).
 */
function touchesFlag(statements: SyntaxNode[], call: SyntaxNode, caller: Placed, object: string, roles: FlagRoles): boolean {
  return statements.some((statement) => {
    const clears = [...statement.descendantsOfType('call'), ...(statement.type === 'call' ? [statement] : [])].some((each) => each.id !== call.id && callMayClear(each, caller, object, roles, 0));
    return clears || attributeTargets(statement, roles.flag).length > 0;
  });
}

/**
 * An exception raised at the call is not committed by the caller on its way out: no `try` of the caller around the
 * call (inside the batch or around it) has a handler or `finally` that may commit (or clear the flag), and every such
 * handler re-raises or rolls back.
 */
function exitsCleanly(call: SyntaxNode, caller: Placed, object: string, index: RepoIndex, roles: FlagRoles): boolean {
  const committing = committingNames(index);
  const mayCommit = (clause: SyntaxNode): boolean => clause.descendantsOfType('call').some((call) => committing.has(callParts(call).method) || callMayClear(call, caller, undefined, roles, 0));
  for (let child: SyntaxNode = call, at = call.parent; at && at.id !== caller.fn.node.id; child = at, at = at.parent) {
    if (at.type !== 'try_statement' || at.childForFieldName('body')?.id !== child.id) continue;
    for (const clause of at.namedChildren) {
      if (clause.type === 'finally_clause' && mayCommit(clause)) return false;
      if (clause.type !== 'except_clause') continue;
      const block = clause.namedChildren.find((each) => each.type === 'block');
      // A rollback counts only as an unconditional statement of the handler, on the batch's connection (`self._backend.conn`).
      const rollsBack = (block?.namedChildren ?? []).some((statement) => {
        const each = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
        const parts = each?.type === 'call' ? callParts(each) : undefined;
        return parts?.method === 'rollback' && parts.receiver !== undefined && [...roles.connections].some((connection) => compactText(parts.receiver!) === `${object}${connection.slice(4)}`);
      });
      if (mayCommit(clause) || !(rollsBack || reraises(block))) return false;
    }
  }
  return true;
}

