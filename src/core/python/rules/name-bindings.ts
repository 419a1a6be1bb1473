// Every way a function's own code gives a plain name a value, found in one walk:
// assignments (tuple targets and chained ones included), augmented assignments,
// for loops and comprehensions, `with ... as`, `:=`, and the contents a name
// takes in by `name[k] = v`, `name.attr = v` or `name.append(v)` (and the other
// mutators below). data-origin.ts asks where a written value came from through it.
import type { SyntaxNode } from '../model.ts';
import { callParts, walkFunctionBody } from '../body-walk.ts';
import { parameterNames } from './exclusive-guards.ts';

export interface NameBindings {
  /** The function's parameters. */
  params: ReadonlySet<string>;
  /** name → the expressions it takes its value or contents from, in source order. */
  values: ReadonlyMap<string, readonly SyntaxNode[]>;
  /** Names bound in ways not followed (`except ... as e`, global, nonlocal): their values are unknown. */
  opaque: ReadonlySet<string>;
  /** Names a function-local import binds: modules and what they hold, not the function's data. */
  imported: ReadonlySet<string>;
}

/** Methods through which a local container takes data in: `rows.append(row)`, `buffer.write(text)`. */
const MUTATORS = new Set(['append', 'extend', 'insert', 'add', 'update', 'appendleft', 'extendleft', 'setdefault', 'write', 'writelines', 'writerow', 'writerows']);

const cache = new WeakMap<SyntaxNode, NameBindings>();

export function nameBindings(fnNode: SyntaxNode): NameBindings {
  let bindings = cache.get(fnNode);
  if (!bindings) cache.set(fnNode, (bindings = collect(fnNode)));
  return bindings;
}

function collect(fnNode: SyntaxNode): NameBindings {
  const params = parameterNames(fnNode);
  const values = new Map<string, SyntaxNode[]>();
  const opaque = new Set<string>();
  const imported = new Set<string>();
  const bind = (target: SyntaxNode | null | undefined, value: SyntaxNode | null | undefined): void => {
    if (!target || !value) return;
    for (const name of targetNames(target, params)) {
      const list = values.get(name);
      if (list) list.push(value);
      else values.set(name, [value]);
    }
  };
  walkFunctionBody(fnNode, (node) => {
    switch (node.type) {
      case 'assignment':
      case 'augmented_assignment':
      case 'for_statement':
      case 'for_in_clause':
        bind(node.childForFieldName('left'), node.childForFieldName('right'));
        break;
      case 'named_expression':
        bind(node.childForFieldName('name'), node.childForFieldName('value'));
        break;
      case 'as_pattern': {
        const alias = node.childForFieldName('alias');
        if (node.parent?.type === 'except_clause' || node.parent?.type === 'except_group_clause') {
          for (const name of alias?.descendantsOfType('identifier') ?? []) opaque.add(name.text);
        } else {
          bind(alias?.namedChildren[0], node.namedChildren[0]);
        }
        break;
      }
      case 'global_statement':
      case 'nonlocal_statement':
        for (const name of node.namedChildren) opaque.add(name.text);
        break;
      case 'import_statement':
      case 'import_from_statement':
        for (const name of importedNames(node)) imported.add(name);
        break;
      case 'call': {
        const call = callParts(node);
        if (MUTATORS.has(call.method) && call.receiver?.type === 'identifier') {
          for (const argument of call.positional) bind(call.receiver, argument);
        }
        break;
      }
    }
  });
  return { params, values, opaque, imported };
}

/**
 * The plain names a target binds. `name[k] = v` and `name.attr = v` bind `name` (its contents
 * change), except for a parameter: putting a read row into `self.rows` does not make `self` a row.
 */
function targetNames(target: SyntaxNode, params: ReadonlySet<string>): string[] {
  switch (target.type) {
    case 'identifier':
      return [target.text];
    case 'pattern_list':
    case 'tuple_pattern':
    case 'list_pattern':
    case 'tuple':
    case 'list':
    case 'parenthesized_expression':
    case 'list_splat_pattern':
      return target.namedChildren.flatMap((child) => targetNames(child, params));
    case 'subscript':
    case 'attribute': {
      const root = rootName(target);
      return root && !params.has(root) ? [root] : [];
    }
    default:
      return [];
  }
}

function rootName(node: SyntaxNode): string | undefined {
  let current: SyntaxNode | null = node;
  while (current && (current.type === 'subscript' || current.type === 'attribute')) {
    current = current.type === 'subscript' ? current.childForFieldName('value') : current.childForFieldName('object');
  }
  return current?.type === 'identifier' ? current.text : undefined;
}

function importedNames(node: SyntaxNode): string[] {
  const moduleName = node.childForFieldName('module_name');
  return node.namedChildren
    .filter((item) => item.id !== moduleName?.id)
    .map((item) => (item.type === 'aliased_import' ? item.childForFieldName('alias')?.text : item.type === 'dotted_name' ? item.text.split('.')[0] : undefined))
    .filter((name): name is string => name !== undefined);
}
