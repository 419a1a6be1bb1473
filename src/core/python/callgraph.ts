// The repository's call graph: definitions, imports, and every call
// resolved through names and imports where Python lets a reader be sure
// ('exact'), narrowed to candidates where it does not ('approximate': a
// method on a receiver of unknown type, a name from a star import), and
// said to be unknown otherwise ('unresolved', with the reason). Built from
// light per-module summaries, so a large repository's trees need not stay
// in memory.
import type { PyFunction, PyModule, SourceRange, SyntaxNode } from './model.ts';
import type { HelperResolver } from './effects.ts';
import { listFunctions } from './functions.ts';
import { dottedModuleName, importBindings, type ImportBinding } from './imports.ts';
import { classQualname, enclosingScopes, functionsByQualname } from './local-resolve.ts';
import { calleeTextOf, MODULE_SCOPE, moduleFacts } from './module-facts.ts';
import { rangeOf } from './source-range.ts';

export type Resolution = 'exact' | 'approximate' | 'unresolved';

export interface FunctionRef {
  path: string;
  qualname: string;
}

export interface DefinedFunction extends FunctionRef {
  name: string;
  className?: string;
  range: SourceRange;
}

/** A call as written: its callee split into names when it is a plain dotted name. */
export interface RawCall {
  /** The calling function's qualname, or `<module>` for top-level code. */
  caller: string;
  /** `self.save` → ['self', 'save']; undefined when the callee is not a dotted name (`f()()`, `x[0]()`). */
  names?: string[];
  /** The last attribute, also for dynamic receivers: `save` in `make().save()`. */
  method?: string;
  callee: string;
  range: SourceRange;
}

export interface ModuleSummary {
  path: string;
  dotted: string;
  source: string;
  functions: DefinedFunction[];
  /** Class qualname → base class names as written. */
  classes: Map<string, string[]>;
  imports: ImportBinding[];
  calls: RawCall[];
}

export interface CallResolution {
  resolution: Resolution;
  targets: FunctionRef[];
  /** Why a call is approximate or unresolved: `external: sqlite3.connect`, `method on a receiver of unknown type`, ... */
  reason?: string;
}

export interface CallEdge extends CallResolution {
  from: FunctionRef;
  callee: string;
  range: SourceRange;
}

export interface RepoIndex {
  summaries: Map<string, ModuleSummary>;
  /** Parsed modules, when the caller kept them; needed to follow helpers' effects across files. */
  modules: Map<string, PyModule>;
  edges: CallEdge[];
  methodsByName: Map<string, FunctionRef[]>;
  moduleByDotted: Map<string, string[]>;
  /** Every Python file of the repository in scope was given (not a bounded or partial read): repository-wide proofs need it. */
  complete?: boolean;
  /**
   * When the default-mode rules take a connection for possibly autocommit, in a complete index: only on evidence the
   * repository shows (absent: autocommit-evidence.ts), or unless proven otherwise (`unless-proven`).
   */
  assumeAutocommit?: AssumeAutocommit;
  /** `windows_only: report`: keep findings on code reached only on native Windows (windows-only.ts); absent: skip them. */
  windowsOnly?: 'report';
}

/** `when-evident` (the default): the repository names autocommit, or the connection comes from outside it. `unless-proven`: any connection not proven default-mode. */
export type AssumeAutocommit = 'when-evident' | 'unless-proven';

export interface Snippet {
  path: string;
  qualname: string;
  range: SourceRange;
  text: string;
  resolution: Exclude<Resolution, 'unresolved'>;
}

const MAX_CANDIDATES = 10;
const MAX_SNIPPET_LINES = 80;

export function summarizeModule(module: PyModule): ModuleSummary {
  const functions = listFunctions(module);
  const qualnameById = new Map<number, string>(functions.map((fn) => [fn.node.id, fn.qualname]));
  const calls: RawCall[] = [];
  for (const [scopeId, facts] of moduleFacts(module).scopes) {
    const caller = scopeId === MODULE_SCOPE ? '<module>' : qualnameById.get(scopeId) ?? '<module>';
    for (const fact of [...facts.calls, ...facts.lambdaCalls]) calls.push(rawCallFromText(fact.callee, caller, fact.range));
  }
  calls.sort((a, b) => a.range.startLine - b.range.startLine || a.range.startColumn - b.range.startColumn);
  return {
    path: module.path,
    dotted: dottedModuleName(module.path),
    source: module.source,
    functions: functions.map((fn) => definedFunction(fn, module.path)),
    classes: classBases(module),
    imports: importBindings(module),
    calls,
  };
}

/** Class qualname → its base classes as written; classes nested in functions and classes included. */
function classBases(module: PyModule): Map<string, string[]> {
  const classes = new Map<string, string[]>();
  const visit = (block: SyntaxNode, scope: string[]): void => {
    for (const statement of block.namedChildren) {
      const definition = statement.type === 'decorated_definition' ? statement.childForFieldName('definition') : statement;
      if (definition?.type === 'class_definition') {
        const qualname = [...scope, definition.childForFieldName('name')?.text ?? '?'];
        const bases = definition.childForFieldName('superclasses')?.namedChildren.filter((base) => base.type !== 'keyword_argument') ?? [];
        classes.set(qualname.join('.'), bases.map((base) => base.text));
        const body = definition.childForFieldName('body');
        if (body) visit(body, qualname);
      } else if (definition?.type === 'function_definition') {
        const body = definition.childForFieldName('body');
        if (body) visit(body, [...scope, definition.childForFieldName('name')?.text ?? '?']);
      } else if (definition && COMPOUND_STATEMENTS.has(definition.type)) {
        visit(definition, scope);
      }
    }
  };
  visit(module.tree.rootNode, []);
  return classes;
}

const COMPOUND_STATEMENTS = new Set(['if_statement', 'else_clause', 'elif_clause', 'try_statement', 'except_clause', 'finally_clause', 'block', 'with_statement']);

const summaryIndexCache = new WeakMap<ModuleSummary, Map<string, DefinedFunction>>();

function functionNamed(summary: ModuleSummary, qualname: string): DefinedFunction | undefined {
  let byQualname = summaryIndexCache.get(summary);
  if (!byQualname) {
    byQualname = new Map();
    for (const fn of summary.functions) if (!byQualname.has(fn.qualname)) byQualname.set(fn.qualname, fn);
    summaryIndexCache.set(summary, byQualname);
  }
  return byQualname.get(qualname);
}

function definedFunction(fn: PyFunction, path: string): DefinedFunction {
  const defined: DefinedFunction = { path, qualname: fn.qualname, name: fn.name, range: fn.range };
  if (fn.className !== undefined) defined.className = fn.className;
  return defined;
}

function rawCall(node: SyntaxNode, caller: string): RawCall {
  return rawCallFromText(calleeTextOf(node), caller, rangeOf(node));
}

/** `a.b.c` splits into names; anything else (`f()()`, `x[0]`, `make().save`) keeps only its last attribute. */
function rawCallFromText(text: string, caller: string, range: SourceRange): RawCall {
  const callee = text.replace(/\s+/g, '');
  const call: RawCall = { caller, callee, range };
  if (/^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/.test(callee)) {
    call.names = callee.split('.');
    call.method = call.names[call.names.length - 1]!;
  } else {
    const method = /\.([A-Za-z_]\w*)$/.exec(callee)?.[1];
    if (method) call.method = method;
  }
  return call;
}

export interface BuildOptions {
  /** Empty each summary's `calls` once its edges are built (the edges hold them): a large repository's scan then never holds both. */
  releaseCalls?: boolean;
  /** The inputs are every Python file of the repository in scope (RepoIndex.complete). */
  complete?: boolean;
  assumeAutocommit?: AssumeAutocommit;
  windowsOnly?: 'report' | 'skip';
}

const indexOfModule = new WeakMap<PyModule, RepoIndex>();

/**
 * The index a parsed module was last built into (given as a PyModule, with its tree): for code handed the
 * module alone, such as the rules, to look into the module's repository. Undefined for a lone snippet.
 */
export function repoIndexOf(module: PyModule): RepoIndex | undefined {
  return indexOfModule.get(module);
}

/** Builds the index; pass PyModules to keep them for cross-file helper effects, or summaries to save memory. */
export function buildRepoIndex(inputs: readonly (PyModule | ModuleSummary)[], options: BuildOptions = {}): RepoIndex {
  const index: RepoIndex = { summaries: new Map(), modules: new Map(), edges: [], methodsByName: new Map(), moduleByDotted: new Map(), ...(options.complete ? { complete: true } : {}), ...(options.assumeAutocommit === 'unless-proven' ? { assumeAutocommit: options.assumeAutocommit } : {}), ...(options.windowsOnly === 'report' ? { windowsOnly: 'report' as const } : {}) };
  for (const input of inputs) {
    const summary = 'tree' in input ? summarizeModule(input) : input;
    if ('tree' in input) {
      index.modules.set(input.path, input);
      indexOfModule.set(input, index);
    }
    index.summaries.set(summary.path, summary);
    const parts = summary.dotted.split('.');
    // Every suffix, so `src/app/x.py` answers to `app.x` too (src layouts, scripts run from a subfolder).
    for (let start = 0; start < parts.length; start++) {
      const key = parts.slice(start).join('.');
      const paths = index.moduleByDotted.get(key) ?? [];
      paths.push(summary.path);
      index.moduleByDotted.set(key, paths);
    }
    for (const fn of summary.functions) {
      if (fn.className === undefined) continue;
      const methods = index.methodsByName.get(fn.name) ?? [];
      methods.push({ path: fn.path, qualname: fn.qualname });
      index.methodsByName.set(fn.name, methods);
    }
  }
  const shared = new SharedResolutions();
  for (const summary of index.summaries.values()) {
    // One `from` per calling function, shared by its edges: a large repository has hundreds of thousands of calls.
    const fromOf = new Map<string, FunctionRef>();
    for (const call of summary.calls) {
      let from = fromOf.get(call.caller);
      if (!from) fromOf.set(call.caller, (from = { path: summary.path, qualname: call.caller }));
      index.edges.push({ from, callee: call.callee, range: call.range, ...shared.of(resolveRawCall(index, summary, call)) });
    }
    if (options.releaseCalls) summary.calls = [];
  }
  return index;
}

/**
 * Edges with equal targets share one array and equal reasons one string: the standard library's 327,000
 * edges have fewer than 10,000 distinct reasons, and most targets lists repeat. Edges are read, never
 * changed, so sharing shows nowhere but in memory.
 */
class SharedResolutions {
  private readonly targetLists = new Map<string, FunctionRef[]>();
  private readonly reasons = new Map<string, string>();

  of(resolved: CallResolution): CallResolution {
    const key = resolved.targets.map((target) => `${target.path}\0${target.qualname}`).join('\n');
    let targets = this.targetLists.get(key);
    if (!targets) this.targetLists.set(key, (targets = resolved.targets));
    const shared: CallResolution = { resolution: resolved.resolution, targets };
    if (resolved.reason !== undefined) {
      let reason = this.reasons.get(resolved.reason);
      if (reason === undefined) this.reasons.set(resolved.reason, (reason = resolved.reason));
      shared.reason = reason;
    }
    return shared;
  }
}

/** Resolves one call node of a module in the index. */
export function resolveCall(index: RepoIndex, path: string, call: SyntaxNode, caller?: PyFunction): CallResolution {
  const summary = index.summaries.get(path);
  if (!summary) return { resolution: 'unresolved', targets: [], reason: `${path} is not in the repository index` };
  return resolveRawCall(index, summary, rawCall(call, caller?.qualname ?? '<module>'));
}

function resolveRawCall(index: RepoIndex, summary: ModuleSummary, call: RawCall): CallResolution {
  const names = call.names;
  if (!names) {
    return call.method ? byMethodName(index, call.method, 'method on a computed receiver') : unresolved('dynamic callee');
  }
  const [head, ...rest] = names as [string, ...string[]];
  if (head === 'getattr' || head === 'eval' || head === 'exec') return unresolved(`dynamic: ${head}`);
  if ((head === 'self' || head === 'cls') && rest.length === 1) return selfCall(index, summary, call.caller, rest[0]!);
  if (rest.length === 0) {
    const local = localFunction(summary, call.caller, head);
    if (local) return exact(local);
  }
  const localDefinition = definitionIn(index, summary, names, 0);
  if (localDefinition) return localDefinition;
  const binding = [...summary.imports].reverse().find((candidate) => candidate.localName === head);
  if (binding) return resolveImported(index, binding, rest, 0);
  if (rest.length === 0) {
    const starred = fromStarImports(index, summary, head);
    if (starred) return starred;
    return unresolved(BUILTINS.has(head) ? `builtin: ${head}` : `${head} is not defined in the repository`);
  }
  return byMethodName(index, call.method ?? rest[rest.length - 1]!, 'method on a receiver of unknown type');
}

function selfCall(index: RepoIndex, summary: ModuleSummary, caller: string, method: string): CallResolution {
  const callerFn = functionNamed(summary, caller);
  if (callerFn?.className !== undefined) {
    const owner = classQualname(callerFn);
    const own = functionNamed(summary, `${owner}.${method}`);
    if (own) return exact(own);
    // Inherited, or overridden in a subclass: which one runs depends on the object.
    const inherited = (summary.classes.get(owner) ?? []).flatMap((base) => {
      const found = definitionIn(index, summary, [...base.split('.'), method], 0);
      return found?.targets ?? [];
    });
    if (inherited.length > 0) return { resolution: 'approximate', targets: inherited, reason: 'inherited method' };
  }
  return byMethodName(index, method, 'method of self not defined in its class');
}

/** A nested or top-level def visible from the caller's scope. */
function localFunction(summary: ModuleSummary, caller: string, name: string): DefinedFunction | undefined {
  const scopes = caller === '<module>' ? [''] : enclosingScopes(caller);
  for (const scope of scopes) {
    const qualname = scope ? `${scope}.${name}` : name;
    const found = functionNamed(summary, qualname);
    if (found && found.className === undefined) return found;
  }
  return undefined;
}

/** `names` as a path inside the module: `f`, `C.m`, or `C` (its constructor); re-exports followed a few hops. */
function definitionIn(index: RepoIndex, summary: ModuleSummary, names: string[], depth: number): CallResolution | undefined {
  const qualname = names.join('.');
  const fn = functionNamed(summary, qualname);
  if (fn) return exact(fn);
  if (summary.classes.has(qualname)) {
    const init = functionNamed(summary, `${qualname}.__init__`);
    return init ? exact(init) : unresolved(`constructor of ${qualname}, which defines no __init__`);
  }
  if (depth > 0) {
    const reexport = [...summary.imports].reverse().find((binding) => binding.localName === names[0]);
    if (reexport) return resolveImported(index, reexport, names.slice(1), depth);
  }
  return undefined;
}

function resolveImported(index: RepoIndex, binding: ImportBinding, rest: string[], depth: number): CallResolution {
  const full = [binding.module, ...(binding.name ? [binding.name] : []), ...rest];
  if (depth > 3) return unresolved(`import chain too long: ${full.join('.')}`);
  for (let split = full.length - 1; split >= 1; split--) {
    const modulePath = lookupModule(index, full.slice(0, split).join('.'));
    if (!modulePath) continue;
    const summary = index.summaries.get(modulePath.path)!;
    const found = definitionIn(index, summary, full.slice(split), depth + 1);
    if (!found) return unresolved(`${full.slice(split).join('.')} is not defined in ${summary.path}`);
    return modulePath.ambiguous && found.resolution === 'exact'
      ? { ...found, resolution: 'approximate', reason: `module ${full.slice(0, split).join('.')} matches several files` }
      : found;
  }
  return unresolved(`external: ${full.join('.')}`);
}

function lookupModule(index: RepoIndex, dotted: string): { path: string; ambiguous: boolean } | undefined {
  const paths = index.moduleByDotted.get(dotted);
  if (!paths || paths.length === 0) return undefined;
  const exactPath = paths.find((path) => index.summaries.get(path)?.dotted === dotted);
  return { path: exactPath ?? paths[0]!, ambiguous: !exactPath && paths.length > 1 };
}

function fromStarImports(index: RepoIndex, summary: ModuleSummary, name: string): CallResolution | undefined {
  for (const binding of summary.imports.filter((candidate) => candidate.star)) {
    const modulePath = lookupModule(index, binding.module);
    const target = modulePath && index.summaries.get(modulePath.path);
    const found = target && definitionIn(index, target, [name], 1);
    if (found && found.resolution !== 'unresolved') return { ...found, resolution: 'approximate', reason: `from ${binding.module} import *` };
  }
  return undefined;
}

function byMethodName(index: RepoIndex, method: string, why: string): CallResolution {
  const candidates = index.methodsByName.get(method) ?? [];
  if (candidates.length === 0) return unresolved(why);
  return { resolution: 'approximate', targets: candidates.slice(0, MAX_CANDIDATES), reason: `${why}: any method named ${method}` };
}

function exact(fn: FunctionRef): CallResolution {
  return { resolution: 'exact', targets: [{ path: fn.path, qualname: fn.qualname }] };
}

function unresolved(reason: string): CallResolution {
  return { resolution: 'unresolved', targets: [], reason };
}

const BUILTINS = new Set([
  'print', 'len', 'range', 'open', 'str', 'int', 'float', 'bool', 'list', 'dict', 'set', 'tuple', 'isinstance',
  'getattr', 'setattr', 'hasattr', 'super', 'type', 'repr', 'sorted', 'enumerate', 'zip', 'map', 'filter', 'min',
  'max', 'sum', 'any', 'all', 'iter', 'next', 'id', 'hash', 'abs', 'round', 'format', 'vars', 'object', 'bytes',
  'bytearray', 'issubclass', 'callable', 'frozenset', 'reversed', 'divmod', 'pow', 'chr', 'ord', 'hex', 'oct', 'bin',
]);

/** For findEffects and detectTxStyle: follow a call to a repository function only when the graph is sure of it. */
export function repoHelperResolver(index: RepoIndex): HelperResolver {
  return (call, caller, module) => {
    const resolved = resolveCall(index, module.path, call, caller);
    const target = resolved.resolution === 'exact' ? resolved.targets[0] : undefined;
    const targetModule = target && index.modules.get(target.path);
    const fn = targetModule && functionsByQualname(targetModule).get(target.qualname);
    return fn && targetModule ? { fn, module: targetModule } : undefined;
  };
}

/** The functions in other files that call into `path`, and those `path` calls into, with their source. */
export function partnersOf(index: RepoIndex, path: string): { callers: Snippet[]; callees: Snippet[] } {
  const callers = new Map<string, Snippet>();
  const callees = new Map<string, Snippet>();
  for (const edge of index.edges) {
    if (edge.resolution === 'unresolved') continue;
    const resolution = edge.resolution;
    if (edge.from.path !== path && edge.targets.some((target) => target.path === path)) {
      addSnippet(callers, index, edge.from, resolution, edge.range);
    }
    if (edge.from.path === path) {
      for (const target of edge.targets) if (target.path !== path) addSnippet(callees, index, target, resolution);
    }
  }
  return { callers: [...callers.values()], callees: [...callees.values()] };
}

function addSnippet(into: Map<string, Snippet>, index: RepoIndex, ref: FunctionRef, resolution: Snippet['resolution'], callRange?: SourceRange): void {
  const key = `${ref.path}\0${ref.qualname}`;
  const existing = into.get(key);
  if (existing) {
    if (resolution === 'exact') existing.resolution = 'exact';
    return;
  }
  const summary = index.summaries.get(ref.path);
  if (!summary) return;
  const fn = functionNamed(summary, ref.qualname);
  // Top-level code has no function: show the lines around the call instead.
  const range = fn?.range ?? (callRange && { ...callRange, startLine: Math.max(1, callRange.startLine - 3), endLine: callRange.endLine + 3, startColumn: 0 });
  if (!range) return;
  into.set(key, { path: ref.path, qualname: ref.qualname, range, text: linesOf(summary.source, range), resolution });
}

function linesOf(source: string, range: SourceRange): string {
  const lines = source.split('\n').slice(range.startLine - 1, range.endLine);
  if (lines.length <= MAX_SNIPPET_LINES) return lines.join('\n');
  return [...lines.slice(0, MAX_SNIPPET_LINES), `# … ${lines.length - MAX_SNIPPET_LINES} more lines`].join('\n');
}
