// A module-level NAME that holds a constant, for data-origin.ts: every binding of it at the
// module's top level is an immutable literal (a string without interpolation, a number, a bool,
// None, a tuple or arithmetic of such, or another such constant), and no function rebinds it
// (`global NAME`). `HEADER = "# bookmarks\n"` is a constant; `PENDING = []`, which code can fill
// with state, or a NAME the module never binds (a star import, a builtin the judge does not know),
// is not: its value is not seen.
import type { PyModule, SyntaxNode } from '../model.ts';
import { memoizePer } from '../memo.ts';

const IMMUTABLE_LEAVES = new Set(['integer', 'float', 'true', 'false', 'none', 'ellipsis']);
const IMMUTABLE_COMPOSITES = new Set(['tuple', 'parenthesized_expression', 'binary_operator', 'unary_operator', 'concatenated_string']);
const MAX_DEPTH = 4;

interface TopLevel {
  bindings: Map<string, SyntaxNode[]>;
  /** Names some function declares `global`: it may rebind them. */
  rebound: Set<string>;
}

const topLevelOf: (module: PyModule) => TopLevel = memoizePer((module: PyModule) => {
  const bindings = new Map<string, SyntaxNode[]>();
  const rebound = new Set<string>();
  const root = module.tree.rootNode;
  for (const statement of root.namedChildren) {
    const assignment = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
    if (assignment?.type !== 'assignment' && assignment?.type !== 'augmented_assignment') continue;
    const left = assignment.childForFieldName('left');
    const right = assignment.childForFieldName('right');
    if (left?.type !== 'identifier') continue;
    const values = bindings.get(left.text) ?? [];
    // `NAME += x` builds on what it held: not a literal of its own.
    values.push(assignment.type === 'assignment' && right ? right : assignment);
    bindings.set(left.text, values);
  }
  for (const statement of root.descendantsOfType('global_statement')) for (const name of statement.namedChildren) rebound.add(name.text);
  return { bindings, rebound };
});

export function isModuleConstant(name: string, module: PyModule, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  const { bindings, rebound } = topLevelOf(module);
  const values = bindings.get(name);
  if (!values || rebound.has(name)) return false;
  return values.every((value) => immutableLiteral(value, module, depth));
}

function immutableLiteral(node: SyntaxNode, module: PyModule, depth: number): boolean {
  if (IMMUTABLE_LEAVES.has(node.type)) return true;
  if (node.type === 'string') return !node.namedChildren.some((child) => child.type === 'interpolation');
  if (node.type === 'identifier') return isModuleConstant(node.text, module, depth + 1);
  if (IMMUTABLE_COMPOSITES.has(node.type)) {
    return node.namedChildren.filter((child) => child.type !== 'comment').every((child) => immutableLiteral(child, module, depth));
  }
  return false;
}
