// What a path expression is built from, as keys two paths share when they name the same file:
// the same expression, a parameter of the same name (joblib's dump(value, filename) and
// load(filename)) or of a pair of functions by name (save_state, load_state), a local name's values
// that reach its use (reaching-values.ts),
// what `self.attr` is assigned anywhere in the module (configobj's self.filename = infile, matched
// as that very parameter of _load, not by its name: role-pairs.ts judges names; and a parameter of
// __init__ as the one a function passes its own parameter to when it builds the class: save() of
// self.path set by __init__(path), load(cls, path) returning cls(path, ...)),
// either arm of a conditional, the module's own path helper, a join onto a folder with a literal
// name; and the folders a path lies in. read-back.ts compares a write's keys with a reader's.
import type { PyModule, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { enclosingFunctionNode, listFunctions } from '../functions.ts';
import { scopeFacts } from '../module-facts.ts';
import { memoizePer } from '../memo.ts';
import { attributeAssignments } from '../attribute-assignments.ts';
import { nameBindings } from './name-bindings.ts';
import { reachingValues } from './reaching-values.ts';
import { compactText, literalText, unparenthesized } from './syntax.ts';
import { PAIRED_NAME } from './role-pairs.ts';

export const MAX_DEPTH = 4;

/** A module constant's name: `CONFIG_PATH`, `STATUS_FILE`. */
const CONSTANT_NAME = /^[A-Z][A-Z0-9_]*$/;

/** Calls that only normalize a path: `os.path.expanduser(p)` names the file `p` names. */
const PATH_WRAPPERS = new Set([
  'os.path.expanduser',
  'os.path.abspath',
  'os.path.realpath',
  'os.path.normpath',
  'os.fspath',
  'os.fsencode',
  'os.fsdecode',
  'str',
  'Path',
  'pathlib.Path',
  'PurePath',
]);

/** What a path expression is built from, as comparable keys. */
export function pathKeys(path: SyntaxNode, module: PyModule, depth = 0, origin = enclosingFunctionNode(path)?.id): Set<string> {
  const keys = new Set<string>();
  addKeys(unparenthesized(path), module, keys, depth, origin);
  return keys;
}

function addKeys(node: SyntaxNode, module: PyModule, keys: Set<string>, depth: number, origin: number | undefined): void {
  const text = compactText(node);
  if (keys.has(text) || depth > MAX_DEPTH) return;
  // `self.output_file = None` names no file: two attributes that both start as None are not one file (babel's commands).
  if (node.type === 'none') return;
  const fnNode = enclosingFunctionNode(node);
  if (node.type === 'identifier' && fnNode) {
    const bindings = nameBindings(fnNode);
    const { params, values, opaque } = bindings;
    // A function's own name means nothing in another function: only a module-level name is compared as written.
    if (!params.has(node.text) && !values.has(node.text) && !opaque.has(node.text)) keys.add(text);
    if (params.has(node.text)) {
      // This very parameter: configobj's write() saves self.filename, which _load() set from its infile, the file it read.
      keys.add(`param-in:${fnNode.id}:${node.text}`);
      // Only the path's own function's parameter is matched by name: a caller may pass one file to both functions.
      // Another function's parameter reached through `self.attr = name` is that function's file, not any file so called
      // (pykeepass's self.filename, read()'s filename, is not the filename dump_xml() exports to).
      if (fnNode.id === origin) addParameterKeys(node.text, fnNode, keys);
      for (const key of constructorKeys(node.text, fnNode, module)) keys.add(key);
    }
    // Only the values it may hold here: `old_file = srt_file` after a read of old_file is not what was read.
    for (const value of values.has(node.text) ? reachingValues(node, fnNode) : []) addKeys(unparenthesized(value), module, keys, depth + 1, origin);
    return;
  }
  keys.add(text);
  if (node.type === 'attribute' && node.childForFieldName('object')?.type === 'identifier') {
    const attribute = node.childForFieldName('attribute')?.text ?? '';
    const own = classOf(node, module);
    for (const assignment of attributeAssignments(module).whole.get(attribute) ?? []) {
      // self.path of another class is another file.
      if (!assignment.augmented && assignment.position === undefined && classOf(assignment.value, module) === own) addKeys(unparenthesized(assignment.value), module, keys, depth + 1, origin);
    }
    return;
  }
  if (node.type === 'conditional_expression') {
    // `target if target else self.path`: either arm may be the file.
    for (const arm of [node.namedChildren[0], node.namedChildren[2]]) if (arm) addKeys(unparenthesized(arm), module, keys, depth + 1, origin);
    return;
  }
  const join = joined(node);
  if (join?.name?.type === 'string') {
    // os.path.join(self.root, 'state.json') and a name bound to os.path.join(root, 'state.json'): one file.
    for (const folder of pathKeys(join.folder, module, depth + 1, origin)) keys.add(`join:${folder}/${compactText(join.name)}`);
    // A name joined onto some folder: the same name joined elsewhere, not a bare literal relative to the working directory.
    keys.add(fileKey(join.name).replace(/^file:/, 'file:*/'));
  }
  if (node.type === 'string') keys.add(fileKey(node));
  if (node.type === 'call') {
    const call = callParts(node);
    const [first] = call.positional;
    if (PATH_WRAPPERS.has(call.callee) && first && call.positional.length === 1) addKeys(unparenthesized(first), module, keys, depth + 1, origin);
    // self._path(k) and self._path(key): the module's own path helper names the file, whatever the argument is called.
    const helper = /^(?:(?:self|cls)\.)?(\w+)$/.exec(call.callee)?.[1];
    if (helper && moduleFunctionNames(module).has(helper) && !call.positional.some((argument) => argument.type === 'string')) keys.add(`call:${helper}`);
  }
}

/** A parameter by name: a caller may pass one file to this function and to another with a parameter so named or paired. */
function addParameterKeys(name: string, fnNode: SyntaxNode, keys: Set<string>): void {
  keys.add(`param:${name}`);
  // save_state(state, path) and load_state(filename): a pair of functions by name, whatever their parameters are called.
  const stem = PAIRED_NAME.exec(fnNode.childForFieldName('name')?.text ?? '')?.[2];
  if (stem) keys.add(`param-of:${stem}`);
}

/**
 * `ctor:` keys of a parameter: as __init__'s own parameter, and as each __init__ parameter this function passes
 * it to when it builds a class of the module (`cls(path, data)` in a method of that class, `Config(data, path=path)`).
 * save() writes self.path, assigned from __init__'s path; load(cls, path) reads path and returns cls(path, ...): one
 * file, exactly, with no judging of names. Partial: a parameter rebound before the call, or passed on through
 * another function to the constructor, is not followed.
 */
function constructorKeys(name: string, fnNode: SyntaxNode, module: PyModule): string[] {
  const keys: string[] = [];
  const own = classOf(fnNode, module);
  if (fnNode.childForFieldName('name')?.text === '__init__' && own) keys.push(`ctor:${fnNode.id}:${name}`);
  for (const { node: call } of scopeFacts(module, fnNode).calls) {
    const parts = callParts(call);
    const built = parts.callee === 'cls' ? own : parts.receiver ? undefined : parts.callee;
    for (const init of built ? (initializers(module).get(built) ?? []) : []) {
      for (const [index, parameter] of positionalParameters(init).entries()) {
        // `self` is not passed: the first argument is the second parameter's.
        const argument = index > 0 ? parts.positional[index - 1] : undefined;
        if (argument?.type === 'identifier' && argument.text === name) keys.push(`ctor:${init.id}:${parameter}`);
      }
      for (const [keyword, argument] of parts.keywords) if (argument.type === 'identifier' && argument.text === name) keys.push(`ctor:${init.id}:${keyword}`);
    }
  }
  return keys;
}

/** The __init__ definitions of the module's classes, by class name (two classes may share one). */
const initializers = memoizePer((module: PyModule): Map<string, SyntaxNode[]> => {
  const byClass = new Map<string, SyntaxNode[]>();
  for (const fn of listFunctions(module)) {
    if (fn.name !== '__init__' || !fn.className) continue;
    const known = byClass.get(fn.className);
    if (known) known.push(fn.node);
    else byClass.set(fn.className, [fn.node]);
  }
  return byClass;
});

/** The parameters an argument may fill by position, in order: those before `*` or `*args`. */
function positionalParameters(fnNode: SyntaxNode): string[] {
  const names: string[] = [];
  for (const parameter of fnNode.childForFieldName('parameters')?.namedChildren ?? []) {
    if (parameter.type === 'positional_separator') continue;
    if (!['identifier', 'default_parameter', 'typed_parameter', 'typed_default_parameter'].includes(parameter.type)) break;
    const name = parameter.type === 'identifier' ? parameter : (parameter.childForFieldName('name') ?? parameter.namedChildren.find((child) => child.type === 'identifier'));
    if (name?.type !== 'identifier') break;
    names.push(name.text);
  }
  return names;
}

/** A file named by a literal (`'state.json'`, `"/etc/app.ini"`): by its last component, comparable across modules. */
function fileKey(literal: SyntaxNode): string {
  const text = literalText(literal);
  return `file:${text}`;
}

/** Keys another module's reader can share: a literal file name with an extension, or a module constant (`CONFIG_PATH`). */
export function portable(key: string): boolean {
  return /^file:(\*\/)?[\w./-]+\.\w+$/.test(key) || CONSTANT_NAME.test(key);
}

const moduleFunctionNames = memoizePer((module: PyModule): Set<string> => new Set(listFunctions(module).map((fn) => fn.name)));

/** The folder a path is joined onto and the name joined: D and N of `os.path.join(D, N)`, `D / N`, `Path(D, N)`, `D.joinpath(N)`. */
function joined(path: SyntaxNode): { folder: SyntaxNode; name?: SyntaxNode } | undefined {
  const node = unparenthesized(path);
  if (node.type === 'binary_operator' && node.childForFieldName('operator')?.text === '/') {
    const folder = node.childForFieldName('left');
    return folder ? { folder, name: node.childForFieldName('right') ?? undefined } : undefined;
  }
  if (node.type !== 'call') return undefined;
  const call = callParts(node);
  const [first] = call.positional;
  if ((call.callee === 'os.path.join' || call.callee === 'Path' || call.callee === 'pathlib.Path') && first && call.positional.length >= 2) return { folder: first, name: call.positional.at(-1) };
  if (call.method === 'joinpath' && call.receiver) return { folder: call.receiver, name: call.positional.at(-1) };
  return undefined;
}

function folderOf(path: SyntaxNode): SyntaxNode | undefined {
  return joined(path)?.folder;
}

/** `os.path.join(D, "status.json")`, `D / self.STATUS_FILE`: one named file, not whatever the folder holds. */
export function namesOneFile(path: SyntaxNode, depth = 0): boolean {
  const node = unparenthesized(path);
  const fnNode = enclosingFunctionNode(node);
  if (node.type === 'identifier' && fnNode && depth < MAX_DEPTH) {
    const values = reachingValues(node, fnNode);
    return values.length > 0 && values.every((value) => namesOneFile(value, depth + 1));
  }
  const name = joined(node)?.name;
  if (!name) return false;
  const last = name.type === 'attribute' ? name.childForFieldName('attribute') : name;
  return name.type === 'string' || (last?.type === 'identifier' && CONSTANT_NAME.test(last.text));
}

/** The folders a path may lie in, as keys: its own folder, and the folders its name's values are joined onto. */
export function folderKeys(path: SyntaxNode, module: PyModule): Set<string> {
  const folders = new Set<string>();
  const visit = (node: SyntaxNode, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    const folder = folderOf(node);
    if (folder) for (const key of pathKeys(folder, module)) folders.add(key);
    const inner = unparenthesized(node);
    const fnNode = enclosingFunctionNode(inner);
    if (inner.type === 'identifier' && fnNode) for (const value of reachingValues(inner, fnNode)) visit(value, depth + 1);
  };
  visit(path, 0);
  return folders;
}

/** The class a node is written in (its nearest class_definition), remembered per module by node id. */
export function classOf(node: SyntaxNode, module: PyModule): string | undefined {
  const known = classesOf(module);
  if (known.has(node.id)) return known.get(node.id);
  let name: string | undefined;
  for (let at = node.parent; at; at = at.parent) {
    if (at.type === 'class_definition') {
      name = at.childForFieldName('name')?.text;
      break;
    }
  }
  known.set(node.id, name);
  return name;
}

const classesOf = memoizePer((_module: PyModule) => new Map<number, string | undefined>());
