// The method a call on an instance of a class runs: the class's own, else
// its bases' (depth first, as Python's MRO for single inheritance). Bases
// are looked up in the class's module and, when the module was indexed with
// its repository (callgraph.ts repoIndexOf), in the repository modules it
// imports them from: `from pkg.mod import Base`, `import pkg.mod as m` with
// `m.Base`, and re-exports a few hops deep.
//
// Strict on purpose (its callers trust what it finds): a base it cannot
// resolve (external, computed, a module matching several files) ends the
// search, since the method might be defined there; and `object` is known
// to define nothing of interest.
// Partial: classes at a module's top level only; a module of a scan that
// keeps no trees (scan-sources.ts) has no index here, so its imported bases
// stay unknown.
import type { PyFunction, PyModule, SyntaxNode } from './model.ts';
import type { ImportBinding } from './imports.ts';
import { importBindings } from './imports.ts';
import { repoIndexOf, type RepoIndex } from './callgraph.ts';
import { functionsByQualname } from './local-resolve.ts';
import { memoizePer } from './memo.ts';

/** A class by its module and name there. */
export interface ClassRef {
  module: PyModule;
  name: string;
}

/** A function with the module whose tree holds it. */
export interface Located {
  fn: PyFunction;
  module: PyModule;
}

/** How far up a chain of bases the search goes (the seen set ends cycles; this, absurdly long chains). */
const MAX_BASE_DEPTH = 12;
/** Re-export hops (`__init__.py` importing the class from a submodule). */
const MAX_REEXPORTS = 3;

/** Undefined when neither the class nor its bases define it, or when a base before the one that does cannot be read. */
export function methodOf(cls: ClassRef, name: string): Located | undefined {
  const found = lookup(cls, name, new Set());
  return found === 'unknown' || found === 'absent' ? undefined : found;
}

/** What `super().name` means in a method of `cls`: the method of its bases, not its own. */
export function methodAbove(cls: ClassRef, name: string): Located | undefined {
  const found = lookup(cls, name, new Set(), false);
  return found === 'unknown' || found === 'absent' ? undefined : found;
}

function lookup(cls: ClassRef, name: string, seen: Set<string>, own = true, depth = 0): Located | 'absent' | 'unknown' {
  const key = `${cls.module.path}\0${cls.name}`;
  if (seen.has(key)) return 'absent';
  if (depth > MAX_BASE_DEPTH) return 'unknown';
  seen.add(key);
  const defined = own ? functionsByQualname(cls.module).get(`${cls.name}.${name}`) : undefined;
  if (defined) return { fn: defined, module: cls.module };
  for (const base of classesOf(cls.module).get(cls.name) ?? []) {
    if (base.text === 'object') continue;
    const baseClass = classNamed(cls.module, base.text);
    if (!baseClass) return 'unknown';
    const inherited = lookup(baseClass, name, seen, true, depth + 1);
    if (inherited !== 'absent') return inherited;
  }
  return 'absent';
}

/** The class a name or dotted name means in the module: one of its own, else (with the repository index) an imported one. */
export function classNamed(module: PyModule, text: string, hops = 0): ClassRef | undefined {
  const parts = text.split('.').map((part) => part.trim());
  if (parts.length === 1 && classesOf(module).has(text)) return { module, name: text };
  const index = repoIndexOf(module);
  if (!index || hops > MAX_REEXPORTS) return undefined;
  const [head, ...rest] = parts as [string, ...string[]];
  const binding = lastBinding(module, head);
  if (!binding) return undefined;
  const dotted = rest.length === 0 ? binding.module : [binding.module, ...(binding.name ? [binding.name] : []), ...rest.slice(0, -1)].join('.');
  const name = rest.length === 0 ? binding.name : rest[rest.length - 1];
  if (name === undefined) return undefined;
  const target = moduleAt(index, dotted);
  return target && classNamed(target, name, hops + 1);
}

/** The binding Python would use at class-definition time, roughly: the module's last import of that name. */
function lastBinding(module: PyModule, localName: string): ImportBinding | undefined {
  return [...importBindings(module)].reverse().find((binding) => !binding.star && binding.localName === localName);
}

/**
 * The parsed module with that dotted name; undefined when it is not in the index, has no tree, or several
 * files match. A repository scanned from inside its package (its root holds `__init__.py`) imports itself
 * by the package's name, which no path shows: `yoyo.backends.base` is then `backends/base.py`.
 */
export function moduleAt(index: RepoIndex, dotted: string): PyModule | undefined {
  const path = pathOf(index, dotted, true) ?? (index.moduleByDotted.has('') && dotted.includes('.') ? pathOf(index, dotted.slice(dotted.indexOf('.') + 1), false) : undefined);
  return path === undefined ? undefined : index.modules.get(path);
}

/** Without `bySuffix` only a file at exactly that name (the package-name guess must not match `x/db/models.py` for `django.db.models`). */
function pathOf(index: RepoIndex, dotted: string, bySuffix: boolean): string | undefined {
  const paths = index.moduleByDotted.get(dotted) ?? [];
  const exact = paths.filter((path) => index.summaries.get(path)?.dotted === dotted);
  return exact.length === 1 ? exact[0] : bySuffix && exact.length === 0 && paths.length === 1 ? paths[0] : undefined;
}

/** Top-level classes of the module by name, with their bases as written (keyword arguments such as metaclass= left out). */
export const classesOf = memoizePer((module: PyModule): Map<string, SyntaxNode[]> => {
  const classes = new Map<string, SyntaxNode[]>();
  for (const child of module.tree.rootNode.namedChildren) {
    const definition = child.type === 'decorated_definition' ? child.childForFieldName('definition') : child;
    if (definition?.type !== 'class_definition') continue;
    const bases = definition.childForFieldName('superclasses')?.namedChildren.filter((base) => base.type !== 'keyword_argument' && base.type !== 'comment') ?? [];
    classes.set(definition.childForFieldName('name')?.text ?? '', bases);
  }
  return classes;
});

/**
 * The classes deriving from `cls`, at any depth: those of its module and, with the repository index,
 * of every indexed module. A `self` in a method of `cls` may be any of them.
 */
export function subclassesOf(cls: ClassRef): ClassRef[] {
  const children = childClasses(cls.module);
  const found: ClassRef[] = [];
  const seen = new Set([classKey(cls)]);
  for (const queue = [cls]; queue.length > 0; ) {
    for (const child of children.get(classKey(queue.shift()!)) ?? []) {
      if (seen.has(classKey(child))) continue;
      seen.add(classKey(child));
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

const classKey = (cls: ClassRef): string => `${cls.module.path}\0${cls.name}`;

// Keyed by the index when there is one (every module of it shares the answer), else by the lone module.
const childrenCache = new WeakMap<object, Map<string, ClassRef[]>>();

function childClasses(module: PyModule): Map<string, ClassRef[]> {
  const index = repoIndexOf(module);
  const holder: object = index ?? module;
  let children = childrenCache.get(holder);
  if (children) return children;
  children = new Map();
  const modules = index ? new Set([...index.modules.values(), module]) : [module];
  for (const each of modules) {
    for (const [name, bases] of classesOf(each)) {
      for (const base of bases) {
        const parent = base.text === 'object' ? undefined : classNamed(each, base.text);
        if (!parent) continue;
        const key = classKey(parent);
        children.set(key, [...(children.get(key) ?? []), { module: each, name }]);
      }
    }
  }
  childrenCache.set(holder, children);
  return children;
}
