// The classes a method's `self` can be an instance of, read from a repository index by the bases' last
// dotted names, an import alias read back to the name it imports (`from base import Base as _Base`):
// approximate, and on the wide side (repository-connections.ts, call-sites.ts). A base written as a call
// or a subscript (`six.with_metaclass(Meta, Base)`, `Generic[T]`) leaves the family unknown.
import type { PyFunction, PyModule, SyntaxNode } from '../model.ts';
import type { RepoIndex } from '../callgraph.ts';
import { listFunctions } from '../functions.ts';
import { importBindings } from '../imports.ts';
import { memoizePer } from '../memo.ts';

export function classOf(node: SyntaxNode): string | undefined {
  for (let parent = node.parent; parent; parent = parent.parent) if (parent.type === 'class_definition') return parent.childForFieldName('name')?.text;
  return undefined;
}

export const last = (name: string): string => name.split('.').pop() ?? name;

/** Bases that set no attribute of their subclasses' instances. */
const PLAIN_BASES = new Set(['object', 'ABC', 'Exception', 'BaseException']);

/** A base the reader cannot name, or one from outside the repository: its family may hold anything. */
export const UNKNOWN_BASE = '<unknown base>';

/** The class a resolved call target makes (`Store.__init__`, or the class itself), by its qualname; undefined for a function. */
export function classMadeBy(path: string, qualname: string, index: RepoIndex): string | undefined {
  if (qualname.endsWith('.__init__')) return qualname.slice(0, -'.__init__'.length);
  return index.summaries.get(path)?.classes.has(qualname) ? qualname : undefined;
}

/**
 * The classes whose methods can run with `self` an instance of the class: the class, its subclasses, and every
 * ancestor of any of them (a subclass's mixin may assign the attribute). Holds UNKNOWN_BASE when one is unknown.
 */
const familiesOf = memoizePer((_index: RepoIndex) => new Map<string, Set<string>>());
export function classFamily(className: string, index: RepoIndex): Set<string> {
  const cache = familiesOf(index);
  const known = cache.get(className);
  if (known) return known;
  const family = new Set([className, ...descendantsOf(className, index)]);
  const bases = basesByName(index);
  for (const pending = [...family]; pending.length > 0; ) {
    for (const base of bases.get(pending.pop()!) ?? []) if (!family.has(base)) (family.add(base), pending.push(base));
  }
  cache.set(className, family);
  return family;
}

const basesByName = memoizePer((index: RepoIndex): Map<string, Set<string>> => {
  const bases = new Map<string, Set<string>>();
  for (const summary of index.summaries.values()) {
    const module = index.modules.get(summary.path);
    const aliases = new Map<string, string>();
    for (const binding of module ? importBindings(module) : []) if (binding.name && binding.name !== binding.localName) aliases.set(binding.localName, binding.name);
    for (const [qualname, written] of summary.classes) {
      const named = written.map((base) => (/[()[\]]/.test(base) ? UNKNOWN_BASE : last(aliases.get(base) ?? base)));
      bases.set(last(qualname), new Set([...(bases.get(last(qualname)) ?? []), ...named]));
    }
  }
  // A base from outside the repository may set any attribute in its own methods.
  for (const [name, of] of bases) bases.set(name, new Set([...of].map((base) => (bases.has(base) || PLAIN_BASES.has(base) ? base : UNKNOWN_BASE))));
  return bases;
});

/** The classes that inherit from the class; with `stopAt`, not through a class it holds (one with its own `__init__`). */
export function descendantsOf(className: string, index: RepoIndex, stopAt?: Set<string>): Set<string> {
  const found = new Set<string>();
  const bases = basesByName(index);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, of] of bases) {
      if (found.has(name) || name === className) continue;
      if ([...of].some((base) => base === className || (found.has(base) && !stopAt?.has(base)))) (found.add(name), (grew = true));
    }
  }
  return found;
}

/** The methods named `method` (every method when undefined) of the class's family, with their modules. */
export function familyMethods(className: string, method: string | undefined, index: RepoIndex): { fn: PyFunction; module: PyModule }[] {
  const family = classFamily(className, index);
  return [...family].flatMap((member) => methodsOf(index).get(member) ?? []).filter(({ fn }) => method === undefined || fn.name === method);
}

/** Every method of the repository by its class's last name, found once. */
const methodsOf = memoizePer((index: RepoIndex): Map<string, { fn: PyFunction; module: PyModule }[]> => {
  const methods = new Map<string, { fn: PyFunction; module: PyModule }[]>();
  for (const module of index.modules.values()) {
    for (const fn of listFunctions(module)) {
      if (fn.className === undefined) continue;
      const list = methods.get(last(fn.className));
      if (list) list.push({ fn, module });
      else methods.set(last(fn.className), [{ fn, module }]);
    }
  }
  return methods;
});

/** The last names of every class the repository defines. */
export const repositoryClassNames = memoizePer((index: RepoIndex): Set<string> => {
  const names = new Set<string>();
  for (const summary of index.summaries.values()) for (const qualname of summary.classes.keys()) names.add(last(qualname));
  return names;
});
