// One query over a module's tree collecting what the analyses ask about, per
// function: its own calls (with how many loops enclose them), its
// assignments to connection modes, its `with` items. The node binding makes
// every materialized node and every native call costly, so only those nodes
// are materialized; effects, transaction style and the call graph all read
// these facts instead of walking the tree again.
import Parser from 'tree-sitter';
import Python from 'tree-sitter-python';
import type { PyModule, SourceRange, SyntaxNode } from './model.ts';
import { memoizePer } from './memo.ts';

export interface CallFact {
  node: SyntaxNode;
  /** The callee as written (`conn.execute`, `Path(p).open`), read off the cursor without materializing it. */
  callee: string;
  range: SourceRange;
  /** How many loops (for/while bodies, comprehensions) enclose the call within its function. */
  loopDepth: number;
}

export interface ScopeFacts {
  calls: CallFact[];
  /** Calls inside lambdas written in this scope: they run later, if at all, so they have no effects here, but they are calls. */
  lambdaCalls: CallFact[];
  /** `x.isolation_level = ...` / `x.autocommit = ...` (only these: nothing else asks). */
  modeAssignments: SyntaxNode[];
  withItems: SyntaxNode[];
}

export interface ModuleFacts {
  /** Keyed by the function_definition node's id; the module's top-level code (and class bodies) under MODULE_SCOPE. */
  scopes: Map<number, ScopeFacts>;
  /** Every import statement, function-local ones included. */
  imports: SyntaxNode[];
}

export const MODULE_SCOPE = -1;

const MODE_ATTRIBUTE = /\.\s*(isolation_level|autocommit)\s*[^=]*=/;
const MODE_WORD = /isolation_level|autocommit/;

const calleeTexts = new WeakMap<SyntaxNode, string>();

function callFact(node: SyntaxNode, loopDepth: number): CallFact {
  const start = node.startPosition;
  const end = node.endPosition;
  const callee = node.firstChild?.text ?? '';
  calleeTexts.set(node, callee);
  return { node, callee, loopDepth, range: { startLine: start.row + 1, startColumn: start.column, endLine: end.row + 1, endColumn: end.column } };
}

/** The callee text of a call node: from the walk when it saw the node, else from the node. */
export function calleeTextOf(call: SyntaxNode): string {
  return calleeTexts.get(call) ?? call.childForFieldName('function')?.text ?? '';
}

export const moduleFacts: (module: PyModule) => ModuleFacts = memoizePer((module: PyModule) => collect(module));

/** The facts of one function's own code (nested functions, classes and lambdas are their own units). */
export function scopeFacts(module: PyModule, fnNode: SyntaxNode | undefined): ScopeFacts {
  return moduleFacts(module).scopes.get(fnNode ? fnNode.id : MODULE_SCOPE) ?? EMPTY;
}

const EMPTY: ScopeFacts = { calls: [], lambdaCalls: [], modeAssignments: [], withItems: [] };


// What the facts need, found natively by one query: the node binding charges a native call for every
// step of a walk in JS (a cursor's type, field, moves), several per node of the tree, while a query
// hands over only these nodes. The captures come in document order, outer before inner.
const FACTS_QUERY = `
(function_definition) @fn
(lambda) @lambda
(for_statement body: (_) @repeat)
(while_statement condition: (_) @repeat)
(while_statement body: (_) @repeat)
[(list_comprehension) (set_comprehension) (dictionary_comprehension) (generator_expression)] @repeat
(call) @call
[(import_statement) (import_from_statement)] @import
(with_item) @with
`;
const MODE_QUERY = `[(assignment) (augmented_assignment)] @assignment`;

let queries: { facts: Parser.Query; modes: Parser.Query } | undefined;

function factQueries(): { facts: Parser.Query; modes: Parser.Query } {
  queries ??= { facts: new Parser.Query(Python as Parser.Language, FACTS_QUERY), modes: new Parser.Query(Python as Parser.Language, MODE_QUERY) };
  return queries;
}

/** What code at a point of the module belongs to: the innermost function's facts, inside a lambda or not, how many loops repeat it. */
interface State {
  scope: ScopeFacts;
  inLambda: boolean;
  loopDepth: number;
}

/** A node that changes the state of the code within it (a function, a lambda, a repeated part of a loop). */
interface Region {
  start: number;
  end: number;
  state: State;
}

/** Capture kinds that open a region sort before the facts they hold when both cover the same text. */
const OPENS_REGION = new Set(['fn', 'lambda', 'repeat']);

const LOOP_TYPES = new Set(['for_statement', 'while_statement']);
const ENDS_PASS = new Set(['return_statement', 'break_statement', 'raise_statement']);

/**
 * A loop body whose last statement always leaves the loop (`return`, `break`, `raise`) and that has no
 * `continue` of its own: its first pass is its only one (queuelib's FifoSQLiteQueue.pop: `for id_, item
 * in conn.execute(...): conn.execute(DELETE ...); return item`), so what it calls is not repeated.
 */
function runsAtMostOnce(body: SyntaxNode): boolean {
  const loop = body.parent;
  if (body.type !== 'block' || !loop || !LOOP_TYPES.has(loop.type) || loop.childForFieldName('body')?.id !== body.id) return false;
  const statements = body.namedChildren.filter((child) => child.type !== 'comment');
  if (!ENDS_PASS.has(statements.at(-1)?.type ?? '')) return false;
  return body.descendantsOfType('continue_statement').every((statement) => nearestLoop(statement)?.id !== loop.id);
}

function nearestLoop(node: SyntaxNode): SyntaxNode | undefined {
  for (let at = node.parent; at; at = at.parent) {
    if (LOOP_TYPES.has(at.type)) return at;
    if (at.type === 'function_definition' || at.type === 'lambda') return undefined;
  }
  return undefined;
}

function collect(module: PyModule): ModuleFacts {
  const scopes = new Map<number, ScopeFacts>();
  const moduleScope: ScopeFacts = { calls: [], lambdaCalls: [], modeAssignments: [], withItems: [] };
  scopes.set(MODULE_SCOPE, moduleScope);
  const imports: SyntaxNode[] = [];
  const { facts, modes } = factQueries();
  const root = module.tree.rootNode;
  const found = facts.captures(root);
  // An assignment's text is read only where it could name a mode: most modules never do.
  if (MODE_WORD.test(module.source)) found.push(...modes.captures(root));
  const captures = found.map(({ name, node }) => ({ name, node, start: node.startIndex, end: node.endIndex }));
  // Document order, an enclosing node before the nodes within it (a while loop's test can be the call itself).
  captures.sort((a, b) => a.start - b.start || b.end - a.end || Number(OPENS_REGION.has(b.name)) - Number(OPENS_REGION.has(a.name)));
  const regions: Region[] = [];
  const moduleState: State = { scope: moduleScope, inLambda: false, loopDepth: 0 };
  for (const { name, node, start, end } of captures) {
    while (regions.length > 0 && !(regions[regions.length - 1]!.start <= start && end <= regions[regions.length - 1]!.end)) regions.pop();
    const state = regions.length > 0 ? regions[regions.length - 1]!.state : moduleState;
    switch (name) {
      case 'fn': {
        const scope: ScopeFacts = { calls: [], lambdaCalls: [], modeAssignments: [], withItems: [] };
        scopes.set(node.id, scope);
        regions.push({ start, end, state: { scope, inLambda: false, loopDepth: 0 } });
        break;
      }
      case 'lambda':
        // A lambda's body runs when it is called, not where it is written.
        regions.push({ start, end, state: { ...state, inLambda: true } });
        break;
      case 'repeat':
        regions.push({ start, end, state: { ...state, loopDepth: runsAtMostOnce(node) ? state.loopDepth : state.loopDepth + 1 } });
        break;
      case 'call':
        (state.inLambda ? state.scope.lambdaCalls : state.scope.calls).push(callFact(node, state.loopDepth));
        break;
      case 'import':
        imports.push(node);
        break;
      case 'with':
        if (!state.inLambda) state.scope.withItems.push(node);
        break;
      case 'assignment':
        if (!state.inLambda && MODE_ATTRIBUTE.test(node.text)) state.scope.modeAssignments.push(node);
        break;
    }
  }
  return { scopes, imports };
}
