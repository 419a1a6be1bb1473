// Where a repository names a function or class, for the readers that must see every call of one
// (forwarded-keywords.ts, repository-connections.ts): each reference is a call's callee, or a use that lets
// it escape (`opener = self._connect`, a callback), and a string handed to getattr names it too.
// A method is named only as an attribute (`obj.init(...)`; a bare `init` is some other name); a top-level
// function or class by its bare name too, unless a function binds that name itself (a parameter, a local).
// Partial: a name held in a variable or constant elsewhere and handed to getattr is not followed.
import type { PyModule, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { enclosingFunctionNode } from '../functions.ts';
import { memoizePer } from '../memo.ts';
import { literalText } from './syntax.ts';
import { parameterNames } from './exclusive-guards.ts';

const BY_NAME = /(^|\.)(getattr|hasattr|setattr|delattr|methodcaller|attrgetter|__getattribute__|__getattr__)$/;

const getattrNames = memoizePer((module: PyModule): { names: Set<string>; computed: boolean } => {
  const names = new Set<string>();
  let computed = false;
  for (const call of module.tree.rootNode.descendantsOfType('call')) {
    const parts = callParts(call);
    if (!BY_NAME.test(parts.callee)) continue;
    for (const string of call.childForFieldName('arguments')?.descendantsOfType('string') ?? []) names.add(literalText(string));
    if (/(^|\.)getattr$/.test(parts.callee)) {
      const name = parts.positional[1];
      if (name?.type !== 'string' || name.descendantsOfType('interpolation').length > 0) computed = true;
    }
  }
  return { names, computed };
});

export function namedForGetattr(module: PyModule, name: string): boolean {
  return getattrNames(module).names.has(name);
}

/** `getattr(obj, name)` with a name the reader cannot see: any function of the repository may be reached. */
export function getattrComputed(module: PyModule): boolean {
  return getattrNames(module).computed;
}

const identifiersByName = memoizePer((module: PyModule): Map<string, SyntaxNode[]> => {
  const byName = new Map<string, SyntaxNode[]>();
  for (const identifier of module.tree.rootNode.descendantsOfType('identifier')) {
    const list = byName.get(identifier.text);
    if (list) list.push(identifier);
    else byName.set(identifier.text, [identifier]);
  }
  return byName;
});

export interface NameReference {
  use: SyntaxNode;
  /** The call whose callee the reference is; undefined when the name is used otherwise. */
  call?: SyntaxNode;
}

/** Every reference to `name` in the module, definitions, keyword names, imports and base-class lists left out. */
export function referencesTo(module: PyModule, name: string, method: boolean): NameReference[] {
  const found: NameReference[] = [];
  for (const use of identifiersByName(module).get(name) ?? []) {
    const parent = use.parent;
    if (!parent) continue;
    const asAttribute = parent.type === 'attribute' && parent.childForFieldName('attribute')?.id === use.id;
    // In a class body a method's bare name is the method itself (`__call__ = move`, a dispatch dict).
    if (!asAttribute && (method ? !inClassBody(use) : locallyBound(use, name))) continue;
    if ((parent.type === 'function_definition' || parent.type === 'class_definition') && parent.childForFieldName('name')?.id === use.id) continue;
    if (parent.type === 'keyword_argument' && parent.childForFieldName('name')?.id === use.id) continue;
    if (['import_from_statement', 'dotted_name', 'aliased_import', 'type'].includes(parent.type)) continue;
    if (parent.type === 'argument_list' && parent.parent?.type === 'class_definition') continue;
    if (parent.type === 'attribute' && parent.childForFieldName('object')?.id === use.id) continue;
    const callee = asAttribute ? parent : use;
    const call = callee.parent?.type === 'call' && callee.parent.childForFieldName('function')?.id === callee.id ? callee.parent : undefined;
    found.push(call ? { use, call } : { use });
  }
  return found;
}

/** A bare name some enclosing function binds: its parameter, or a local it assigns. */
function locallyBound(use: SyntaxNode, name: string): boolean {
  let start = enclosingFunctionNode(use);
  // A parameter's default (`def main(path, attach=attach)`) is read in the scope around the def.
  if (start && isInside(use, start.childForFieldName('parameters'))) start = start.parent ? enclosingFunctionNode(start.parent) : undefined;
  for (let fn = start; fn; fn = fn.parent ? enclosingFunctionNode(fn.parent) : undefined) {
    if (parameterNames(fn).has(name)) return true;
    const body = fn.childForFieldName('body');
    if (body?.descendantsOfType('assignment').some((assignment) => assignment.childForFieldName('left')?.text === name)) return true;
  }
  return false;
}

function inClassBody(use: SyntaxNode): boolean {
  for (let parent = use.parent; parent; parent = parent.parent) {
    if (parent.type === 'function_definition' || parent.type === 'lambda') return false;
    if (parent.type === 'class_definition') return true;
  }
  return false;
}

function isInside(node: SyntaxNode, ancestor: SyntaxNode | null): boolean {
  return ancestor !== null && node.startIndex >= ancestor.startIndex && node.endIndex <= ancestor.endIndex;
}

/** Every attribute node of the module (`x.name`), by its attribute name, found once. */
export const attributesByName = memoizePer((module: PyModule): Map<string, SyntaxNode[]> => {
  const uses = new Map<string, SyntaxNode[]>();
  for (const node of module.tree.rootNode.descendantsOfType('attribute')) {
    const name = node.childForFieldName('attribute')?.text;
    if (!name) continue;
    const list = uses.get(name);
    if (list) list.push(node);
    else uses.set(name, [node]);
  }
  return uses;
});

const TARGET_CONTAINERS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list', 'parenthesized_expression', 'as_pattern_target', 'list_splat_pattern', 'expression_list']);

/**
 * The statement that binds or deletes `node` as (part of) its target: an assignment's or a loop's left side,
 * `with ... as` (an `as_pattern`), `del`; undefined when `node` is read.
 */
export function bindingStatement(node: SyntaxNode): SyntaxNode | undefined {
  for (let child = node, parent = node.parent; parent; child = parent, parent = parent.parent) {
    const target = ['assignment', 'augmented_assignment', 'for_statement', 'for_in_clause'].includes(parent.type) ? parent.childForFieldName('left') : parent.type === 'as_pattern' ? parent.childForFieldName('alias') : undefined;
    if (target?.id === child.id || parent.type === 'delete_statement') return parent;
    if (!TARGET_CONTAINERS.has(parent.type)) return undefined;
  }
  return undefined;
}

/** Module-wide calls of setattr and `__setattr__`, found once. */
export const setattrCalls = memoizePer((module: PyModule): SyntaxNode[] =>
  module.tree.rootNode.descendantsOfType('call').filter((call) => /(^|\.)(setattr|__setattr__)$/.test(callParts(call).callee)),
);

/** `setattr(obj, name, value)` and `object.__setattr__(obj, name, value)`; `obj.__setattr__(name, value)`. */
export function setattrArguments(call: SyntaxNode): { object?: SyntaxNode; name?: SyntaxNode; value?: SyntaxNode } {
  const parts = callParts(call);
  const at = parts.positional.length >= 3 ? 1 : 0;
  return { object: at === 1 ? parts.positional[0] : parts.receiver, name: parts.positional[at], value: parts.positional[at + 1] };
}
