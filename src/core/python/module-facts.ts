// One pass over a module's tree, with a TreeCursor, collecting what the
// analyses ask about, per function: its own calls (with how many loops
// enclose them), its assignments to connection modes, its `with` items.
// The node binding makes every materialized node costly, so the walk only
// materializes those nodes; effects, transaction style and the call graph
// all read these facts instead of walking the tree again.
import type Parser from 'tree-sitter';
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

const LOOPS = new Set(['for_statement', 'while_statement', 'list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);
const MODE_ATTRIBUTE = /\.\s*(isolation_level|autocommit)\s*[^=]*=/;

const calleeTexts = new WeakMap<SyntaxNode, string>();

function callFact(cursor: Parser.TreeCursor, loopDepth: number): CallFact {
  const node = cursor.currentNode;
  const start = cursor.startPosition;
  const end = cursor.endPosition;
  cursor.gotoFirstChild();
  const callee = cursor.nodeText;
  cursor.gotoParent();
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

interface Frame {
  scope: ScopeFacts;
  inLambda: boolean;
  /** Loops around the node itself. */
  loopDepth: number;
  type: string;
}

/** Whether a child of a loop node runs once per iteration: a for loop's body, a while loop's test and body, all of a comprehension. */
function repeats(parentType: string, field: string | null): boolean {
  if (parentType === 'for_statement') return field === 'body';
  if (parentType === 'while_statement') return field !== 'alternative';
  return LOOPS.has(parentType);
}

function collect(module: PyModule): ModuleFacts {
  const scopes = new Map<number, ScopeFacts>();
  const moduleScope: ScopeFacts = { calls: [], lambdaCalls: [], modeAssignments: [], withItems: [] };
  scopes.set(MODULE_SCOPE, moduleScope);
  const imports: SyntaxNode[] = [];
  const cursor = module.tree.walk();
  // The frames of the current node's ancestors: the scope their code belongs to and the loops around them.
  const frames: Frame[] = [{ scope: moduleScope, inLambda: false, loopDepth: 0, type: '' }];
  for (;;) {
    const parent = frames[frames.length - 1]!;
    const type = cursor.nodeType;
    let scope = parent.scope;
    let inLambda = parent.inLambda;
    let loopDepth = parent.loopDepth + (LOOPS.has(parent.type) && repeats(parent.type, cursor.currentFieldName) ? 1 : 0);
    if (type === 'function_definition') {
      scope = { calls: [], lambdaCalls: [], modeAssignments: [], withItems: [] };
      scopes.set(cursor.currentNode.id, scope);
      loopDepth = 0;
      inLambda = false;
    } else if (type === 'lambda') {
      // A lambda's body runs when it is called, not where it is written.
      inLambda = true;
    } else if (type === 'call') {
      (inLambda ? scope.lambdaCalls : scope.calls).push(callFact(cursor, loopDepth));
    } else if (type === 'import_statement' || type === 'import_from_statement') {
      imports.push(cursor.currentNode);
    } else if (!inLambda) {
      if (type === 'with_item') scope.withItems.push(cursor.currentNode);
      else if ((type === 'assignment' || type === 'augmented_assignment') && MODE_ATTRIBUTE.test(cursor.nodeText)) {
        scope.modeAssignments.push(cursor.currentNode);
      }
    }
    if (cursor.gotoFirstChild()) {
      frames.push({ scope, inLambda, loopDepth, type });
      continue;
    }
    let done = false;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        done = true;
        break;
      }
      frames.pop();
    }
    if (done) break;
  }
  return { scopes, imports };
}
