// Every call in a repository that may run a function, and the argument each passes for a parameter
// (repository-connections.ts follows a connection parameter to its callers). Calls are found by name
// (name-references.ts): a method's as an attribute, a class's instantiations by its name, its subclasses'
// without an `__init__` of their own, `super().__init__`/`Base.__init__` in subclasses, and `cls(...)`,
// `type(self)(...)`, `self.__class__(...)` in the family. A name used otherwise, or handed to getattr as a
// string, means the function may be called unseen: then there is no answer.
import type { PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { resolveCall, type RepoIndex } from '../callgraph.ts';
import { decoratorTexts, enclosingFunctionNode, listedFunction, listFunctions } from '../functions.ts';
import { isOwnCode } from './syntax.ts';
import { memoizePer } from '../memo.ts';
import { getattrComputed, namedForGetattr, referencesTo } from './name-references.ts';
import { classFamily, classOf, descendantsOf, familyMethods, last, repositoryClassNames, UNKNOWN_BASE } from './class-family.ts';
import { importBindings } from '../imports.ts';

export interface CallSite {
  call: SyntaxNode;
  caller: PyFunction | undefined;
  module: PyModule;
  /** Called through its class (`Base.__init__(self, db)`): `self` is passed as the first argument. */
  unbound: boolean;
}

/**
 * Every call in the repository that may run the function, by its name (a class's for `__init__`, and its
 * subclasses' without their own `__init__`, and `__init__` calls in subclasses): undefined when the name is
 * used otherwise (taken as a value, spelled in a string for getattr), so the function may be called unseen.
 */
const sitesOf = memoizePer((_index: RepoIndex) => new Map<PyFunction, CallSite[] | string>());
export function callSites(fn: PyFunction, module: PyModule, index: RepoIndex): CallSite[] | string {
  const cache = sitesOf(index);
  let sites = cache.get(fn);
  if (sites === undefined) cache.set(fn, (sites = findCallSites(fn, module, index)));
  return sites;
}

function findCallSites(fn: PyFunction, module: PyModule, index: RepoIndex): CallSite[] | string {
  const className = fn.className?.split('.').pop();
  const isInit = fn.name === '__init__' && className !== undefined;
  const names = new Set<string>();
  const subclasses = isInit ? descendantsOf(className, index) : new Set<string>();
  if (isInit) {
    names.add(className);
    const ownInit = new Set(familyMethods(className, '__init__', index).map(({ fn: each }) => last(each.className!)));
    // A subclass without an __init__ of its own runs this one when made; one with its own calls it through super().
    for (const subclass of descendantsOf(className, index, ownInit)) if (!ownInit.has(subclass)) names.add(subclass);
  } else names.add(fn.name);
  if (isInit && classFamily(className, index).has(UNKNOWN_BASE)) return `a class of ${className}'s family has a base the reader cannot name`;
  const classNames = repositoryClassNames(index);
  const sites: CallSite[] = [];
  for (const each of index.modules.values()) {
    for (const name of names) if (namedForGetattr(each, name)) return `getattr names ${name} in ${each.path}`;
    if (getattrComputed(each)) return `getattr with a computed name in ${each.path} may reach ${fn.name}`;
    const aliased = importBindings(each).find((binding) => binding.name !== undefined && names.has(binding.name) && binding.localName !== binding.name);
    if (aliased) return `${aliased.name} imported as ${aliased.localName} in ${each.path}`;
    const references = [...names].flatMap((name) => referencesTo(each, name, fn.className !== undefined && !isInit));
    if (isInit) references.push(...referencesTo(each, '__init__', true).map((reference) => ({ ...reference, init: true })));
    for (const reference of references) {
      const calledInit = 'init' in reference;
      if (calledInit) {
        // `super().__init__(db)` / `Base.__init__(self, db)` in a subclass, `self.__init__(db)` in the class; any other class's __init__ is not this one.
        const inClass = classOf(reference.use);
        if (!inClass || (inClass !== className && !subclasses.has(inClass))) continue;
      }
      const call = reference.call;
      if (!call) {
        if (isInit && !calledInit && checksType(reference.use)) continue;
        return `${reference.use.text} used as a value at ${each.path}:${reference.use.startPosition.row + 1}`;
      }
      const callee = call.childForFieldName('function')!;
      const place = placeOf(call, each);
      if (!place) return `no function holds the call at ${each.path}:${call.startPosition.row + 1}`;
      const receiver = callParts(call).receiver?.text ?? '';
      // `self.m()` may run a subclass's override: never left out by the resolver's one answer.
      const onSelf = /^(self|cls|super\(\))$/.test(receiver);
      const resolved = resolveCall(index, each.path, call, place.fn);
      if (!calledInit && !onSelf && resolved.resolution === 'exact' && resolved.targets.length > 0 && !resolved.targets.some((target) => target.path === module.path && (target.qualname === fn.qualname || target.qualname === fn.className))) continue;
      // Through the class (`Base.__init__(self, db)`, `Store.move(store, conn)`): self is passed; a classmethod's cls never is.
      const unbound = callee.type === 'attribute' && classNames.has(last(receiver)) && !isClassmethod(fn);
      sites.push({ call, caller: place.fn, module: each, unbound });
    }
  }
  if (isInit) {
    const dynamic = dynamicInstantiations(className, index);
    if (typeof dynamic === 'string') return dynamic;
    sites.push(...dynamic);
  }
  return sites;
}

function isClassmethod(fn: PyFunction): boolean {
  return decoratorTexts(fn.node).some((text) => /(^|\.)classmethod$/.test(text));
}

/**
 * `cls(...)` in a classmethod, `type(self)(...)` and `self.__class__(...)` in a method, of the class's family:
 * each may make an instance of the class (zim's `TasksIndexer.new_from_index`: `return cls(index._db, ...)`).
 */
function dynamicInstantiations(className: string, index: RepoIndex): CallSite[] | string {
  const sites: CallSite[] = [];
  const family = classFamily(className, index);
  for (const module of index.modules.values()) {
    for (const fn of listFunctions(module)) {
      if (fn.className === undefined || !family.has(last(fn.className))) continue;
      const cls = isClassmethod(fn) ? fn.params[0] : undefined;
      for (const use of fn.node.descendantsOfType(['identifier', 'attribute', 'call'])) {
        if (!isOwnCode(use, fn.node)) continue;
        const text = use.text.replace(/\s+/g, '');
        const classValued = (use.type === 'identifier' && text === cls) || (use.type === 'call' && /^type\(\w+\)$/.test(text)) || (use.type === 'attribute' && /\.__class__$/.test(text));
        if (!classValued) continue;
        const call = use.parent?.type === 'call' && use.parent.childForFieldName('function')?.id === use.id ? use.parent : undefined;
        if (call) sites.push({ call, caller: fn, module, unbound: false });
        // `cls.helper()`, `type(self).__name__`: read, not made; anything else (`make = type(self)`) may make one unseen.
        else if (use.parent?.type !== 'attribute' || use.parent.childForFieldName('object')?.id !== use.id) {
          if (!(use.type === 'identifier' && use.parent?.type === 'parameters')) return `${use.text} used as a value at ${module.path}:${use.startPosition.row + 1}`;
        }
      }
    }
  }
  return sites;
}

/** The argument a call passes for the parameter at `position` (counting self), 'splat' when it cannot be told. */
export function argumentAt(call: SyntaxNode, name: string, position: number, fn: PyFunction, unbound: boolean): SyntaxNode | 'splat' | undefined {
  const parts = callParts(call);
  const keyword = parts.keywords.get(name);
  if (keyword) return keyword;
  if (parts.positional.some((argument) => argument.type === 'list_splat' || argument.type === 'dictionary_splat')) return 'splat';
  if (position < 0) return undefined;
  const bound = fn.className !== undefined && !decoratorTexts(fn.node).some((text) => /(^|\.)staticmethod$/.test(text)) && !unbound ? 1 : 0;
  return parts.positional[position - bound];
}

/** After `*` or `*args`: passed by keyword only. */
export function keywordOnly(fn: PyFunction, name: string): boolean {
  for (const parameter of fn.node.childForFieldName('parameters')?.namedChildren ?? []) {
    const inner = parameter.type === 'typed_parameter' ? parameter.namedChildren[0] : parameter;
    if (inner?.type === 'list_splat_pattern' || inner?.type === 'keyword_separator') return true;
    const own = parameter.type === 'identifier' ? parameter : parameter.childForFieldName('name') ?? inner;
    if (own?.text === name) return false;
  }
  return false;
}

export function defaultOf(fn: PyFunction, name: string): SyntaxNode | undefined {
  for (const parameter of fn.node.childForFieldName('parameters')?.namedChildren ?? []) {
    if ((parameter.type === 'default_parameter' || parameter.type === 'typed_default_parameter') && parameter.childForFieldName('name')?.text === name) return parameter.childForFieldName('value') ?? undefined;
  }
  return undefined;
}

/** `isinstance(x, Store)`, `issubclass(k, Store)`, `except Store:`: the class named, not made. */
function checksType(use: SyntaxNode): boolean {
  let node = use;
  while (node.parent?.type === 'tuple') node = node.parent;
  const parent = node.parent;
  if (parent?.type === 'except_clause') return true;
  return parent?.type === 'argument_list' && parent.parent?.type === 'call' && /^(isinstance|issubclass)$/.test(callParts(parent.parent).callee) && parent.namedChildren[1]?.id === node.id;
}

/** Where a node is: the listed function around it (none at module level), in its module; undefined when that function is not listed. */
export function placeOf(node: SyntaxNode, module: PyModule): { fn: PyFunction | undefined; module: PyModule } | undefined {
  const fnNode = enclosingFunctionNode(node);
  if (!fnNode) return { fn: undefined, module };
  const fn = listedFunction(fnNode, module);
  return fn ? { fn, module } : undefined;
}
