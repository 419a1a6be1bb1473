// Walks one function's own body in source order: nested functions and
// classes are their own units and are skipped; loops are counted so effects
// know when they repeat.
import type { SyntaxNode } from './model.ts';

const LOOPS = new Set([
  'for_statement', 'while_statement', 'list_comprehension', 'set_comprehension',
  'dictionary_comprehension', 'generator_expression',
]);
const OWN_UNITS = new Set(['function_definition', 'class_definition', 'decorated_definition']);

export interface WalkState {
  /** How many loops (for, while, comprehensions) enclose the node within the function. */
  loopDepth: number;
}

export function walkFunctionBody(fnNode: SyntaxNode, visit: (node: SyntaxNode, state: WalkState) => void): void {
  const body = fnNode.childForFieldName('body');
  if (body) walk(body, 0, visit);
}

function walk(node: SyntaxNode, loopDepth: number, visit: (node: SyntaxNode, state: WalkState) => void): void {
  visit(node, { loopDepth });
  const inner = LOOPS.has(node.type) ? loopDepth + 1 : loopDepth;
  for (const child of node.namedChildren) {
    if (OWN_UNITS.has(child.type)) continue;
    // A for loop's iterable is evaluated once; only its body repeats.
    const depth = node.type === 'for_statement' && child === node.childForFieldName('right') ? loopDepth : inner;
    walk(child, depth, visit);
  }
}

/** `a.b.c`, `sqlite3.connect().execute`, `self.db[]`: the callee as written, arguments elided. */
export function dottedName(node: SyntaxNode | null | undefined): string {
  if (!node) return '?';
  switch (node.type) {
    case 'identifier':
      return node.text;
    case 'attribute':
      return `${dottedName(node.childForFieldName('object'))}.${node.childForFieldName('attribute')?.text ?? '?'}`;
    case 'call':
      return `${dottedName(node.childForFieldName('function'))}()`;
    case 'subscript':
      return `${dottedName(node.childForFieldName('value'))}[]`;
    case 'parenthesized_expression':
      return dottedName(node.namedChildren[0]);
    default:
      return node.type === 'string' ? 'str' : '…';
  }
}

export interface CallParts {
  callee: string;
  /** The last name of the callee: `execute` for `conn.execute`. */
  method: string;
  receiver?: SyntaxNode;
  positional: SyntaxNode[];
  keywords: Map<string, SyntaxNode>;
  argumentList?: SyntaxNode;
}

export function callParts(call: SyntaxNode): CallParts {
  const fn = call.childForFieldName('function');
  const argumentList = call.childForFieldName('arguments') ?? undefined;
  const positional: SyntaxNode[] = [];
  const keywords = new Map<string, SyntaxNode>();
  for (const argument of argumentList?.namedChildren ?? []) {
    if (argument.type === 'keyword_argument') {
      const name = argument.childForFieldName('name')?.text;
      const value = argument.childForFieldName('value');
      if (name && value) keywords.set(name, value);
    } else if (argument.type !== 'comment') {
      positional.push(argument);
    }
  }
  const parts: CallParts = {
    callee: dottedName(fn),
    method: fn?.type === 'attribute' ? fn.childForFieldName('attribute')?.text ?? '' : fn?.text ?? '',
    positional,
    keywords,
  };
  if (argumentList) parts.argumentList = argumentList;
  const receiver = fn?.type === 'attribute' ? fn.childForFieldName('object') : null;
  if (receiver) parts.receiver = receiver;
  return parts;
}
