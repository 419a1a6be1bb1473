// What a Python string expression evaluates to, as far as can be told without
// running it: literals, implicit and `+` concatenation, f-strings and
// `%`/.format templates (placeholders kept), local variables assigned once
// before use, and module-level constants.
import type { PyModule, SyntaxNode } from './model.ts';
import { memoizePer } from './memo.ts';
import { localAssignmentBefore } from './local-assignments.ts';

export type StringSource = 'literal' | 'fstring' | 'concat' | 'format' | 'constant';

export interface StringValue {
  text: string;
  from: StringSource;
}

const MAX_DEPTH = 6;
/** `NAME = <expr>` at module level (and inside top-level if/try), last assignment wins. */
export const moduleConstants: (module: PyModule) => Map<string, SyntaxNode> = memoizePer((module: PyModule) => {
  const constants = new Map<string, SyntaxNode>();
  collectAssignments(module.tree.rootNode, constants);
  return constants;
});

function collectAssignments(block: SyntaxNode, into: Map<string, SyntaxNode>): void {
  for (const statement of block.namedChildren) {
    if (statement.type === 'expression_statement') {
      const assignment = statement.namedChildren[0];
      if (assignment?.type !== 'assignment') continue;
      const left = assignment.childForFieldName('left');
      const right = assignment.childForFieldName('right');
      if (left?.type === 'identifier' && right) into.set(left.text, right);
    } else if (['if_statement', 'try_statement', 'block', 'else_clause', 'except_clause', 'finally_clause'].includes(statement.type)) {
      collectAssignments(statement, into);
    }
  }
}

export function resolveString(node: SyntaxNode | null | undefined, module: PyModule, depth = 0): StringValue | undefined {
  if (!node || depth > MAX_DEPTH) return undefined;
  switch (node.type) {
    case 'string':
      return stringLiteral(node);
    case 'concatenated_string': {
      const parts = node.namedChildren.map((part) => stringLiteral(part));
      if (parts.some((part) => !part)) return undefined;
      return { text: parts.map((part) => part!.text).join(''), from: 'concat' };
    }
    case 'parenthesized_expression':
      return resolveString(node.namedChildren[0], module, depth + 1);
    case 'binary_operator':
      return binaryOperator(node, module, depth);
    case 'call':
      return formatCall(node, module, depth);
    case 'identifier':
      return identifierValue(node, module, depth);
    case 'attribute':
      return attributeValue(node, module, depth);
    default:
      return undefined;
  }
}

/** Every value the expression may take: both branches of `a if c else b`, one value otherwise. */
export function resolveStringAlternatives(node: SyntaxNode | null | undefined, module: PyModule): StringValue[] {
  if (node?.type === 'conditional_expression') {
    const [consequence, , alternative] = node.namedChildren;
    return [...resolveStringAlternatives(consequence, module), ...resolveStringAlternatives(alternative, module)];
  }
  if (node?.type === 'parenthesized_expression') return resolveStringAlternatives(node.namedChildren[0], module);
  const value = resolveString(node, module);
  return value ? [value] : [];
}

function binaryOperator(node: SyntaxNode, module: PyModule, depth: number): StringValue | undefined {
  const operator = node.childForFieldName('operator')?.type;
  const left = node.childForFieldName('left');
  const right = node.childForFieldName('right');
  if (operator === '%') {
    const template = resolveString(left, module, depth + 1);
    return template && { text: template.text, from: 'format' };
  }
  if (operator !== '+') return undefined;
  const leftValue = resolveString(left, module, depth + 1);
  const rightValue = resolveString(right, module, depth + 1);
  // One unknown side is kept as a placeholder: `"DELETE FROM " + table` still classifies.
  if (!leftValue && !rightValue) return undefined;
  return {
    text: (leftValue?.text ?? `{${left?.text ?? ''}}`) + (rightValue?.text ?? `{${right?.text ?? ''}}`),
    from: 'concat',
  };
}

function formatCall(node: SyntaxNode, module: PyModule, depth: number): StringValue | undefined {
  const callee = node.childForFieldName('function');
  if (callee?.type !== 'attribute' || callee.childForFieldName('attribute')?.text !== 'format') return undefined;
  const template = resolveString(callee.childForFieldName('object'), module, depth + 1);
  return template && { text: template.text, from: 'format' };
}

/** A local assigned before the use in the same function wins over a module constant of the same name. */
function identifierValue(node: SyntaxNode, module: PyModule, depth: number): StringValue | undefined {
  const local = localAssignmentBefore(node);
  if (local) return resolveString(local, module, depth + 1);
  const constant = moduleConstants(module).get(node.text);
  if (!constant) return undefined;
  const value = resolveString(constant, module, depth + 1);
  return value && { text: value.text, from: 'constant' };
}

/**
 * `self.sql` / `cls.SQL` / `Store.SQL`: the class attribute `SQL = ...`, or the
 * value assigned to `self.sql` in the class's `__init__` (the one place that
 * runs before any other method). Assigned anywhere else, it is not a constant.
 */
function attributeValue(node: SyntaxNode, module: PyModule, depth: number): StringValue | undefined {
  const object = node.childForFieldName('object');
  const name = node.childForFieldName('attribute')?.text;
  if (!object || !name || object.type !== 'identifier') return undefined;
  let cls: SyntaxNode | null = node.parent;
  while (cls && cls.type !== 'class_definition') cls = cls.parent;
  if (object.text !== 'self' && object.text !== 'cls') {
    cls = module.tree.rootNode.namedChildren.find((c) => c.type === 'class_definition' && c.childForFieldName('name')?.text === object.text) ?? null;
  }
  const body = cls?.childForFieldName('body');
  if (!body) return undefined;
  const assigned = classAttribute(body, name) ?? (object.text === 'self' ? initAttribute(body, name) : undefined);
  const value = assigned && resolveString(assigned, module, depth + 1);
  return value && { text: value.text, from: 'constant' };
}

function classAttribute(body: SyntaxNode, name: string): SyntaxNode | undefined {
  let found: SyntaxNode | undefined;
  for (const statement of body.namedChildren) {
    const assignment = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
    if (assignment?.type !== 'assignment' || assignment.childForFieldName('left')?.text !== name) continue;
    found = assignment.childForFieldName('right') ?? undefined;
  }
  return found;
}

function initAttribute(body: SyntaxNode, name: string): SyntaxNode | undefined {
  const init = body.namedChildren
    .map((c) => (c.type === 'decorated_definition' ? c.childForFieldName('definition') : c))
    .find((c) => c?.type === 'function_definition' && c.childForFieldName('name')?.text === '__init__');
  const initBody = init?.childForFieldName('body');
  if (!initBody) return undefined;
  const found: SyntaxNode[] = [];
  for (const assignment of initBody.descendantsOfType('assignment')) {
    const left = assignment.childForFieldName('left');
    if (left?.type === 'attribute' && left.text.replace(/\s+/g, '') === `self.${name}`) {
      const right = assignment.childForFieldName('right');
      if (right) found.push(right);
    }
  }
  // Assigned once in __init__ only: one value, known before any method runs.
  return found.length === 1 ? found[0] : undefined;
}

/** One string node: prefix, content with escapes decoded, f-string fields kept as `{expr}`. */
function stringLiteral(node: SyntaxNode): StringValue | undefined {
  if (node.type !== 'string') return undefined;
  const prefix = (node.namedChildren[0]?.text ?? '').replace(/['"]+$/, '').toLowerCase();
  const raw = prefix.includes('r');
  let text = '';
  for (const part of node.namedChildren) {
    if (part.type === 'string_content') text += raw ? part.text : decodeEscapes(part.text);
    else if (part.type === 'interpolation') text += part.text;
  }
  return { text, from: prefix.includes('f') ? 'fstring' : 'literal' };
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '\n': '' };

function decodeEscapes(text: string): string {
  return text.replace(/\\(.)/gs, (match, char: string) => SIMPLE_ESCAPES[char] ?? match);
}
