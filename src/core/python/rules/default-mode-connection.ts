// Whether a commit or write goes through a connection that the module itself opened in sqlite3's default
// mode and can never switch to autocommit: `sqlite3.connect(path)` with no `isolation_level` or
// `autocommit`, in a module that assigns neither attribute anywhere (buku: `self.conn, self.cur =
// BukuDb.initdb(...)`, whose `conn = sqlite3.connect(dbfile, check_same_thread=False)`). There the
// implicit transaction holds the writes together up to the commit, so the autocommit harm that
// commit-without-begin and writes-rely-on-implicit-transaction describe cannot happen. Also followed:
// `with value as name:`, an item of a dict attribute the class alone fills (`self._dbs[ident]`), and an
// instance of a same-module wrapper class whose called method runs on such a connection (coverage's
// `with self._connect() as con: con.execute(...)`, SqliteDb.execute running on `self.con`), and a
// parameter of a private function every call of which in the module passes such a connection (coverage's
// `_init_db(self, db)`), or a parameter the function rebinds once, at its top level, to its own connection
// (gPodder's `new_db = sqlite.connect(new_db)`). `sqlite3.connect` is also known by an import alias (`from sqlite3
// import dbapi2 as sqlite`, `from sqlite3 import connect as open_db`), in the tracing and in the module-wide mode
// check alike. Anything not traced (a public function's parameter, another module, a global, a value the reader
// cannot follow) is not provable here; scanned with its repository, the repository-wide proof is tried next
// (repository-connections.ts: every module of the repository opens its connections in the default mode and none
// can switch one, autocommit-switches.ts), and then, unless the config asks for `unless-proven`, whether the
// repository shows any evidence of autocommit for the connection (autocommit-evidence.ts); else the rules keep
// speaking.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import type { RuleContext } from './rule.ts';
import { callParts, type CallParts } from '../body-walk.ts';
import { directEffects } from '../effects.ts';
import { classQualname, functionsByQualname, resolveLocalCall } from '../local-resolve.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { localTupleSource } from '../tuple-binding.ts';
import { withAliasBefore } from '../with-aliases.ts';
import { attributeAssignments, type AttributeAssignment } from '../attribute-assignments.ts';
import { moduleFacts } from '../module-facts.ts';
import { memoizePer } from '../memo.ts';
import { driverOf } from './facts.ts';
import { isOwnCode, unparenthesized } from './syntax.ts';
import { everyCallOf } from './caller-connections.ts';
import { importBindings } from '../imports.ts';
import { boundOutsideImports, singleAssignment } from './single-binding.ts';
import { keepsTransactions } from './autocommit-switches.ts';
import { onRepositoryDefaultConnection } from './repository-connections.ts';
import { noAutocommitEvidence } from './autocommit-evidence.ts';

/** A guard against cycles (a function returning its own call): how many steps a connection is followed through; buku needs 7. */
const MAX_DEPTH = 12;

/** True when the database call `effect` (a commit, a write) runs on a connection or cursor the module opened in the default mode. */
export function onOwnDefaultModeConnection(context: Pick<RuleContext, 'module' | 'fn'>, effect: Effect): boolean {
  const { module, fn } = context;
  if (driverOf(module, fn).kind !== 'sqlite3' || !opensTransaction(effect)) return false;
  return (!mayChangeMode(module) && onModuleDefaultConnection(module, fn, effect)) || onRepositoryDefaultConnection(module, fn, effect) || noAutocommitEvidence(module, fn, effect);
}

/**
 * A commit whose writes are held by the default mode: the commit proven here as before, or by the repository-wide
 * proof together with every write it commits (a commit proven on one connection says nothing of writes on another).
 */
export function commitOnOwnDefaultModeConnection(context: Pick<RuleContext, 'module' | 'fn'>, commit: Effect, writes: readonly Effect[]): boolean {
  const { module, fn } = context;
  if (driverOf(module, fn).kind !== 'sqlite3') return false;
  if (!mayChangeMode(module) && onModuleDefaultConnection(module, fn, commit)) return true;
  return (onRepositoryDefaultConnection(module, fn, commit) || noAutocommitEvidence(module, fn, commit)) && writes.every((write) => onOwnDefaultModeConnection(context, write));
}

/**
 * sqlite3's default mode opens its transaction only before INSERT, UPDATE, DELETE or REPLACE (a comment first
 * is skipped from Python 3.11 only): DDL (`ALTER TABLE` in a migration), a `WITH ... UPDATE` or SQL the reader cannot see may run in
 * autocommit when it comes first, so no proof of the mode holds it.
 */
function opensTransaction(effect: Effect): boolean {
  if (effect.kind === 'db-ddl' || effect.kind === 'db-script') return false;
  if (effect.kind !== 'db-write') return true;
  const text = effect.sql?.text;
  return text !== undefined && /^\s*(insert|update|delete|replace)\b/i.test(text);
}

function onModuleDefaultConnection(module: PyModule, fn: PyFunction, effect: Effect): boolean {
  const site = effectSite(effect, fn, module);
  if (!site) return false;
  const parts = callParts(site.node);
  if (!parts.receiver) return false;
  // In a helper, a receiver that is the helper's parameter is the argument this function's call passes.
  const argument = site.fn !== fn ? argumentFor(parts.receiver, site.fn, effect.node, module) : undefined;
  const [expression, where] = argument ? [argument, fn] : [parts.receiver, site.fn];
  if (where === fn && isParameter(expression, fn)) return everyCallPassesOwnDefault(expression, fn, parts.method, module);
  return runsOnOwnDefault(trace(expression, where, module, 0), parts.method, module, 1);
}

function isParameter(expression: SyntaxNode, fn: PyFunction): boolean {
  return expression.type === 'identifier' && fn.params.includes(expression.text) && !reboundParameter(expression, fn);
}

/**
 * `new_db = sqlite.connect(new_db)` (gPodder's convert_gpodder2_db): the parameter's one rebinding, a statement of
 * the function's own top level before the use, so the use sees that value whatever the caller passed.
 */
function reboundParameter(expression: SyntaxNode, fn: PyFunction): SyntaxNode | undefined {
  return singleAssignment(expression.text, fn, expression, true)?.childForFieldName('right') ?? undefined;
}

/**
 * The connection is the function's own parameter: proven when the function is private and every call
 * of it in the module passes, for that parameter, a value traced in its caller as for any other
 * (coverage's `self._init_db(db)` inside `with self._dbs[threading.get_ident()] as db:`). One call
 * deep: a caller passing its own parameter on is not followed to its callers, so mutual calls end here.
 */
function everyCallPassesOwnDefault(parameter: SyntaxNode, fn: PyFunction, method: string, module: PyModule): boolean {
  const sites = everyCallOf(fn, module);
  return sites !== undefined && sites.every(({ call, caller }) => {
    const argument = argumentFor(parameter, fn, call, module);
    return argument !== undefined && runsOnOwnDefault(trace(argument, caller, module, 0), method, module, 1);
  });
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
 * `self.autocommit = autocommit` feeds its connection's mode), `setattr` of either, a connect call passing either
 * (or keywords, a factory or arguments the reader cannot see), or any call passing either as a keyword.
 */
const mayChangeMode = memoizePer((module: PyModule): boolean => {
  if (/(setattr|__setattr__)\s*\([^)]*['"](isolation_level|autocommit)['"]/.test(module.source)) return true;
  // `setattr(conn, MODE, None)`, `setattr(self._h, key, value)` from a dict of options: a name the reader
  // cannot see may be the mode's, on any object that may be a connection.
  if (/\b(setattr|__setattr__)\s*\(\s*[^,()]+,\s*(?!['"])/.test(module.source)) return true;
  for (const scope of moduleFacts(module).scopes.values()) {
    if (scope.modeAssignments.some((assignment) => !keepsTransactions(assignment.childForFieldName('right')))) return true;
    for (const { node, callee } of [...scope.calls, ...scope.lambdaCalls]) {
      const parts = callParts(node);
      // Any connect, and sqlite3's under any name it is imported as (`open_db(path, isolation_level=None)`), even one
      // the tracer does not accept; any other call only by the mode's own keywords (`opener = sqlite3.connect`).
      if (/connect$/.test(callee) || importedConnects(module).has(callee)) {
        if (!connectKeepsDefault(parts)) return true;
      } else if (['isolation_level', 'autocommit'].some((name) => parts.keywords.has(name) && !keepsTransactions(parts.keywords.get(name)!))) return true;
    }
  }
  return false;
});

/**
 * Neither `isolation_level` nor `autocommit` passed: not by keyword, not fourth positionally
 * (`connect(database, timeout, detect_types, isolation_level, ...)`), not through `*args`/`**kwargs`.
 */
function connectKeepsDefault(parts: CallParts): boolean {
  for (const name of ['isolation_level', 'autocommit']) {
    const value = parts.keywords.get(name);
    if (value && !keepsTransactions(value)) return false;
  }
  if (parts.positional.some((argument) => argument.type === 'list_splat' || argument.type === 'dictionary_splat')) return false;
  // A Connection subclass of the caller's choosing may set its own mode (`factory=AutoConnection`); so may a
  // `**options` dict of keywords.
  if (parts.keywords.has('factory')) return false;
  return parts.positional.length <= 3;
}

/** The modules whose `connect` is sqlite3's. */
const SQLITE3_MODULES = new Set(['sqlite3', 'sqlite3.dbapi2']);

/**
 * The names `sqlite3.connect` goes by in the module: itself, `<alias>.connect` for `import sqlite3 as <alias>` or
 * `from sqlite3 import dbapi2 as <alias>` (gPodder's `sqlite`; dbapi2's connect is sqlite3's), and `<name>` for
 * `from sqlite3 import connect as <name>`: every import of the name is one of these, no star import could shadow it,
 * and nothing else binds it (`sqlite = None` in an `except ImportError:`).
 */
const sqlite3Connects = memoizePer((module: PyModule): Set<string> => {
  const names = new Set(['sqlite3.connect']);
  const bindings = importBindings(module);
  if (bindings.some((binding) => binding.star)) return names;
  const byName = new Map<string, string[]>();
  for (const binding of bindings) byName.set(binding.localName, [...(byName.get(binding.localName) ?? []), binding.name ? `${binding.module}.${binding.name}` : binding.module]);
  for (const [local, targets] of byName) {
    if (boundOutsideImports(local, module.tree.rootNode)) continue;
    if (targets.every((target) => SQLITE3_MODULES.has(target))) names.add(`${local}.connect`);
    else if (targets.every((target) => SQLITE3_MODULES.has(target.replace(/\.connect$/, '')) && target.endsWith('.connect'))) names.add(local);
  }
  return names;
});

/** Every local name bound to sqlite3's connect by `from sqlite3 import connect as <name>` (or dbapi2's), however else it is bound. */
const importedConnects = memoizePer((module: PyModule): Set<string> =>
  new Set(importBindings(module).filter((binding) => binding.name === 'connect' && SQLITE3_MODULES.has(binding.module)).map((binding) => binding.localName)),
);

/**
 * What a traced value is: a connection (or cursor) the module opened in the default mode, or an
 * instance of the module's class `wrapper`, good only for those of its methods that run on one.
 */
type Traced = 'connection' | { wrapper: string };

function same(a: Traced | undefined, b: Traced | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  return a === 'connection' || b === 'connection' ? a === b : a.wrapper === b.wrapper;
}

/** `traced` all agree: each the same kind, at least one; undefined otherwise. */
function agreed(traced: (Traced | undefined)[]): Traced | undefined {
  const first = traced[0];
  return first !== undefined && traced.every((each) => same(each, first)) ? first : undefined;
}

/** The call `receiver.method(...)` runs on a default-mode connection: the receiver is one, or a wrapper whose `method` runs on one. */
function runsOnOwnDefault(traced: Traced | undefined, method: string, module: PyModule, depth: number): boolean {
  if (traced === undefined || depth > MAX_DEPTH) return false;
  return traced === 'connection' || wrapperMethodOwnDefault(traced.wrapper, method, module, depth + 1, new Set());
}

/** The argument a call passes to the helper's parameter `name`, by keyword or position; undefined past a `*args`/`**kwargs` or when not passed. */
function argumentFor(name: SyntaxNode, helper: PyFunction, call: SyntaxNode, module: PyModule): SyntaxNode | undefined {
  if (name.type !== 'identifier' || call.type !== 'call') return undefined;
  const index = helper.params.indexOf(name.text);
  if (index < 0 || !onlyUsedAsIs(name.text, helper)) return undefined;
  const parts = callParts(call);
  if (parts.positional.some((argument) => argument.type === 'list_splat' || argument.type === 'dictionary_splat')) return undefined;
  if (parts.keywords.has(name.text)) return parts.keywords.get(name.text);
  // After `*args` a parameter takes keywords only.
  if (helper.params.slice(0, index).some((param) => param.startsWith('*'))) return undefined;
  // `self.helper(db)`: the bound instance fills the first parameter; `Store.helper(obj, db)` through the class passes it.
  const throughClass = parts.receiver !== undefined && classMethods(module).has(parts.receiver.text);
  const bound = helper.className !== undefined && parts.receiver !== undefined && !throughClass && /^(self|cls)$/.test(helper.params[0] ?? '') ? 1 : 0;
  return index - bound >= 0 ? parts.positional[index - bound] : undefined;
}

/**
 * The parameter keeps the caller's value throughout the helper: every use of the name in its body is a
 * call's receiver or attribute's object (`db.execute(...)`) or an argument passed on. Anything else
 * (`db = ...`, `for db in ...`, `with ... as db`) may rebind it.
 */
function onlyUsedAsIs(name: string, helper: PyFunction): boolean {
  const body = helper.node.childForFieldName('body');
  return body !== null && body.descendantsOfType('identifier').every((identifier) => {
    if (identifier.text !== name) return true;
    const parent = identifier.parent;
    if (parent?.type === 'attribute') return parent.childForFieldName('object')?.id === identifier.id;
    return parent?.type === 'argument_list';
  });
}

function trace(expression: SyntaxNode, fn: PyFunction, module: PyModule, depth: number): Traced | undefined {
  if (depth > MAX_DEPTH) return undefined;
  if (expression.type === 'identifier') {
    // A parameter is a connection from a caller, whatever it is reassigned to later, unless rebound once for all uses.
    if (fn.params.includes(expression.text)) {
      const rebound = reboundParameter(expression, fn);
      return rebound && fromValue(rebound, undefined, fn, module, depth + 1);
    }
    // Partial: the last binding before the use is read, not every branch's.
    const assigned = localAssignmentBefore(expression);
    const alias = withAliasBefore(expression);
    if (alias && (!assigned || alias.start > assigned.startIndex)) return entered(fromValue(alias.value, undefined, fn, module, depth + 1), module);
    if (assigned) return fromValue(assigned, undefined, fn, module, depth + 1);
    const unpacked = localTupleSource(expression);
    return unpacked && fromValue(unpacked.value, unpacked.position, fn, module, depth + 1);
  }
  if (expression.type === 'attribute') {
    const object = expression.childForFieldName('object');
    const attribute = expression.childForFieldName('attribute')?.text;
    const owner = object && ownerClass(object, fn, module);
    return owner && attribute ? classAttribute(owner, attribute, module, depth + 1) : undefined;
  }
  if (expression.type === 'subscript') {
    const container = expression.childForFieldName('value');
    const object = container?.type === 'attribute' ? container.childForFieldName('object') : null;
    const attribute = container?.childForFieldName('attribute')?.text;
    const owner = object && ownerClass(object, fn, module);
    return owner && attribute ? classDictItem(owner, attribute, module, depth + 1) : undefined;
  }
  if (expression.type === 'call' || expression.type === 'parenthesized_expression') return fromValue(expression, undefined, fn, module, depth + 1);
  return undefined;
}

/**
 * What `with value as name:` binds: `value.__enter__()`. A sqlite3 connection's returns itself; a
 * wrapper's only when every return of its own `__enter__` is `self`.
 */
function entered(traced: Traced | undefined, module: PyModule): Traced | undefined {
  if (traced === undefined || traced === 'connection') return traced;
  const enter = functionsByQualname(module).get(`${traced.wrapper}.__enter__`);
  const returns = enter ? ownReturns(enter) : [];
  return returns.length > 0 && returns.every((statement) => statement.namedChildren[0]?.text === 'self') ? traced : undefined;
}

function ownReturns(fn: PyFunction): SyntaxNode[] {
  return fn.node.descendantsOfType('return_statement').filter((statement) => isOwnCode(statement, fn.node));
}

/** A value bound to a connection name; `position` when it is unpacked from a tuple (`conn, cur = initdb()`). */
function fromValue(value: SyntaxNode, position: number | undefined, fn: PyFunction, module: PyModule, depth: number): Traced | undefined {
  if (depth > MAX_DEPTH) return undefined;
  value = unparenthesized(value);
  // `self._dbs[k] = db = SqliteDb(...)`: the chain's value.
  if (value.type === 'assignment') {
    const right = value.childForFieldName('right');
    return right ? fromValue(right, position, fn, module, depth + 1) : undefined;
  }
  if (position !== undefined && (value.type === 'tuple' || value.type === 'expression_list')) {
    const element = value.namedChildren.filter((child) => child.type !== 'comment')[position];
    return element && fromValue(element, undefined, fn, module, depth + 1);
  }
  if (value.type === 'identifier' || value.type === 'attribute' || value.type === 'subscript') return position === undefined ? trace(value, fn, module, depth + 1) : undefined;
  if (value.type !== 'call') return undefined;
  const parts = callParts(value);
  if (sqlite3Connects(module).has(parts.callee)) return position === undefined && connectKeepsDefault(parts) ? 'connection' : undefined;
  // A cursor works in its connection's mode.
  if (parts.method === 'cursor' && parts.receiver && position === undefined) {
    return trace(parts.receiver, fn, module, depth + 1) === 'connection' ? 'connection' : undefined;
  }
  if (classMethods(module).has(parts.callee)) return position === undefined ? { wrapper: parts.callee } : undefined;
  const callee = resolveLocalCall(value, module, fn);
  return callee && returnsOwnDefault(callee, position, module, depth + 1);
}

/** Every `return` of the function gives the same kind of traced value (or, with `position`, a tuple holding one there). */
function returnsOwnDefault(fn: PyFunction, position: number | undefined, module: PyModule, depth: number): Traced | undefined {
  return agreed(ownReturns(fn).map((statement) => {
    const value = statement.namedChildren[0];
    return value && fromValue(value, position, fn, module, depth);
  }));
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

/** The method of `owner` the assignment is written in, when it assigns through `self`. */
function assigningMethod({ target }: AttributeAssignment, owner: string, module: PyModule): PyFunction | undefined {
  const method = (classMethods(module).get(owner) ?? []).find((candidate) => isOwnCode(target, candidate.node));
  const object = target.type === 'subscript' ? target.childForFieldName('value')?.childForFieldName('object') : target.childForFieldName('object');
  return object?.text === 'self' ? method : undefined;
}

/**
 * Every assignment to `.attribute` anywhere in the module is `self.attribute = ...` in a method of the
 * class, and each gives the same kind of value, at least one; `None` gives none (a call on it fails
 * before any SQL runs: SqliteDb's `self.con = None` until `_connect`). An instance attribute set from
 * outside (`store.conn = other`) could be any connection.
 */
function classAttribute(owner: string, attribute: string, module: PyModule, depth: number): Traced | undefined {
  const assignments = attributeAssignments(module).whole.get(attribute) ?? [];
  const traced: (Traced | undefined)[] = [];
  for (const assignment of assignments) {
    const method = assigningMethod(assignment, owner, module);
    if (!method || assignment.augmented) return undefined;
    if (assignment.position === undefined && unparenthesized(assignment.value).type === 'none') continue;
    traced.push(fromValue(assignment.value, assignment.position, method, module, depth));
  }
  return agreed(traced);
}

/** What may be done with the dict `x.attribute` besides item assignment without adding to it: read, test, empty, list. */
const READS_ONLY = new Set(['get', 'values', 'items', 'keys', 'pop', 'clear', 'copy', '__contains__', '__getitem__']);

/**
 * An item of the dict attribute `self.attribute`: the class alone fills it, every item assignment in the
 * module is `self.attribute[key] = value` in its method giving the same kind, at least one; the
 * attribute itself is only ever set to an empty dict (`{}` or `dict()`); and every other use of
 * `.attribute` in the module reads, tests (`key in self._dbs`) or subscripts it: passed anywhere or
 * updated (`update`, `setdefault`, `|=`), it could hold anything.
 */
function classDictItem(owner: string, attribute: string, module: PyModule, depth: number): Traced | undefined {
  const { whole, items } = attributeAssignments(module);
  for (const assignment of whole.get(attribute) ?? []) {
    if (!assigningMethod(assignment, owner, module) || assignment.augmented || !isEmptyDict(assignment.value)) return undefined;
  }
  if (!onlyReadOrFilledByItem(attribute, module)) return undefined;
  const traced: (Traced | undefined)[] = [];
  for (const assignment of items.get(attribute) ?? []) {
    const method = assigningMethod(assignment, owner, module);
    if (!method || assignment.augmented || assignment.position !== undefined) return undefined;
    traced.push(fromValue(assignment.value, undefined, method, module, depth));
  }
  return agreed(traced);
}

function isEmptyDict(value: SyntaxNode): boolean {
  const node = unparenthesized(value);
  if (node.type === 'dictionary') return node.namedChildren.every((child) => child.type === 'comment');
  return node.type === 'call' && callParts(node).callee === 'dict' && callParts(node).positional.length === 0 && callParts(node).keywords.size === 0;
}

/** Every `x.attribute` in the module is a subscript's container, an assignment target, an `in` test's right side or the receiver of a reading method. */
const onlyReadOrFilledByItem = (attribute: string, module: PyModule): boolean => {
  const answers = readOrFilledAnswers(module);
  let answer = answers.get(attribute);
  if (answer === undefined) {
    answer = computeOnlyReadOrFilledByItem(attribute, module);
    answers.set(attribute, answer);
  }
  return answer;
};

const readOrFilledAnswers = memoizePer((_module: PyModule): Map<string, boolean> => new Map());

const computeOnlyReadOrFilledByItem = (attribute: string, module: PyModule): boolean =>
  module.tree.rootNode.descendantsOfType('attribute').every((node) => {
    if (node.childForFieldName('attribute')?.text !== attribute) return true;
    const parent = node.parent;
    if (!parent) return false;
    if (parent.type === 'subscript') return parent.childForFieldName('value')?.id === node.id;
    if (parent.type === 'assignment' || parent.type === 'augmented_assignment') return parent.childForFieldName('left')?.id === node.id;
    if (parent.type === 'comparison_operator') return parent.children.some((token) => token.type === 'in' || token.type === 'not in') && parent.namedChildren[parent.namedChildren.length - 1]?.id === node.id;
    if (parent.type === 'attribute' && parent.childForFieldName('object')?.id === node.id) {
      return READS_ONLY.has(parent.childForFieldName('attribute')?.text ?? '') && parent.parent?.type === 'call';
    }
    return false;
  });

/** The calls a wrapper method makes that reach the database, by name: what runs SQL or ends a transaction on a sqlite3 connection or cursor. */
const DATABASE_METHODS = new Set(['execute', 'executemany', 'executescript', 'commit', 'rollback', 'cursor']);

/**
 * The wrapper class's own method `method` runs its database calls only on default-mode connections:
 * each `execute`/`executemany`/`executescript`/`commit`/`rollback`/`cursor` call in it (and in the
 * class's methods it calls on `self`) has a receiver traced to one (`self.con`, SqliteDb's), at least one.
 * A method the class does not define itself (inherited, `__getattr__`) is not followed.
 */
function wrapperMethodOwnDefault(wrapper: string, method: string, module: PyModule, depth: number, visiting: Set<string>): boolean {
  return databaseCallsOwnDefault(wrapper, method, module, depth, visiting) === true;
}

/** true: every database call is on such a connection and there is one; 'none': no database call at all; false: one is not provable. */
function databaseCallsOwnDefault(wrapper: string, method: string, module: PyModule, depth: number, visiting: Set<string>): boolean | 'none' {
  const qualname = `${wrapper}.${method}`;
  const fn = functionsByQualname(module).get(qualname);
  if (!fn || depth > MAX_DEPTH) return false;
  // Already being checked further up: its calls are judged there.
  if (visiting.has(qualname)) return 'none';
  visiting.add(qualname);
  let found = false;
  // Nested functions and lambdas too: a retry callback's call reaches the database as well.
  for (const call of fn.node.descendantsOfType('call')) {
    const parts = callParts(call);
    if (parts.receiver?.text === 'self' && functionsByQualname(module).has(`${wrapper}.${parts.method}`)) {
      const inner = databaseCallsOwnDefault(wrapper, parts.method, module, depth + 1, visiting);
      if (inner === false) return false;
      found ||= inner === true;
      continue;
    }
    if (!DATABASE_METHODS.has(parts.method) || !parts.receiver) continue;
    if (!runsOnOwnDefault(trace(parts.receiver, fn, module, depth + 1), parts.method, module, depth + 1)) return false;
    found = true;
  }
  return found ? true : 'none';
}
