// Whether a repository gives any reason to think a write's connection may be autocommit. The default-mode
// rules (commit-without-begin, writes-rely-on-implicit-transaction, with-conn-opens-no-transaction) describe
// what autocommit would do to writes that sqlite3's default mode holds together; read with its whole
// repository, a function is reported only when the repository shows that autocommit can happen to it:
//   - some code names the mode and gives it a value that may mean autocommit, and keeps it
//     (autocommit-switches.ts `evident`: `isolation_level=None`, `autocommit=flag`, `.isolation_level = None`
//     not restored after the one statement it was set for);
//   - the connection may come from outside the repository: from a parameter of a function no repository code
//     calls (a library's entry point: its caller picks the mode), or the repository imports a layer that hands
//     out connections of its own making (Django, SQLAlchemy, peewee, apsw, ...);
//   - the writes do not open sqlite3's implicit transaction (DDL, `WITH ...`, SQL not seen), which
//     default-mode-connection.ts asks before this.
// Else the function is left unreported: zim's indexers, gajim's storage, lollypop's collection, whose code
// never asks for autocommit. This is a choice of evidence over proof, stated in the README: code that hides the
// mode (a factory, `**kwargs` not followed, a computed setattr, the constructor taken as a value, a connection
// kept in a dict or read off another object) is taken as not asking for autocommit. Set
// `static.assume_autocommit: unless-proven` to report everything repository-connections.ts cannot prove.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { repoIndexOf, resolveCall, type RepoIndex } from '../callgraph.ts';
import { functionsByQualname } from '../local-resolve.ts';
import { STDLIB_MODULES } from '../stdlib-modules.ts';
import { attributeAssignments } from '../attribute-assignments.ts';
import { importBindings } from '../imports.ts';
import { memoizePer } from '../memo.ts';
import { autocommitSwitches } from './autocommit-switches.ts';
import { isOwnCode, unparenthesized } from './syntax.ts';
import { argumentAt, callSites, keywordOnly, placeOf } from './call-sites.ts';
import { classFamily, classMadeBy, familyMethods, last } from './class-family.ts';
import { listFunctions } from '../functions.ts';
import { bindingsOf, databaseCallOf } from './repository-connections.ts';

/** How far a connection is followed back through locals, attributes and callers before giving up (and not reporting). */
const MAX_DEPTH = 12;

/** Third-party packages that hand a program connections they made, in a mode they chose. */
const CONNECTION_LAYERS = /^(django|sqlalchemy|sqlmodel|flask_sqlalchemy|peewee|playhouse|pony|apsw|aiosqlite|sqlobject|dataset|records|sqlite_utils|databases|tortoise|storm|web|sqlcipher3|pysqlcipher3|sqlean)$/;

/** True when the repository shows no way for `effect`'s connection to be autocommit (see the header). */
export function noAutocommitEvidence(module: PyModule, fn: PyFunction, effect: Effect): boolean {
  return evidenceFor(module, fn, effect) === NONE;
}

/**
 * For a message: what in the repository says the effect's connection may be autocommit (`app/db.py:12:
 * sqlite3.connect(isolation_level=None)`, `move's parameter conn, which no repository code passes`), when the
 * whole repository was read under `when-evident` and something does; else undefined.
 */
export function autocommitEvidence(module: PyModule, fn: PyFunction, effect: Effect): string | undefined {
  const found = evidenceFor(module, fn, effect);
  return found === NONE || found === UNASKED ? undefined : found;
}

/** A message's closing clause naming the evidence, or '' (a lone module, `unless-proven`, nothing named). */
export function evidenceClause(module: PyModule, fn: PyFunction, effect: Effect): string {
  const found = autocommitEvidence(module, fn, effect);
  return found ? ` (here: ${found})` : '';
}

const NONE = Symbol('no evidence');
const UNASKED = Symbol('not asked');

function evidenceFor(module: PyModule, fn: PyFunction, effect: Effect): string | typeof NONE | typeof UNASKED {
  const index = repoIndexOf(module);
  if (!index?.complete || index.assumeAutocommit === 'unless-proven') return UNASKED;
  const switches = autocommitSwitches(index);
  if (!switches?.opensConnections) return UNASKED;
  const [named] = switches.evident;
  if (named !== undefined) return `${named} may make a connection autocommit`;
  const layer = connectionLayer(index);
  if (layer !== undefined) return `the repository imports ${layer}, which hands out connections of its own`;
  const site = databaseCallOf(effect, fn, module, index);
  const receiver = site && callParts(site.node).receiver;
  if (!site || receiver === undefined) return UNASKED;
  // The three rules ask about the same calls, and a report asks again for its message: one answer per call.
  const answers = answersOf(index);
  const key = `${site.module.path}:${site.node.startIndex}:${site.node.endIndex}`;
  let answer = answers.get(key);
  if (answer === undefined) {
    const follower = new Follower(index, callParts(site.node).method);
    answer = follower.fromOutside(receiver, site.fn, site.module, 0) ? (follower.reason ?? 'the connection may come from outside the repository') : NONE;
    answers.set(key, answer);
  }
  return answer;
}

const answersOf = memoizePer((_index: RepoIndex) => new Map<string, string | typeof NONE>());

const connectionLayer = memoizePer((index: RepoIndex): string | undefined => {
  const own = ownPackages(index);
  for (const module of index.modules.values()) {
    for (const binding of importBindings(module)) {
      const top = binding.module.split('.')[0]!;
      if (binding.module !== '' && !binding.module.startsWith('.') && !own.has(top) && CONNECTION_LAYERS.test(top)) return top;
    }
  }
  return undefined;
});

/** The name is imported from a package neither the repository nor Python's standard library holds (`from fastdb import open_db`, `import apsw_dbapi as sqlite3` in a fallback). */
function thirdPartyName(name: string, module: PyModule, index: RepoIndex): boolean {
  return importBindings(module).some((binding) => {
    if (binding.localName !== name || binding.module === '' || binding.module.startsWith('.')) return false;
    // pysqlite2 is sqlite3 before it joined the standard library (`from pysqlite2 import dbapi2 as sqlite`, gPodder's fallback).
    if (STDLIB_MODULES.has(binding.module.split('.')[0]!) || binding.module.split('.')[0] === 'pysqlite2') return false;
    if (binding.name !== undefined && !binding.module.includes('.') && rootPackageBinds(binding.name, index)) return false;
    return !repositoryModule(binding.module, index) && !(binding.name !== undefined && repositoryModule(`${binding.module}.${binding.name}`, index));
  });
}

/** The method's class, as written in its module, names a base imported from a third party. */
function thirdPartyBase(fn: PyFunction, module: PyModule, index: RepoIndex): boolean {
  let holder = fn.node.parent;
  while (holder && holder.type !== 'class_definition') holder = holder.parent;
  const bases = holder?.childForFieldName('superclasses')?.namedChildren ?? [];
  return bases.some((base) => base.type !== 'keyword_argument' && thirdPartyName(base.text.split('.')[0]!, module, index));
}

/** A dotted module name the repository holds, under any leading package name (`zim.notebook.index` for `notebook/index`, scanned from inside the package). */
function repositoryModule(dotted: string, index: RepoIndex): boolean {
  const parts = dotted.split('.');
  return parts.some((_, start) => index.moduleByDotted.has(parts.slice(start).join('.')));
}

/** Scanned from inside a package: its `__init__` (dotted '') defines or imports the name at its top level (`from mypkg import open_db`). */
function rootPackageBinds(name: string, index: RepoIndex): boolean {
  return (index.moduleByDotted.get('') ?? []).some((path) => {
    const module = index.modules.get(path);
    if (!module) return false;
    const defines = module.tree.rootNode.namedChildren.some(
      (statement) =>
        (/^(function|class)_definition$/.test(statement.type) && statement.childForFieldName('name')?.text === name) ||
        (statement.type === 'decorated_definition' && statement.childForFieldName('definition')?.childForFieldName('name')?.text === name),
    );
    return defines || importBindings(module).some((binding) => binding.localName === name);
  });
}

const ownPackages = memoizePer((index: RepoIndex): Set<string> => new Set([...index.moduleByDotted.keys()].map((dotted) => dotted.split('.')[0]!)));

/** Follows a connection back to the parameters it may come from; evidence is one that some caller outside the repository fills. */
class Follower {
  private readonly seen = new Set<string>();

  /** `method`: the database call's method (`execute`), asked of a repository class the connection turns out to be an instance of. */
  constructor(private readonly index: RepoIndex, private readonly method: string | undefined) {}

  /** The first evidence met, in words for a message. */
  reason: string | undefined;

  private found(why: string): true {
    this.reason ??= why;
    return true;
  }

  fromOutside(expression: SyntaxNode, fn: PyFunction | undefined, module: PyModule, depth: number): boolean {
    const key = `${module.path}:${expression.startIndex}:${expression.endIndex}`;
    if (depth > MAX_DEPTH || this.seen.has(key) || !fn) return false;
    this.seen.add(key);
    const node = unparenthesized(expression);
    switch (node.type) {
      case 'identifier': {
        if ((node.text === 'self' || node.text === 'cls') && fn.className !== undefined) return false;
        if (fn.params.includes(node.text) && this.parameterFromOutside(node.text, fn, module, depth)) return true;
        const local = bindingsOf(fn.node, node.text);
        if (local !== undefined && local.length > 0) return local.some((value) => this.fromOutside(value, fn, module, depth + 1));
        // not bound here (or bound by `global name`): the module's own name, an import, or what `global` writers give it.
        if (fn.params.includes(node.text)) return false;
        return this.globalFromOutside(node.text, module, depth);
      }
      case 'boolean_operator':
        // `conn or sqlite3.connect(path)`: either side.
        return [node.childForFieldName('left'), node.childForFieldName('right')].some((side) => side !== null && this.fromOutside(side, fn, module, depth + 1));
      case 'conditional_expression':
        // `conn if conn is not None else sqlite3.connect(path)`: either value.
        return [node.namedChildren[0], node.namedChildren[2]].some((side) => side !== undefined && this.fromOutside(side, fn, module, depth + 1));
      case 'attribute': {
        const object = node.childForFieldName('object');
        const attribute = node.childForFieldName('attribute')?.text ?? '';
        if (object?.text === 'self' && fn.className !== undefined) return this.selfAttributeFromOutside(attribute, fn, module, depth);
        // `g.db`, `app.state.db`: what the repository stores there, when it does.
        const stored = this.storedAt(node, attribute, depth);
        if (stored !== undefined) return stored;
        return object !== null && this.fromOutside(object, fn, module, depth + 1);
      }
      case 'call': {
        // `conn.cursor()`, `conn.execute(...)`: the connection they run on.
        const parts = callParts(node);
        if (parts.receiver !== undefined && /^(cursor|execute|executemany)$/.test(parts.method ?? '')) return this.fromOutside(parts.receiver, fn, module, depth + 1);
        if (thirdPartyName(parts.callee.split('.')[0]!, module, this.index)) return this.found(`the connection comes from ${parts.callee}, a third party's (${module.path}:${node.startPosition.row + 1})`);
        // `closing(open_profile_db())`: the connection it wraps.
        if (/(^|\.)closing$/.test(parts.callee) && parts.positional[0] !== undefined) return this.fromOutside(parts.positional[0], fn, module, depth + 1);
        // `pool.connect()` on a third party's pool, `self.opener.open()`: the object that makes it.
        if (parts.receiver !== undefined && this.fromOutside(parts.receiver, fn, module, depth + 1)) return true;
        return this.returnsFromOutside(node, fn, module, depth);
      }
      default:
        return false;
    }
  }

  /** Every repository assignment to the same dotted target (`g.db = ...`): whether some value comes from outside; undefined when none. */
  private storedAt(node: SyntaxNode, attribute: string, depth: number): boolean | undefined {
    let found = false;
    for (const { target, value, fn, where } of this.assignmentsTo(attribute)) {
      if (target.text !== node.text) continue;
      found = true;
      if (value && fn && this.fromOutside(value, fn, where, depth + 1)) return true;
    }
    return found ? false : undefined;
  }

  /** Every `x.attribute = v` of the repository: the target, the value it gets (its own element of an unpacked one), and the function it is in. */
  private *assignmentsTo(attribute: string): Generator<{ target: SyntaxNode; value: SyntaxNode | undefined; fn: PyFunction | undefined; where: PyModule }> {
    for (const where of this.index.modules.values()) {
      for (const assignment of attributeAssignments(where).whole.get(attribute) ?? []) {
        const { target, position } = assignment;
        const whole = assignment.value;
        const value = position === undefined ? whole : whole.type === 'tuple' || whole.type === 'expression_list' ? whole.namedChildren.filter((c) => c.type !== 'comment')[position] : undefined;
        yield { target, value, fn: placeOf(target, where)?.fn, where };
      }
    }
  }

  /** What the repository functions the call may run return (a connection opened by a third party's `open_db`, a third-party pool's). */
  private returnsFromOutside(call: SyntaxNode, fn: PyFunction, module: PyModule, depth: number): boolean {
    const resolved = resolveCall(this.index, module.path, call, fn);
    const name = callParts(call).callee.split('.').pop()!;
    return resolved.targets.some((ref) => {
      const target = this.index.modules.get(ref.path);
      if (target && thirdPartyName(name, target, this.index)) return this.found(`${name} in ${ref.path} may be a third party's`);
      if (this.committingWrapper(ref.path, ref.qualname)) return this.found(`${last(ref.qualname.replace(/\.__init__$/, ''))}.${this.method} commits each call, so every call is a step of its own`);
      const callee = target && functionsByQualname(target).get(ref.qualname);
      if (!target || !callee) return false;
      return callee.node.descendantsOfType('return_statement').some((statement) => {
        const value = statement.namedChildren[0];
        return isOwnCode(statement, callee.node) && value !== undefined && this.fromOutside(value, callee, target, depth + 1);
      });
    });
  }

  /**
   * An instance of a repository class whose method of the write's name commits (`db.execute(sql)` on a wrapper that
   * ends each call with `conn.commit()`): each call is a step of its own in any mode, which no default mode excuses.
   */
  private committingWrapper(path: string, qualname: string): boolean {
    if (this.method === undefined || /^(commit|rollback)$/.test(this.method)) return false;
    const made = classMadeBy(path, qualname, this.index);
    if (made === undefined) return false;
    return familyMethods(last(made), this.method, this.index).some(({ fn }) => fn.node.descendantsOfType('call').some((call) => callParts(call).method === 'commit' && !underCondition(call, fn.node)));
  }

  /** `self.attr` as the methods of the function's own class in its module set it (`self.conn = conn` in `__init__`). */
  private selfAttributeFromOutside(attribute: string, fn: PyFunction, module: PyModule, depth: number): boolean {
    // any module, any class of the family (a base in another module, a mixin's subclass), unpacked targets too.
    const family = classFamily(last(fn.className!), this.index);
    let assigned = false;
    for (const { target, value, fn: setter, where } of this.assignmentsTo(attribute)) {
      if (target.childForFieldName('object')?.text !== 'self' || setter?.className === undefined || !family.has(last(setter.className))) continue;
      if (setter.name === '__init__') assigned = true;
      if (value && this.fromOutside(value, setter, where, depth + 1)) return true;
    }
    // A third party's base class may set it (`class Store(dbkit.BaseRepository)`), unless the family's own `__init__` does.
    return !assigned && thirdPartyBase(fn, module, this.index) && this.found(`${fn.className} has a third party's base class, which may set self.${attribute}`);
  }

  /** a module-level name: imported from a third party, or given a value at the module's top level or under `global name` in a function. */
  private globalFromOutside(name: string, module: PyModule, depth: number): boolean {
    if (thirdPartyName(name, module, this.index)) return this.found(`${name} is imported from a third party in ${module.path}`);
    for (const writer of listFunctions(module)) {
      const declares = writer.node.descendantsOfType('global_statement').some((statement) => isOwnCode(statement, writer.node) && statement.namedChildren.some((child) => child.text === name));
      if (!declares) continue;
      for (const assignment of writer.node.descendantsOfType('assignment')) {
        if (!isOwnCode(assignment, writer.node) || assignment.childForFieldName('left')?.text !== name) continue;
        const right = assignment.childForFieldName('right');
        if (right && this.fromOutside(right, writer, module, depth + 1)) return true;
      }
    }
    for (const statement of module.tree.rootNode.namedChildren) {
      const assignment = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
      if (assignment?.type !== 'assignment' || assignment.childForFieldName('left')?.text !== name) continue;
      const right = assignment.childForFieldName('right');
      const root = right?.type === 'call' ? callParts(right).callee.split('.')[0] : right?.type === 'attribute' ? right.text.split('.')[0] : undefined;
      if (root !== undefined && thirdPartyName(root, module, this.index)) return this.found(`${module.path}'s ${name} comes from ${root}, a third party's`);
    }
    return false;
  }

  /** Never called in the repository (its caller is outside), or called with a value that itself comes from outside. */
  private parameterFromOutside(name: string, fn: PyFunction, module: PyModule, depth: number): boolean {
    const sites = callSites(fn, module, this.index);
    if (typeof sites === 'string') return this.handedOut(fn, depth);
    if (sites.length === 0) return this.found(`the connection is ${fn.qualname}'s parameter ${name}, which no repository code passes: its callers pick the mode`);
    const position = keywordOnly(fn, name) ? -1 : fn.params.indexOf(name);
    return sites.some(({ call, caller, module: where, unbound }) => {
      const argument = argumentAt(call, name, position, fn, unbound);
      return argument !== undefined && argument !== 'splat' && this.fromOutside(argument, caller, where, depth + 1);
    });
  }

  /**
   * The function is handed, as a value, to a call on an object that itself comes from outside
   * (`host.add_migration(2, _migrate_v2)`, `db.execute_write_fn(create)` on a host's database): the host calls it with its connection.
   */
  private handedOut(fn: PyFunction, depth: number): boolean {
    for (const { call, where } of argumentUses(this.index).get(fn.name) ?? []) {
      const parts = callParts(call);
      if (thirdPartyName(parts.callee.split('.')[0]!, where, this.index)) return this.found(`${fn.qualname} is handed to ${parts.callee}, a third party's, which calls it with its own connection`);
      const place = placeOf(call, where);
      if (parts.receiver !== undefined && place?.fn && this.fromOutside(parts.receiver, place.fn, where, depth + 1)) return true;
    }
    return false;
  }
}

/** By name: every call given a function as an argument (`host.add_migration(2, _migrate_v2)`, `register(self.on_open)`), found once. */
const argumentUses = memoizePer((index: RepoIndex): Map<string, { call: SyntaxNode; where: PyModule }[]> => {
  const uses = new Map<string, { call: SyntaxNode; where: PyModule }[]>();
  for (const where of index.modules.values()) {
    for (const list of where.tree.rootNode.descendantsOfType('argument_list')) {
      const call = list.parent;
      if (call?.type !== 'call') continue;
      for (const argument of list.namedChildren) {
        const value = argument.type === 'keyword_argument' ? argument.childForFieldName('value') : argument;
        const name = value?.type === 'identifier' ? value.text : value?.type === 'attribute' && /^(self|cls)$/.test(value.childForFieldName('object')?.text ?? '') ? value.childForFieldName('attribute')?.text : undefined;
        if (name === undefined) continue;
        const known = uses.get(name);
        if (known) known.push({ call, where });
        else uses.set(name, [{ call, where }]);
      }
    }
  }
  return uses;
});

/** Under an `if`, a conditional expression or a `try` handler within the method: the commit may not run. */
export function underCondition(node: SyntaxNode, fnNode: SyntaxNode): boolean {
  for (let current = node.parent; current && current.id !== fnNode.id; current = current.parent) {
    if (['if_statement', 'conditional_expression', 'except_clause', 'else_clause', 'elif_clause', 'boolean_operator'].includes(current.type)) return true;
  }
  return false;
}
