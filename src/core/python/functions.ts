// Every function and method of a module, nested ones included, named the
// way a reviewer would: `Class.method`, `outer.inner`.
import Parser from 'tree-sitter';
import Python from 'tree-sitter-python';
import type { PyFunction, PyModule, SyntaxNode } from './model.ts';
import { rangeOf } from './source-range.ts';
import { memoizePer } from './memo.ts';

/** A definition's decorators as written, without the `@`: `property`, `functools.cached_property`, `app.route("/")`. */
export function decoratorTexts(definition: SyntaxNode): string[] {
  const decorated = definition.parent?.type === 'decorated_definition' ? definition.parent : undefined;
  return (decorated?.namedChildren ?? []).filter((child) => child.type === 'decorator').map((decorator) => decorator.text.replace(/^@\s*/, '').trim());
}

/** In source order; cached per module, so every analysis shares the same PyFunction objects. */
export const listFunctions: (module: PyModule) => PyFunction[] = memoizePer((module: PyModule) => {
  const functions: PyFunction[] = [];
  const root = module.tree.rootNode;
  // A broken tree can hold a def where the walk below does not look (inside an ERROR node in an
  // expression, say); the query would find it, so such trees keep the walk and its answer.
  if (root.hasError) collect(root, [], undefined, functions);
  else collectFromQuery(root, functions);
  return functions;
});

// The node binding charges a native call for every node a JS walk visits; the query finds the
// definitions natively. In a tree without errors a def or class sits only in a block or under a
// decorator, where the walk reaches every one, so both list the same functions in the same order.
const DEFINITIONS_QUERY = '(function_definition) @fn (class_definition) @class';
let definitionsQuery: Parser.Query | undefined;

function collectFromQuery(root: SyntaxNode, out: PyFunction[]): void {
  definitionsQuery ??= new Parser.Query(Python as Parser.Language, DEFINITIONS_QUERY);
  // The definitions enclosing the current one, outermost first (captures come in document order).
  const enclosing: { end: number; name: string; isClass: boolean }[] = [];
  for (const { name: kind, node } of definitionsQuery.captures(root)) {
    const start = node.startIndex;
    while (enclosing.length > 0 && enclosing[enclosing.length - 1]!.end <= start) enclosing.pop();
    const scope = enclosing.map((definition) => definition.name);
    const innermost = enclosing[enclosing.length - 1];
    if (kind === 'fn') {
      const fn = describeFunction(node, scope, innermost?.isClass ? innermost.name : undefined);
      out.push(fn);
      enclosing.push({ end: node.endIndex, name: fn.name, isClass: false });
    } else {
      enclosing.push({ end: node.endIndex, name: node.childForFieldName('name')?.text ?? '?', isClass: true });
    }
  }
}

function collect(node: SyntaxNode, scope: string[], className: string | undefined, out: PyFunction[]): void {
  for (const child of node.namedChildren) {
    const definition = child.type === 'decorated_definition' ? child.childForFieldName('definition') : child;
    if (!definition) continue;
    if (definition.type === 'function_definition') {
      const fn = describeFunction(definition, scope, className);
      out.push(fn);
      const body = definition.childForFieldName('body');
      if (body) collect(body, [...scope, fn.name], undefined, out);
    } else if (definition.type === 'class_definition') {
      const name = definition.childForFieldName('name')?.text ?? '?';
      const body = definition.childForFieldName('body');
      if (body) collect(body, [...scope, name], name, out);
    } else if (isCompound(definition.type)) {
      // `if TYPE_CHECKING:`, `try:` and friends hold definitions of the same scope.
      collect(definition, scope, className, out);
    }
  }
}

const COMPOUND = new Set([
  'if_statement', 'elif_clause', 'else_clause', 'try_statement', 'except_clause', 'finally_clause',
  'with_statement', 'for_statement', 'while_statement', 'block', 'match_statement', 'case_clause',
  'except_group_clause', 'ERROR',
]);

function isCompound(type: string): boolean {
  return COMPOUND.has(type);
}

function describeFunction(node: SyntaxNode, scope: string[], className: string | undefined): PyFunction {
  const name = node.childForFieldName('name')?.text ?? '?';
  const parameters = node.childForFieldName('parameters');
  const fn: PyFunction = {
    qualname: [...scope, name].join('.'),
    name,
    range: rangeOf(node),
    signature: signatureOf(node),
    params: parameters ? parameterNames(parameters) : [],
    isAsync: node.child(0)?.type === 'async',
    node,
  };
  if (className !== undefined) fn.className = className;
  return fn;
}

/** `def name(params) -> ret:` on one line, whitespace collapsed, comments dropped. */
function signatureOf(node: SyntaxNode): string {
  const body = node.childForFieldName('body');
  const end = body ? body.startIndex : node.endIndex;
  const head = node.text.slice(0, end - node.startIndex);
  return head
    .replace(/#[^\n]*/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\(\s+/g, '(')
    .replace(/\s+\)/g, ')')
    .trim();
}

/** Names as a caller sees them: `self`, `x`, `*args`, `**kwargs`; the bare `*` and `/` separators are left out. */
function parameterNames(parameters: SyntaxNode): string[] {
  const names: string[] = [];
  for (const param of parameters.namedChildren) {
    switch (param.type) {
      case 'identifier':
        names.push(param.text);
        break;
      case 'typed_parameter':
      case 'list_splat_pattern':
      case 'dictionary_splat_pattern': {
        const inner = param.type === 'typed_parameter' ? param.namedChildren[0] : param;
        if (!inner) break;
        if (inner.type === 'list_splat_pattern') names.push(`*${inner.namedChildren[0]?.text ?? ''}`);
        else if (inner.type === 'dictionary_splat_pattern') names.push(`**${inner.namedChildren[0]?.text ?? ''}`);
        else names.push(inner.text);
        break;
      }
      case 'default_parameter':
      case 'typed_default_parameter': {
        const name = param.childForFieldName('name');
        if (name) names.push(name.text);
        break;
      }
      default:
        break;
    }
  }
  return names;
}

/** The innermost function whose lines include `line`. */
export function functionAtLine(functions: readonly PyFunction[], line: number): PyFunction | undefined {
  let best: PyFunction | undefined;
  for (const fn of functions) {
    const start = definitionStartLine(fn);
    if (line >= start && line <= fn.range.endLine) {
      if (!best || start >= definitionStartLine(best)) best = fn;
    }
  }
  return best;
}

/** The first line of the definition, decorators included: a changed decorator changes the function. */
export function definitionStartLine(fn: PyFunction): number {
  const parent = fn.node.parent;
  return parent?.type === 'decorated_definition' ? parent.startPosition.row + 1 : fn.range.startLine;
}

/** The listed function whose definition is `definition` (enclosingFunctionNode's answer), if listed. */
export function listedFunction(definition: SyntaxNode, module: PyModule): PyFunction | undefined {
  return listFunctions(module).find((candidate) => candidate.node.id === definition.id);
}

/** The function a node sits in, the innermost one. */
export function enclosingFunctionNode(node: SyntaxNode): SyntaxNode | undefined {
  for (let current = node.parent; current; current = current.parent) {
    if (current.type === 'function_definition') return current;
  }
  return undefined;
}
