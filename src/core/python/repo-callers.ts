// Every call in the indexed repository that can reach a top-level function, found by its name
// (caller-wrapper.ts asks: yoyo's internalmigrations/v2.upgrade is reached only through
// `schema_versions[next_version].upgrade(backend)`, a dict of imported modules). Each identifier
// spelled like the function, in every module of the index, is its own or another `def`'s name, a
// plain `from m import name`, or the callee of a call; anything else (`f = mod.upgrade`, a
// callback, an alias `import ... as`, a string spelled like it for getattr) lets the function
// escape, and then there is no answer. A call whose targets are known (the call graph's exact
// resolution, an import of a repository module, a dict of imported modules never changed) and
// exclude the function is left out; every other call so spelled is kept: it may reach it.
// Partial: `getattr(obj, computed_name)` is not seen (the repository is taken as closed: code
// outside it calling the function is not seen either); no answer without the modules' trees.
import Parser from 'tree-sitter';
import Python from 'tree-sitter-python';
import type { PyFunction, PyModule, SyntaxNode } from './model.ts';
import { repoIndexOf, resolveCall, type RepoIndex } from './callgraph.ts';
import { decoratorTexts, enclosingFunctionNode, listedFunction } from './functions.ts';
import { importBindings } from './imports.ts';
import { functionsByQualname } from './local-resolve.ts';
import { moduleAt } from './inherited-methods.ts';
import { calleeTextOf } from './module-facts.ts';

/** A function with the module whose tree holds it. */
export interface Placed {
  fn: PyFunction;
  module: PyModule;
}

export interface RepoCallSite {
  call: SyntaxNode;
  /** The function the call is written in; undefined at module level. */
  caller?: PyFunction;
  module: PyModule;
}

/** Whether `fn` is a plain top-level function: what this file can find every call of. */
export function plainTopLevel(fn: PyFunction): boolean {
  return fn.className === undefined && fn.qualname === fn.name && decoratorTexts(fn.node).length === 0;
}

// Keyed by the index too: a module indexed again may have other callers.
const answers = new WeakMap<PyFunction, { index: RepoIndex; sites: RepoCallSite[] | undefined }>();

/** The calls that may reach the top-level function, at least one; undefined when it escapes or the index cannot tell. */
export function everyRepoCallOf(fn: PyFunction, module: PyModule): RepoCallSite[] | undefined {
  const index = repoIndexOf(module);
  if (!index || !plainTopLevel(fn) || index.modules.size !== index.summaries.size) return undefined;
  const cached = answers.get(fn);
  if (cached?.index === index) return cached.sites;
  const sites = findEveryCall(fn, index);
  answers.set(fn, { index, sites });
  return sites;
}

function findEveryCall(fn: PyFunction, index: RepoIndex): RepoCallSite[] | undefined {
  const sites: RepoCallSite[] = [];
  for (const each of index.modules.values()) {
    if (literalStrings(fn.name, each) > 0) return undefined;
    for (const use of identifiersNamed(fn.name, each)) {
      const parent = use.parent;
      if (parent?.type === 'function_definition' && parent.childForFieldName('name')?.id === use.id) continue;
      if (parent?.type === 'keyword_argument' && parent.childForFieldName('name')?.id === use.id) continue;
      if (plainFromImport(use)) continue;
      const call = callNamedBy(use);
      if (!call) return undefined;
      const targets = targetsOf(call, each, index);
      if (targets && !targets.some((target) => target.fn === fn)) continue;
      const callerNode = enclosingFunctionNode(call);
      const caller = callerNode && listedFunction(callerNode, each);
      sites.push(caller ? { call, caller, module: each } : { call, module: each });
    }
  }
  return sites.length > 0 ? sites : undefined;
}

/** The call whose callee `use` names: `name(...)` or `<anything>.name(...)`. */
function callNamedBy(use: SyntaxNode): SyntaxNode | undefined {
  const parent = use.parent;
  const callee = parent?.type === 'attribute' && parent.childForFieldName('attribute')?.id === use.id ? parent : use;
  const call = callee.parent;
  return call?.type === 'call' && call.childForFieldName('function')?.id === callee.id ? call : undefined;
}

/** `from m import name` without `as`: the name's later uses in that module are found as identifiers too. */
function plainFromImport(use: SyntaxNode): boolean {
  const dotted = use.parent;
  return dotted?.type === 'dotted_name' && dotted.parent?.type === 'import_from_statement' && dotted.parent.childForFieldName('module_name')?.id !== dotted.id;
}

/**
 * The functions a call can run when they are known: the call graph's exact target, `mod.f(...)` with
 * `mod` an imported repository module (also as the package's own name, when scanned from inside it), or
 * `table[key].f(...)` with `table` a dict of imported modules. Undefined otherwise.
 */
export function targetsOf(call: SyntaxNode, module: PyModule, index: RepoIndex): Placed[] | undefined {
  const resolved = resolveCall(index, module.path, call);
  if (resolved.resolution === 'exact') {
    const placed = resolved.targets.map((target) => placedAt(index, target.path, target.qualname));
    return placed.every((each) => each !== undefined) ? (placed as Placed[]) : undefined;
  }
  const callee = call.childForFieldName('function');
  if (callee?.type !== 'attribute') return undefined;
  const name = callee.childForFieldName('attribute')?.text ?? '';
  const receiver = callee.childForFieldName('object');
  if (receiver?.type === 'identifier') {
    const target = importedModule(module, receiver.text, index);
    const fn = target && functionsByQualname(target).get(name);
    return fn && target ? [{ fn, module: target }] : undefined;
  }
  if (receiver?.type === 'subscript') {
    const table = receiver.childForFieldName('value');
    const modules = table?.type === 'identifier' ? modulesOfTable(table.text, module, index) : undefined;
    // A module without the function raises AttributeError there: it runs nothing.
    return modules?.flatMap((each) => {
      const fn = functionsByQualname(each).get(name);
      return fn && fn.qualname === fn.name ? [{ fn, module: each }] : [];
    });
  }
  return undefined;
}

function placedAt(index: RepoIndex, path: string, qualname: string): Placed | undefined {
  const module = index.modules.get(path);
  const fn = module && functionsByQualname(module).get(qualname);
  return fn && module ? { fn, module } : undefined;
}

/** The repository module a name is bound to by the module's only import of it (`from yoyo import internalmigrations`). */
function importedModule(module: PyModule, localName: string, index: RepoIndex): PyModule | undefined {
  const bindings = importBindings(module).filter((binding) => !binding.star && binding.localName === localName);
  if (bindings.length !== 1 || rebound(localName, module)) return undefined;
  const binding = bindings[0]!;
  return moduleAt(index, binding.name === undefined ? binding.module : `${binding.module}.${binding.name}`);
}

/**
 * `schema_versions = {0: None, 1: v1, 2: v2}`: a top-level name bound once to a dict (or list/tuple)
 * literal whose values are None or imported repository modules, only read in its module (subscripted,
 * passed, compared) and named by no other module (none can change it). Undefined otherwise.
 */
function modulesOfTable(name: string, module: PyModule, index: RepoIndex): PyModule[] | undefined {
  const uses = identifiersNamed(name, module);
  const bound = uses.filter((use) => use.parent?.type === 'assignment' && use.parent.childForFieldName('left')?.id === use.id);
  const [binding] = bound;
  if (bound.length !== 1 || binding!.parent!.parent?.parent?.type !== 'module') return undefined;
  if (!uses.every((use) => use === binding || readOnly(use))) return undefined;
  for (const other of index.modules.values()) if (other !== module && wordCount(name, other.source) > 0) return undefined;
  const literal = binding!.parent!.childForFieldName('right');
  const values =
    literal?.type === 'dictionary'
      ? literal.namedChildren.map((pair) => (pair.type === 'pair' ? pair.childForFieldName('value') : null))
      : literal?.type === 'list' || literal?.type === 'tuple'
        ? literal.namedChildren
        : undefined;
  const modules: PyModule[] = [];
  for (const value of values ?? [undefined]) {
    if (value?.type === 'none') continue;
    const target = value?.type === 'identifier' ? importedModule(module, value.text, index) : undefined;
    if (!target) return undefined;
    modules.push(target);
  }
  return modules;
}

/** `t[k]` read (not assigned or deleted), `f(t)`, `k in t`: nothing that changes the table. */
function readOnly(use: SyntaxNode): boolean {
  const parent = use.parent;
  if (parent?.type === 'argument_list' || parent?.type === 'comparison_operator') return true;
  if (parent?.type !== 'subscript' || parent.childForFieldName('value')?.id !== use.id) return false;
  const holder = parent.parent;
  const assigned = (holder?.type === 'assignment' || holder?.type === 'augmented_assignment') && holder.childForFieldName('left')?.id === parent.id;
  return !assigned && holder?.type !== 'delete_statement';
}

/** Bound again anywhere in the module (assigned, a loop or `as` target, a parameter...): beyond its import. */
function rebound(name: string, module: PyModule): boolean {
  return identifiersNamed(name, module).some((use) => {
    const parent = use.parent;
    if (!parent) return false;
    if ((parent.type === 'assignment' || parent.type === 'augmented_assignment' || parent.type === 'for_statement') && parent.childForFieldName('left')?.id === use.id) return true;
    return ['as_pattern_target', 'parameters', 'default_parameter', 'typed_parameter', 'global_statement', 'pattern_list', 'tuple_pattern', 'named_expression'].includes(parent.type);
  });
}

/** The identifiers spelled `name`, found natively. */
export function identifiersNamed(name: string, module: PyModule): SyntaxNode[] {
  // Most modules never spell the name: skip the native query for them.
  if (!module.source.includes(name)) return [];
  let query = queries.get(name);
  if (queries.size > 256) queries.clear();
  if (!query) queries.set(name, (query = new Parser.Query(Python as Parser.Language, `((identifier) @use (#eq? @use "${name}"))`)));
  return query.captures(module.tree.rootNode).map(({ node }) => node);
}

const queries = new Map<string, Parser.Query>();

/** Strings whose whole content is the name: `getattr(mod, "upgrade")`, `__all__`. */
function literalStrings(name: string, module: PyModule): number {
  return module.source.match(new RegExp(`(['"])${name}\\1`, 'gu'))?.length ?? 0;
}

function wordCount(name: string, source: string): number {
  return source.match(new RegExp(`(?<![\\w])${name}(?![\\w])`, 'gu'))?.length ?? 0;
}
