// A function's assignments to plain names, found once per function: asking
// "what was `x` last assigned before this use?" by walking the body again for
// every use made the analysis quadratic in a function's size (every call
// through an alias or variable asked once).
import Parser from 'tree-sitter';
import Python from 'tree-sitter-python';
import { enclosingFunctionNode } from './functions.ts';
import type { SyntaxNode } from './model.ts';

interface NameAssignment {
  start: number;
  right: SyntaxNode;
  rightEnd: number;
}

const QUERY = `
(assignment left: (identifier) @left right: (_) @right) @assignment
(function_definition) @definition
`;

let query: Parser.Query | undefined;

/** Per tree, per function node id: name → its assignments in source order (nested functions' own left out). */
const byTree = new WeakMap<Parser.Tree, Map<number, Map<string, NameAssignment[]>>>();

function assignmentsOf(fn: SyntaxNode): Map<string, NameAssignment[]> {
  let functions = byTree.get(fn.tree);
  if (!functions) byTree.set(fn.tree, (functions = new Map()));
  let names = functions.get(fn.id);
  if (names) return names;
  names = new Map();
  functions.set(fn.id, names);
  const body = fn.childForFieldName('body');
  if (!body) return names;
  query ??= new Parser.Query(Python as Parser.Language, QUERY);
  const nested: { start: number; end: number }[] = [];
  const found: { name: string; assignment: NameAssignment }[] = [];
  for (const match of query.matches(body)) {
    const of = (capture: string) => match.captures.find((c) => c.name === capture)?.node;
    const definition = of('definition');
    if (definition) {
      nested.push({ start: definition.startIndex, end: definition.endIndex });
      continue;
    }
    const assignment = of('assignment')!;
    const right = of('right')!;
    found.push({ name: of('left')!.text, assignment: { start: assignment.startIndex, right, rightEnd: right.endIndex } });
  }
  const inNested = (at: number) => nested.some((range) => range.start <= at && at < range.end);
  for (const { name, assignment } of found.sort((a, b) => a.assignment.start - b.assignment.start)) {
    if (inNested(assignment.start)) continue;
    const list = names.get(name);
    if (list) list.push(assignment);
    else names.set(name, [assignment]);
  }
  return names;
}

/** The value last assigned to the identifier `use` earlier in its function, if any. */
export function localAssignmentBefore(use: SyntaxNode): SyntaxNode | undefined {
  const fn = enclosingFunctionNode(use);
  if (!fn) return undefined;
  const assignments = assignmentsOf(fn).get(use.text);
  if (!assignments) return undefined;
  const at = use.startIndex;
  for (let i = assignments.length - 1; i >= 0; i--) {
    const { start, right, rightEnd } = assignments[i]!;
    if (start < at && rightEnd <= at) return right;
  }
  return undefined;
}
