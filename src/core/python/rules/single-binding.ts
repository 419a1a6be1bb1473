// A local name bound by exactly one assignment statement that runs at most once per call
// (`table, slots = self._schema(class_)`): every use of the name in the function sees that one value,
// since an assignment anywhere makes the name local for the whole body and a use before it raises.
// Conservative: any other binding form of the name anywhere in the body, nested scopes included
// (a second assignment, loop or `with`/`except` target, match capture (`case P() as name`), walrus, augmented, del,
// import, def, class, parameter, global/nonlocal, nested or starred tuple target), and the name does not qualify.
// Partial, as for a parameter never rebound: one binding is one object, whose str() may change (`table.bump()`).
import type { PyFunction, SyntaxNode } from '../model.ts';

/** Nodes a binding target climbs through to its statement: `a, b = ...`, `(a, *b) = ...`. */
const TARGET_WRAPPERS = new Set(['tuple', 'list', 'parenthesized_expression', 'tuple_pattern', 'list_pattern', 'pattern_list', 'list_splat_pattern', 'list_splat']);

/** Parents whose identifier child may be a binding of the name in some scope. */
const OTHER_BINDINGS = new Set([
  'as_pattern_target', 'global_statement', 'nonlocal_statement', 'named_expression', 'delete_statement', 'aliased_import', 'dotted_name',
  'function_definition', 'class_definition', 'parameters', 'lambda_parameters', 'default_parameter', 'typed_parameter', 'typed_default_parameter',
  'case_pattern', 'keyword_pattern', 'splat_pattern',
]);

/** Statements around the one binding that could run it again, or put it in another scope. */
const REPEATING = new Set(['for_statement', 'while_statement', 'function_definition', 'lambda', 'class_definition', 'list_comprehension', 'generator_expression', 'set_comprehension', 'dictionary_comprehension']);

/**
 * The one assignment statement binding `name` in the function (before `use`), when it is the only binding there is.
 * With `rebindsParameter`, the name is a parameter and the assignment must be a statement of the function's own top
 * level (`new_db = sqlite.connect(new_db)`): it runs before every later statement, so every use after it sees its value.
 */
export function singleAssignment(name: string, fn: PyFunction, use: SyntaxNode, rebindsParameter = false): SyntaxNode | undefined {
  const isParameter = fn.params.some((param) => param.replace(/^\*+/, '').split(/[:=]/)[0]!.trim() === name);
  if (isParameter !== rebindsParameter) return undefined;
  const body = fn.node.childForFieldName('body');
  let found: SyntaxNode | undefined;
  for (const occurrence of body?.descendantsOfType('identifier') ?? []) {
    if (occurrence.text !== name) continue;
    const binding = bindingOf(occurrence);
    if (binding === 'load') continue;
    if (binding === 'other' || found) return undefined;
    found = binding;
  }
  if (!found || found.startIndex >= use.startIndex || !found.childForFieldName('right')) return undefined;
  for (let at = found.parent; at && at.id !== fn.node.id; at = at.parent) if (REPEATING.has(at.type)) return undefined;
  if (rebindsParameter && found.parent?.parent?.id !== body?.id) return undefined;
  return found.parent?.type === 'expression_statement' ? found : undefined;
}

/** The name is bound somewhere in the tree other than by an import statement (`sqlite = None` after the import). */
export function boundOutsideImports(name: string, root: SyntaxNode): boolean {
  return root.descendantsOfType('identifier').some((occurrence) => {
    if (occurrence.text !== name) return false;
    for (let at = occurrence.parent; at; at = at.parent) if (at.type === 'import_statement' || at.type === 'import_from_statement') return false;
    return bindingOf(occurrence) !== 'load';
  });
}

/** The assignment the occurrence is the target of (alone or one flat tuple element), 'other' for any other binding, or 'load'. */
function bindingOf(occurrence: SyntaxNode): SyntaxNode | 'other' | 'load' {
  const parent = occurrence.parent;
  if (!parent) return 'load';
  // `x.name`, `f(name=1)`: an attribute or keyword, not the local.
  if (parent.type === 'attribute' && parent.childForFieldName('attribute')?.id === occurrence.id) return 'load';
  if (parent.type === 'keyword_argument' && parent.childForFieldName('name')?.id === occurrence.id) return 'load';
  if (OTHER_BINDINGS.has(parent.type)) return 'other';
  // `case str() as name`: the capture sits right under the as_pattern, after its `as` (a with or except alias sits in
  // an as_pattern_target, and the as_pattern's first child, `with name as f`, is a load).
  if (parent.type === 'as_pattern' && occurrence.previousSibling?.type === 'as') return 'other';
  let top = occurrence;
  while (top.parent && TARGET_WRAPPERS.has(top.parent.type)) top = top.parent;
  const holder = top.parent;
  if (!holder) return 'load';
  const isLeft = (field: string): boolean => holder.childForFieldName(field)?.id === top.id;
  if (holder.type === 'assignment' && isLeft('left')) {
    const flat = top.id === occurrence.id || ((top.type === 'pattern_list' || top.type === 'tuple_pattern') && occurrence.parent?.id === top.id);
    return flat ? holder : 'other';
  }
  if (['augmented_assignment', 'for_statement', 'for_in_clause'].includes(holder.type) && isLeft('left')) return 'other';
  if (holder.type === 'as_pattern_target') return 'other';
  return 'load';
}
