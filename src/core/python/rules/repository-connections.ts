// Whether a database call runs on a connection the repository opened itself, in a repository where no
// code can make a connection autocommit (autocommit-switches.ts): then sqlite3's default mode holds its
// writes together up to the commit, whatever module opened it. zim's indexers write on `self.db`, set by
// `IndexerBase.__init__(self, db)` from the `Index`'s `sqlite3.Connection(self.dbpath)`.
//
// The call's receiver is traced back, and every path must end in a repository sqlite3 constructor: a local
// (every binding of it in the function), a module global (every top-level binding, none by `global`), `with X
// as c` (a connection enters as itself, a repository class's instance as what every `__enter__` of its family
// returns, a @contextmanager function as what it yields), `self.attr` in a method (every assignment of it in
// the class's family, literal setattr, class bodies, properties), `module.attr` of a repository module, the
// returns of an exactly resolved call (every override for `self.m()`), `x.cursor()`, `typing.cast(T, v)`, and
// a parameter whose every call site passes such a value. An instance of a repository class is never taken for
// a connection, nor is an attribute of any other object; anything stored some other way (unpacking, a computed
// setattr, `__dict__`, a dataclass field, an unknown base class) is not proven.
//
// Partial, on purpose: the repository is taken as closed. A parameter of a public function is accepted when
// every call of it in the repository passes a repository connection; a library's user may pass another.
// Callbacks registered with code outside the repository are not seen.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { repoIndexOf, resolveCall, type RepoIndex } from '../callgraph.ts';
import { attributeAssignments } from '../attribute-assignments.ts';
import { decoratorTexts, enclosingFunctionNode, listFunctions } from '../functions.ts';
import { functionsByQualname } from '../local-resolve.ts';
import { memoizePer } from '../memo.ts';
import { autocommitSwitches, sqliteConstructors } from './autocommit-switches.ts';
import { isOwnCode, literalText, unparenthesized } from './syntax.ts';
import { argumentAt, callSites, defaultOf, keywordOnly, placeOf } from './call-sites.ts';
import { classFamily, classMadeBy, classOf, familyMethods, last, repositoryClassNames, UNKNOWN_BASE } from './class-family.ts';
import { attributesByName, bindingStatement, referencesTo, setattrArguments, setattrCalls } from './name-references.ts';
import { importBindings } from '../imports.ts';

const MAX_DEPTH = 40;

/** Decorators that leave a function's arguments and returns as written. */
const PLAIN_DECORATORS = /^(staticmethod|classmethod|(functools\.)?(property|cached_property)|(functools\.)?(lru_cache|cache)(\(.*\))?|(abc\.)?abstractmethod|(typing\.)?(override|final))$/;

/** True when `effect` of `fn` runs on a connection the repository made, in a repository that never makes one autocommit. */
export function onRepositoryDefaultConnection(module: PyModule, fn: PyFunction, effect: Effect, trail?: string[]): boolean {
  const index = repoIndexOf(module);
  const switches = index && autocommitSwitches(index);
  if (!index || !switches?.opensConnections || switches.switches.length > 0) return false;
  const site = databaseCallOf(effect, fn, module, index);
  const receiver = site && callParts(site.node).receiver;
  if (!site || receiver === undefined) return false;
  // The three rules ask about the same calls: one answer per receiver (a trail asks afresh).
  const key = `${site.module.path}:${receiver.startIndex}:${receiver.endIndex}`;
  const known = trail ? undefined : answersOf(index).get(key);
  if (known !== undefined) return known;
  const proven = new Tracer(index, trail).origin(receiver, site.fn, site.module, 0);
  answersOf(index).set(key, proven);
  return proven;
}

/** The call that makes the effect, in the function that makes it: the helper's own for an effect reached through a call. */
export function databaseCallOf(effect: Effect, fn: PyFunction, module: PyModule, index: RepoIndex): { node: SyntaxNode; fn: PyFunction; module: PyModule } | undefined {
  let site = { node: effect.node, fn, module };
  if (effect.via) {
    const helperModule = index.modules.get(effect.via.path);
    const helper = helperModule && functionsByQualname(helperModule).get(effect.via.qualname);
    if (!helperModule || !helper || !effect.viaNode) return undefined;
    site = { node: effect.viaNode, fn: helper, module: helperModule };
  }
  return site.node.type === 'call' ? site : undefined;
}

const answersOf = memoizePer((_index: RepoIndex) => new Map<string, boolean>());

type Place = { fn: PyFunction | undefined; module: PyModule };

/**
 * Follows a value back to where it is made. Only sqlite3 connections (and their cursors) count: an instance
 * of a repository class is never taken for one (its methods may commit on each call, open a connection per
 * call, or hand the statement to something else).
 */
class Tracer {
  /** Expressions on the path being traced: met again, a cycle adds no new origin. */
  private readonly visiting = new Set<string>();
  /** How often a cycle was taken as adding nothing: an answer reached without one holds on its own, and is kept. */
  private assumed = 0;

  /** A cached answer for attributes and parameters, shared by every tracer of the index; a `true` kept only when no cycle was assumed. */
  private cached(key: string, compute: () => boolean): boolean {
    const answers = answersOf(this.index);
    const known = this.trail ? undefined : answers.get(key);
    if (known !== undefined) return known;
    const before = this.assumed;
    const answer = compute();
    if (!answer || this.assumed === before) answers.set(key, answer);
    return answer;
  }

  /** `trail`, when given, collects the expressions not traced, innermost first: why a call was not proven. */
  constructor(private readonly index: RepoIndex, private readonly trail?: string[]) {}

  origin(expression: SyntaxNode, fn: PyFunction | undefined, module: PyModule, depth: number): boolean {
    if (depth > MAX_DEPTH) return false;
    const key = `${module.path}:${expression.startIndex}:${expression.endIndex}`;
    if (this.visiting.has(key)) {
      this.assumed++;
      return true;
    }
    this.visiting.add(key);
    try {
      const traced = this.originOf(unparenthesized(expression), { fn, module }, depth + 1);
      if (!traced) this.trail?.push(`${module.path}:${expression.startPosition.row + 1} ${expression.text.slice(0, 60)}`);
      return traced;
    } finally {
      this.visiting.delete(key);
    }
  }

  private originOf(node: SyntaxNode, at: Place, depth: number): boolean {
    const { fn, module } = at;
    switch (node.type) {
      case 'none':
        return true;
      case 'identifier':
        return fn ? this.localOrigin(node.text, fn, module, depth) : this.globalOrigin(node.text, module, depth);
      case 'attribute': {
        const object = node.childForFieldName('object');
        const attribute = node.childForFieldName('attribute')?.text ?? '';
        // `self.attr` in a method: the class family's values. `module.attr`: that repository module's. Any other
        // object (a parameter, a third-party value) may hold an attribute of that name the repository never set.
        if (object?.text === 'self' && fn?.className !== undefined && fn.params[0] === 'self' && !isStatic(fn)) return onOwnInstancesOnly(fn, this.index) && this.attributeOrigin(attribute, last(fn.className), depth);
        const imported = object?.type === 'identifier' ? repositoryModuleNamed(object.text, module, this.index) : undefined;
        return imported !== undefined && this.moduleAttributeOrigin(attribute, imported, depth);
      }
      case 'call':
        return this.callOrigin(node, at, depth);
      case 'conditional_expression':
        return [node.namedChildren[0], node.namedChildren[2]].every((branch) => branch !== undefined && this.origin(branch, fn, module, depth));
      case 'boolean_operator':
        return node.namedChildren.every((side) => this.origin(side, fn, module, depth));
      default:
        return false;
    }
  }

  /** Every binding of the name in the function's own code, and the arguments of its calls when it is a parameter. */
  private localOrigin(name: string, fn: PyFunction, module: PyModule, depth: number): boolean {
    if ((name === 'self' || name === 'cls') && fn.className !== undefined) return false;
    const values = bindingsOf(fn.node, name);
    if (values === undefined) return false;
    const parameter = fn.params.includes(name);
    if (!parameter && values.length === 0) return false;
    for (const value of values) {
      const entered = value.parent?.type === 'as_pattern' && value.parent.parent?.type === 'with_item';
      if (!(entered ? this.entered(value, fn, module, depth) : this.origin(value, fn, module, depth))) return false;
    }
    return !parameter || this.parameterOrigin(name, fn, module, depth);
  }

  /** A module-level name: every top-level binding of it, none by `global` in a function or by any other means. */
  private globalOrigin(name: string, module: PyModule, depth: number): boolean {
    const values = topLevelValues(name, module);
    return values !== undefined && values.length > 0 && values.every((value) => this.origin(value, undefined, module, depth));
  }

  /** `with value as name`: a sqlite3 connection enters as itself; a context manager function as what it yields. */
  private entered(value: SyntaxNode, fn: PyFunction, module: PyModule, depth: number): boolean {
    const node = unparenthesized(value);
    if (node.type !== 'call' || sqliteConstructors(module).has(callParts(node).callee)) return this.origin(node, fn, module, depth);
    const targets = this.targets(node, fn, module, true);
    return targets !== undefined && targets.every((target) => {
      // A repository class's instance enters as what its `__enter__` returns (every one of its family: a subclass may override it).
      if ('className' in target) {
        const enters = classFamily(target.className, this.index).has(UNKNOWN_BASE) ? [] : familyMethods(target.className, '__enter__', this.index);
        return enters.length > 0 && enters.every((enter) => this.returnsOrigin(enter.fn, enter.module, depth));
      }
      const decorators = decoratorTexts(target.fn.node);
      if (decorators.some((text) => /(^|\.)contextmanager$/.test(text))) return decorators.length === 1 && this.yieldsOrigin(target.fn, target.module, depth);
      return this.returnsOrigin(target.fn, target.module, depth);
    });
  }

  private callOrigin(node: SyntaxNode, at: Place, depth: number): boolean {
    const { fn, module } = at;
    const parts = callParts(node);
    if (sqliteConstructors(module).has(parts.callee)) return true;
    if (isTypingCast(parts.callee, module) && parts.positional.length === 2) return this.origin(parts.positional[1]!, fn, module, depth);
    if (parts.method === 'cursor' && parts.receiver) return this.origin(parts.receiver, fn, module, depth);
    const targets = this.targets(node, fn, module);
    return targets !== undefined && targets.every((target) => this.returnsOrigin(target.fn, target.module, depth));
  }

  /**
   * The repository functions a call may run: for `self.m()`/`cls.m()`, every method of that name in the class's
   * family (an override in a subclass runs for its instances). Undefined when any target is a class, lies outside
   * the repository, or the callee's name is also bound by an import or by a second `def` (a fallback definition).
   */
  private targets(call: SyntaxNode, fn: PyFunction | undefined, module: PyModule): { fn: PyFunction; module: PyModule }[] | undefined;
  private targets(call: SyntaxNode, fn: PyFunction | undefined, module: PyModule, classes: true): ({ fn: PyFunction; module: PyModule } | { className: string })[] | undefined;
  private targets(call: SyntaxNode, fn: PyFunction | undefined, module: PyModule, classes = false): ({ fn: PyFunction; module: PyModule } | { className: string })[] | undefined {
    const parts = callParts(call);
    const receiver = parts.receiver?.text;
    // A function some code rebinds (`opener.open_db = apsw.Connection`, `self.connect = factory`) may not be the one read here.
    if (reboundAnywhere(parts.method ?? parts.callee, this.index)) return undefined;
    if (fn?.className !== undefined && (receiver === 'self' || receiver === 'cls' || receiver === 'super()')) {
      const family = classFamily(last(fn.className), this.index);
      if (family.has(UNKNOWN_BASE)) return undefined;
      const methods = familyMethods(last(fn.className), parts.method, this.index);
      return methods.length > 0 && !boundInClassBody(parts.method, family, this.index) ? methods : undefined;
    }
    // The callee's first name bound more than once (an import fallback, a second def) or by the caller itself (`connect=connect`).
    const head = parts.callee.split('.')[0]!;
    if (!/^[A-Za-z_]\w*$/.test(head) || topLevelBindings(head, module) > 1 || (fn && (fn.params.includes(head) || (bindingsOf(fn.node, head)?.length ?? 1) > 0))) return undefined;
    const resolved = resolveCall(this.index, module.path, call, fn);
    if (resolved.resolution !== 'exact' || resolved.targets.length === 0) return undefined;
    const targets: ({ fn: PyFunction; module: PyModule } | { className: string })[] = [];
    for (const ref of resolved.targets) {
      const target = this.index.modules.get(ref.path);
      if (!target) return undefined;
      const made = classMadeBy(ref.path, ref.qualname, this.index);
      if (made !== undefined) {
        if (!classes) return undefined;
        targets.push({ className: last(made) });
        continue;
      }
      const each = functionsByQualname(target).get(ref.qualname);
      if (!each || listFunctions(target).filter((other) => other.qualname === ref.qualname).length > 1 || (each.className === undefined && topLevelBindings(each.name, target) > 1)) return undefined;
      targets.push({ fn: each, module: target });
    }
    return targets;
  }

  private returnsOrigin(callee: PyFunction, module: PyModule, depth: number): boolean {
    if (!plainlyDecorated(callee)) return false;
    const returns = callee.node.descendantsOfType('return_statement').filter((statement) => isOwnCode(statement, callee.node));
    if (returns.length === 0 || callee.node.descendantsOfType('yield').some((each) => isOwnCode(each, callee.node))) return false;
    return returns.every((statement) => {
      const value = statement.namedChildren[0];
      return value !== undefined && this.origin(value, callee, module, depth);
    });
  }

  private yieldsOrigin(callee: PyFunction, module: PyModule, depth: number): boolean {
    const yields = callee.node.descendantsOfType('yield').filter((each) => isOwnCode(each, callee.node));
    return yields.length > 0 && yields.every((each) => {
      const value = each.namedChildren[0];
      return value !== undefined && !/^yield\s+from\b/.test(each.text) && this.origin(value, callee, module, depth);
    });
  }

  /** Every value the attribute can hold, by its name. */
  private attributeOrigin(attribute: string, ownClass: string | undefined, depth: number): boolean {
    return this.cached(`attribute:${attribute}:${ownClass ?? ''}`, () => this.computeAttributeOrigin(attribute, ownClass, depth));
  }

  private computeAttributeOrigin(attribute: string, ownClass: string | undefined, depth: number): boolean {
    const family = ownClass ? classFamily(ownClass, this.index) : undefined;
    const values = attributeValues(attribute, family, this.index);
    if (typeof values === 'string') {
      this.trail?.push(`.${attribute}: ${values}`);
      return false;
    }
    if (values.length === 0) return false;
    return values.every(({ value, fn, module, getter }) => (getter ? this.returnsOrigin(getter, module, depth) : this.origin(value!, fn, module, depth)));
  }

  /** `module.NAME`: every top-level binding of the name in that module, none by `global` or from outside (`module.NAME = v` anywhere). */
  private moduleAttributeOrigin(name: string, module: PyModule, depth: number): boolean {
    if (reboundAnywhere(name, this.index)) return false;
    return this.globalOrigin(name, module, depth);
  }

  /** A parameter: the function has calls in the repository, and each passes (or leaves to its default) a repository connection. */
  private parameterOrigin(name: string, fn: PyFunction, module: PyModule, depth: number): boolean {
    return this.cached(`parameter:${module.path}:${fn.qualname}:${name}`, () => this.computeParameterOrigin(name, fn, module, depth));
  }

  private computeParameterOrigin(name: string, fn: PyFunction, module: PyModule, depth: number): boolean {
    if (!plainlyDecorated(fn)) return false;
    const sites = callSites(fn, module, this.index);
    if (typeof sites === 'string' || sites.length === 0) {
      this.trail?.push(`${fn.qualname}: ${typeof sites === 'string' ? sites : 'never called in the repository'}`);
      return false;
    }
    const position = keywordOnly(fn, name) ? -1 : fn.params.indexOf(name);
    return sites.every(({ call, caller, module: where, unbound }) => {
      const argument = argumentAt(call, name, position, fn, unbound);
      if (argument === 'splat') return false;
      if (argument !== undefined) return this.origin(argument, caller, where, depth);
      const fallback = defaultOf(fn, name);
      return fallback !== undefined && this.defaultOrigin(fallback, fn, module, depth);
    });
  }

  /** A default is evaluated where the `def` is: in the enclosing function, at the module's top level, or in a class body (only None followed). */
  private defaultOrigin(value: SyntaxNode, fn: PyFunction, module: PyModule, depth: number): boolean {
    if (unparenthesized(value).type === 'none') return true;
    const holder = fn.node.parent?.type === 'decorated_definition' ? fn.node.parent.parent : fn.node.parent;
    if (holder?.parent?.type === 'class_definition') return false;
    const enclosing = placeOf(fn.node, module);
    return enclosing !== undefined && this.origin(value, enclosing.fn, module, depth);
  }
}

function plainlyDecorated(fn: PyFunction): boolean {
  return decoratorTexts(fn.node).every((text) => PLAIN_DECORATORS.test(text));
}

/**
 * Every value bound to `name` in the scope's own code (a function, or a module's top level), undefined when
 * it is bound in a way not followed: unpacking, a loop, an import, `except ... as`, `global`, augmented, a
 * nested `def`. A `with ... as name` value is its item's expression.
 */
export function bindingsOf(scope: SyntaxNode, name: string): SyntaxNode[] | undefined {
  // A nested function's `nonlocal name` or any function's `global name` rebinds it where this reader does not look.
  if (scope.descendantsOfType(['global_statement', 'nonlocal_statement']).some((statement) => statement.namedChildren.some((child) => child.text === name))) return undefined;
  // `case conn:` in a match statement binds the name too.
  if (scope.descendantsOfType('case_clause').some((clause) => clause.descendantsOfType('identifier').some((child) => child.text === name))) return undefined;
  const values: SyntaxNode[] = [];
  const own = (node: SyntaxNode) => (scope.type === 'module' ? enclosingFunctionNode(node) === undefined && !classOf(node) !== undefined : isOwnCode(node, scope));
  for (const node of scope.descendantsOfType(['assignment', 'augmented_assignment', 'for_statement', 'for_in_clause', 'named_expression', 'as_pattern', 'global_statement', 'nonlocal_statement', 'import_statement', 'import_from_statement', 'function_definition', 'class_definition', 'delete_statement'])) {
    if (!own(node)) continue;
    switch (node.type) {
      case 'assignment': {
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        if (left?.type === 'identifier') {
          if (left.text === name) {
            if (!right || right.type === 'assignment') return undefined;
            values.push(right);
          }
        } else if (left && bindsName(left, name)) return undefined;
        break;
      }
      case 'named_expression':
        if (node.childForFieldName('name')?.text === name) values.push(node.childForFieldName('value')!);
        break;
      case 'as_pattern': {
        const alias = node.childForFieldName('alias');
        if (!alias || !bindsName(alias, name)) break;
        const item = node.parent;
        if (item?.type !== 'with_item' || alias.namedChildren[0]?.type !== 'identifier') return undefined;
        values.push(node.namedChildren[0]!);
        break;
      }
      case 'function_definition':
      case 'class_definition':
        if (node.childForFieldName('name')?.text === name) return undefined;
        break;
      case 'augmented_assignment':
      case 'for_statement':
      case 'for_in_clause':
      case 'delete_statement':
        if (bindsName(node.childForFieldName('left') ?? node, name)) return undefined;
        break;
      default:
        if (node.descendantsOfType(['identifier', 'dotted_name']).some((child) => child.text === name)) return undefined;
    }
  }
  return values;
}

function bindsName(target: SyntaxNode, name: string): boolean {
  return target.type === 'identifier' ? target.text === name : target.type !== 'attribute' && target.type !== 'subscript' && target.namedChildren.some((child) => bindsName(child, name));
}



/** A module's top-level bindings of the name; undefined when some are not followed or a function declares it `global`. */
function topLevelValues(name: string, module: PyModule): SyntaxNode[] | undefined {
  return bindingsOf(module.tree.rootNode, name);
}

interface AttributeValue {
  value?: SyntaxNode;
  fn: PyFunction | undefined;
  module: PyModule;
  /** A property's getter, whose returns are the value. */
  getter?: PyFunction;
}

const DATACLASS = /^(dataclasses\.)?dataclass\b|^(attr|attrs)\.(s|define|frozen|mutable)\b|^(define|frozen|attrs)\b/;

/**
 * What `.attribute` can hold, by its name: every `x.attribute = v` (of `self`, only in the family's classes),
 * `setattr`/`__setattr__` of that literal name, a class body's `attribute = v`, a module's top-level binding of
 * it (`db.CONN`), and a property of that name. Else why not: it is stored some other way (unpacking, `with ...
 * as x.attr`, `__dict__`, a computed setattr that may name it, a dataclass field), or the family is unknown.
 */
const valuesOf = memoizePer((_index: RepoIndex) => new Map<string, AttributeValue[] | string>());
function attributeValues(attribute: string, family: Set<string> | undefined, index: RepoIndex): AttributeValue[] | string {
  const cache = valuesOf(index);
  const key = `${attribute}\0${family ? [...family].sort().join(',') : ''}`;
  let values = cache.get(key);
  if (values === undefined) cache.set(key, (values = computeAttributeValues(attribute, family, index)));
  return values;
}

function computeAttributeValues(attribute: string, family: Set<string> | undefined, index: RepoIndex): AttributeValue[] | string {
  if (family?.has(UNKNOWN_BASE)) return 'a class of the family has a base the reader cannot name';
  const values: AttributeValue[] = [];
  const inFamily = (node: SyntaxNode): boolean => !family || family.has(classOf(node) ?? '');
  // `self.x = v` / `setattr(self, ...)` in a method (not static) of a class outside the family is another object's;
  // anywhere else (a module function `def f(self, ...)`, a staticmethod) `self` may be any object.
  const otherClassSelf = (node: SyntaxNode, module: PyModule): boolean => {
    const fn = placeOf(node, module)?.fn;
    return family !== undefined && fn?.className !== undefined && fn.params[0] === 'self' && !isStatic(fn) && classOf(fn.node) === last(fn.className) && !family.has(last(fn.className));
  };
  for (const module of index.modules.values()) {
    const recorded = new Set<number>();
    for (const assignment of attributeAssignments(module).whole.get(attribute) ?? []) {
      recorded.add(assignment.target.id);
      if (assignment.target.childForFieldName('object')?.text === 'self' && otherClassSelf(assignment.target, module)) continue;
      if (assignment.augmented) return `augmented at ${module.path}:${assignment.target.startPosition.row + 1}`;
      let value = assignment.value;
      if (assignment.position !== undefined) {
        const right = unparenthesized(assignment.value);
        const element = right.type === 'tuple' || right.type === 'expression_list' ? right.namedChildren[assignment.position] : undefined;
        if (!element || right.namedChildren.some((child) => child.type === 'list_splat')) return `unpacked at ${module.path}:${assignment.target.startPosition.row + 1}`;
        value = element;
      }
      const place = placeOf(assignment.target, module);
      if (!place) return `no function holds ${module.path}:${assignment.target.startPosition.row + 1}`;
      values.push({ value, ...place });
    }
    for (const stored of storedElsewhere(attribute, module)) {
      if (recorded.has(stored.id)) continue;
      if (stored.childForFieldName('object')?.text === 'self' && otherClassSelf(stored, module)) continue;
      return `stored at ${module.path}:${stored.startPosition.row + 1}`;
    }
    for (const call of setattrCalls(module)) {
      const { object, name, value } = setattrArguments(call);
      // On self of a class outside the family: not this object.
      if (object?.text === 'self' && otherClassSelf(call, module)) continue;
      if (name?.type !== 'string' || name.descendantsOfType('interpolation').length > 0) return `setattr with a computed name at ${module.path}:${call.startPosition.row + 1}`;
      if (literalText(name) !== attribute) continue;
      const place = placeOf(call, module);
      if (!place || !value) return `setattr at ${module.path}:${call.startPosition.row + 1}`;
      values.push({ value, ...place });
    }
    if (/__dict__|\bvars\s*\(/.test(module.source)) return `an instance's __dict__ or vars() reached in ${module.path}`;
    for (const definition of module.tree.rootNode.descendantsOfType('class_definition')) {
      const name = definition.childForFieldName('name')?.text ?? '';
      if (family && !family.has(name)) continue;
      if (decoratorTexts(definition).some((text) => DATACLASS.test(text)) || /\b(NamedTuple|TypedDict|BaseModel)\b/.test(definition.childForFieldName('superclasses')?.text ?? '')) return `${name} is a dataclass-like class`;
      for (const statement of definition.childForFieldName('body')?.namedChildren ?? []) {
        const assignment = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
        const left = assignment?.type === 'assignment' ? assignment.childForFieldName('left') : undefined;
        const right = assignment?.childForFieldName('right');
        if (left?.text !== attribute) continue;
        if (!right) return `${name}.${attribute} declared without a value`;
        const parts = right.type === 'call' ? callParts(right) : undefined;
        if (parts && /^(functools\.)?(property|cached_property)$/.test(parts.callee)) {
          const getter = listFunctions(module).find((fn) => fn.name === parts.positional[0]?.text && fn.className !== undefined && last(fn.className) === name);
          if (!getter || parts.positional.length !== 1) return `property ${name}.${attribute}`;
          values.push({ fn: undefined, module, getter });
        } else values.push({ value: right, fn: undefined, module });
      }
    }
    if (!family) {
      const top = topLevelValues(attribute, module);
      if (top === undefined) return `${module.path} binds ${attribute} in a way not followed`;
      for (const value of top) values.push({ value, fn: undefined, module });
    }
    for (const fn of listFunctions(module)) {
      if (fn.name !== attribute || fn.className === undefined || (family && !family.has(last(fn.className)))) continue;
      const decorators = decoratorTexts(fn.node);
      if (decorators.length === 0) continue;
      if (decorators.length !== 1 || !/^(functools\.)?(property|cached_property)$/.test(decorators[0]!)) return `${fn.qualname} is decorated`;
      values.push({ fn: undefined, module, getter: fn });
    }
  }
  return values;
}

/** `.attribute` as a target other than a plain assignment's: `with ... as x.attr`, `for x.attr in`, `[x.attr, y] = ...` (`del x.attr` leaves no value to use). */
function storedElsewhere(attribute: string, module: PyModule): SyntaxNode[] {
  return (attributesByName(module).get(attribute) ?? []).filter((node) => {
    const statement = bindingStatement(node);
    return statement !== undefined && statement.type !== 'delete_statement';
  });
}


/** `typing.cast` (or typing_extensions'), under the name the module imports it by. */
function isTypingCast(callee: string, module: PyModule): boolean {
  if (/^typing(_extensions)?\.cast$/.test(callee)) return true;
  return callee === 'cast' && topLevelBindings('cast', module) === 1 && importBindings(module).some((binding) => binding.localName === 'cast' && binding.name === 'cast' && /^typing(_extensions)?$/.test(binding.module));
}

/** A name bound in a class body of the family (`get_conn = lambda self: ...`): a method the reader of defs does not see. */
function boundInClassBody(name: string, family: Set<string>, index: RepoIndex): boolean {
  return [...family].some((member) => classBodyNames(index).get(member)?.has(name));
}

const classBodyNames = memoizePer((index: RepoIndex): Map<string, Set<string>> => {
  const names = new Map<string, Set<string>>();
  for (const module of index.modules.values()) {
    for (const definition of module.tree.rootNode.descendantsOfType('class_definition')) {
      const bound = names.get(definition.childForFieldName('name')?.text ?? '') ?? new Set<string>();
      for (const statement of definition.childForFieldName('body')?.namedChildren ?? []) {
        const assignment = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
        if (assignment?.type === 'assignment') bound.add(assignment.childForFieldName('left')?.text ?? '');
      }
      names.set(definition.childForFieldName('name')?.text ?? '', bound);
    }
  }
  return names;
});

/**
 * The method runs only with `self` an instance of its class: it is never called through a class with another
 * object first (`Store.move(other, ...)`) nor taken as a value (`move = Store.move`), by its name anywhere.
 */
const ownInstancesOf = memoizePer((_index: RepoIndex) => new Map<string, boolean>());
function onOwnInstancesOnly(fn: PyFunction, index: RepoIndex): boolean {
  const cache = ownInstancesOf(index);
  let answer = cache.get(fn.name);
  if (answer === undefined) cache.set(fn.name, (answer = calledOnOwnInstances(fn, index)));
  return answer;
}

function calledOnOwnInstances(fn: PyFunction, index: RepoIndex): boolean {
  const classNames = repositoryClassNames(index);
  for (const module of index.modules.values()) {
    for (const { call } of referencesTo(module, fn.name, true)) {
      if (!call) return false;
      const receiver = callParts(call).receiver?.text ?? '';
      if (classNames.has(last(receiver))) return false;
    }
  }
  return true;
}

/** How many times a module's top level binds the name: imports, defs, classes, assignments (in try/except arms too). */
const topLevelCounts = memoizePer((module: PyModule): Map<string, number> => {
  const counts = new Map<string, number>();
  const add = (name: string | undefined): void => {
    if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  for (const binding of importBindings(module)) add(binding.localName);
  for (const node of module.tree.rootNode.descendantsOfType(['function_definition', 'class_definition', 'assignment'])) {
    if (enclosingFunctionNode(node) !== undefined || classOf(node) !== undefined) continue;
    if (node.type === 'assignment') {
      const left = node.childForFieldName('left');
      for (const name of left?.type === 'identifier' ? [left] : left?.descendantsOfType('identifier') ?? []) add(name.text);
    } else add(node.childForFieldName('name')?.text);
  }
  return counts;
});

function topLevelBindings(name: string, module: PyModule): number {
  // `from x import *` may bind any name.
  if (importBindings(module).some((binding) => binding.star)) return Infinity;
  return topLevelCounts(module).get(name) ?? 0;
}

/** Names assigned as attributes anywhere (`x.name = v`, `setattr(x, 'name', v)`): a method or module function of that name may be replaced. */
function reboundAnywhere(name: string, index: RepoIndex): boolean {
  return reboundNames(index).has(last(name));
}

const reboundNames = memoizePer((index: RepoIndex): Set<string> => {
  const names = new Set<string>();
  for (const module of index.modules.values()) {
    for (const attribute of attributeAssignments(module).whole.keys()) names.add(attribute);
    for (const call of setattrCalls(module)) {
      const { name } = setattrArguments(call);
      if (name?.type === 'string') names.add(literalText(name));
    }
  }
  return names;
});

function isStatic(fn: PyFunction): boolean {
  return decoratorTexts(fn.node).some((text) => /(^|\.)(staticmethod|classmethod)$/.test(text));
}

/** The repository module an `import pkg.mod as name` / `from pkg import mod` binds to the name, if only that binds it. */
function repositoryModuleNamed(name: string, module: PyModule, index: RepoIndex): PyModule | undefined {
  if (topLevelBindings(name, module) !== 1) return undefined;
  const binding = importBindings(module).find((each) => each.localName === name);
  if (!binding || binding.star) return undefined;
  const dotted = binding.name ? `${binding.module}.${binding.name}` : binding.module;
  const paths = index.moduleByDotted.get(dotted);
  return paths?.length === 1 ? index.modules.get(paths[0]!) : undefined;
}
