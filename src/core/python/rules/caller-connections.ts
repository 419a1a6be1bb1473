// Every call that reaches a private function of the module, when the module shows them all: each use
// of its name is its own `def` or a call resolving to it from a function of the module
// (`self._init_db(db)` in a method of its class, `_save(conn)` for a function). Then its parameters
// hold only what those calls pass (coverage's `_init_db(self, db)`, called only as `self._init_db(db)`
// in `_read_db`). A public name may be called from anywhere; any other use of a private one
// (`f = self._init_db`, a callback, `getattr(self, "_init_db")`, even a comment naming it) lets it
// escape, and then there is no answer.
// Partial: a subclass in another module calling the private name is not seen (the underscore says it should not).
import Parser from 'tree-sitter';
import Python from 'tree-sitter-python';
import type { PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { decoratorTexts, enclosingFunctionNode, listedFunction } from '../functions.ts';
import { resolveLocalCall } from '../local-resolve.ts';
import { memoizePer } from '../memo.ts';

export interface CallSite {
  call: SyntaxNode;
  /** The function the call is written in. */
  caller: PyFunction;
}

/** The calls of `fn` in its module, at least one; undefined when it is public, wrapped by a decorator, or its name escapes. */
export function everyCallOf(fn: PyFunction, module: PyModule): CallSite[] | undefined {
  const answers = callSiteAnswers(module);
  if (!answers.has(fn)) answers.set(fn, findEveryCall(fn, module));
  return answers.get(fn);
}

const callSiteAnswers = memoizePer((_module: PyModule): Map<PyFunction, CallSite[] | undefined> => new Map());

function findEveryCall(fn: PyFunction, module: PyModule): CallSite[] | undefined {
  if (!isPrivate(fn.name) || !plainlyDefined(fn)) return undefined;
  const uses = identifiersNamed(fn.name, module);
  // A mention the tree holds as no identifier (a string, a comment) may be a getattr or a dispatch table.
  if (uses.length !== wordCount(fn.name, module.source)) return undefined;
  const sites: CallSite[] = [];
  for (const use of uses) {
    if (isOwnDefinitionName(use, fn)) continue;
    const site = callSite(use, fn, module);
    if (!site) return undefined;
    sites.push(site);
  }
  return sites.length > 0 ? sites : undefined;
}

/** `_init_db` or `__helper`, not `__init__` (Python calls dunders itself) nor `save`. */
function isPrivate(name: string): boolean {
  return name.startsWith('_') && !/^__.*__$/.test(name);
}

/** No decorator but `@staticmethod`/`@classmethod`: any other may call it with other arguments or hand it elsewhere. */
function plainlyDefined(fn: PyFunction): boolean {
  return decoratorTexts(fn.node).every((decorator) => /^(staticmethod|classmethod)$/.test(decorator));
}

function isOwnDefinitionName(use: SyntaxNode, fn: PyFunction): boolean {
  return use.parent?.id === fn.node.id && fn.node.childForFieldName('name')?.id === use.id;
}

/**
 * The call `use` names the callee of, when it resolves to `fn` from the function it is written in:
 * `self.name(...)`/`cls.name(...)` for a method, `name(...)` for a function. Not inside a lambda:
 * the arguments are read when it runs, later, and may no longer be what they were.
 */
function callSite(use: SyntaxNode, fn: PyFunction, module: PyModule): CallSite | undefined {
  const callee = fn.className !== undefined ? selfAttribute(use) : use;
  const call = callee?.parent;
  if (!callee || call?.type !== 'call' || call.childForFieldName('function')?.id !== callee.id) return undefined;
  const callerNode = enclosingFunctionNode(call);
  const caller = callerNode && listedFunction(callerNode, module);
  if (!caller || insideLambda(call, caller.node) || resolveLocalCall(call, module, caller) !== fn) return undefined;
  return { call, caller };
}

/** `self.name` or `cls.name` when `use` is its attribute's name. */
function selfAttribute(use: SyntaxNode): SyntaxNode | undefined {
  const attribute = use.parent;
  if (attribute?.type !== 'attribute' || attribute.childForFieldName('attribute')?.id !== use.id) return undefined;
  return /^(self|cls)$/.test(attribute.childForFieldName('object')?.text ?? '') ? attribute : undefined;
}

function insideLambda(node: SyntaxNode, fnNode: SyntaxNode): boolean {
  for (let current = node.parent; current && current.id !== fnNode.id; current = current.parent) {
    if (current.type === 'lambda') return true;
  }
  return false;
}

/** The identifiers spelled `name`, found natively: materializing every identifier of a large module is costly. */
function identifiersNamed(name: string, module: PyModule): SyntaxNode[] {
  // `name` is a def's name, a Python identifier: safe inside the query's string.
  const query = new Parser.Query(Python as Parser.Language, `((identifier) @use (#eq? @use "${name}"))`);
  return query.captures(module.tree.rootNode).map(({ node }) => node);
}

function wordCount(name: string, source: string): number {
  return source.match(new RegExp(`(?<![\\w])${name}(?![\\w])`, 'gu'))?.length ?? 0;
}
