// `with SqlCursor(self, True) as sql: sql.execute(...)` (lollypop's add_uri): a repository class whose
// `__exit__` commits. The block saves its writes as a step of its own whatever the mode, like a helper's own
// `with conn:` block (facts.ts helperConnectionBlock). The `__exit__` that runs is the class's own or an
// ancestor's (never a subclass's). A commit on its success path counts (`if exc_type is None:`, a `try` body); one
// under another `if` counts only when the `with` passes a literal `True` to the `__init__` parameter stored in the
// attribute that `if` tests (SqlCursor's `commit` flag); an `__exit__` that may commit or not on other grounds is
// not taken for a committing block.
import type { PyFunction, PyModule, SyntaxNode } from '../model.ts';
import type { RepoIndex } from '../callgraph.ts';
import { callParts } from '../body-walk.ts';
import { memoizePer } from '../memo.ts';
import { descendantsOf, familyMethods, last, repositoryClassNames } from './class-family.ts';

/** The with item is `Wrapper(...) as name`, `name` is the receiver, and the wrapper's `__exit__` commits. */
export function committingWrapperAs(item: SyntaxNode, receiver: string, index: RepoIndex): boolean {
  const pattern = item.childForFieldName('value');
  if (pattern?.type !== 'as_pattern' || pattern.childForFieldName('alias')?.text !== receiver) return false;
  const call = pattern.namedChildren[0];
  if (call?.type !== 'call') return false;
  const parts = callParts(call);
  const className = last(parts.callee);
  const commits = exitCommits(index).get(className);
  if (commits === undefined) return false;
  if (commits === 'always') return true;
  // the literal True must land on the __init__ parameter the guard tests (`commit=True`, not `rows=True`).
  const init = familyMethods(className, '__init__', index).find(({ fn }) => !descendantsOf(className, index).has(last(fn.className!)));
  if (!init) return false;
  const params = init.fn.params.filter((name) => name !== 'self');
  return params.some((name, i) => {
    const given = parts.keywords.get(name) ?? parts.positional[i];
    return given?.type === 'true' && flagNames(index).get(className)?.has(name) === true;
  });
}

/** the __init__ parameters whose `self.x = param` attribute the committing `__exit__`'s guard tests. */
const flagNames = memoizePer((index: RepoIndex): Map<string, Set<string>> => {
  const answers = new Map<string, Set<string>>();
  for (const className of repositoryClassNames(index)) {
    const own = ownLine(className, index);
    const exit = own.find(({ fn }) => fn.name === '__exit__');
    const init = own.find(({ fn }) => fn.name === '__init__');
    if (!exit || !init) continue;
    const tested = new Set<string>();
    for (const call of exit.fn.node.descendantsOfType('call')) {
      if (callParts(call).method !== 'commit') continue;
      for (let node = call.parent; node && node.id !== exit.fn.node.id; node = node.parent) {
        if (node.type !== 'if_statement') continue;
        for (const attribute of node.childForFieldName('condition')?.descendantsOfType('attribute') ?? []) {
          if (attribute.childForFieldName('object')?.text === 'self') tested.add(attribute.childForFieldName('attribute')?.text ?? '');
        }
      }
    }
    const names = new Set<string>();
    for (const assignment of init.fn.node.descendantsOfType('assignment')) {
      const left = assignment.childForFieldName('left');
      const right = assignment.childForFieldName('right');
      if (left?.type === 'attribute' && left.childForFieldName('object')?.text === 'self' && tested.has(left.childForFieldName('attribute')?.text ?? '') && right?.type === 'identifier') names.add(right.text);
    }
    answers.set(className, names);
  }
  return answers;
});

/** the class and its ancestors (not its subclasses: their `__exit__` does not run for `Class(...)`), nearest first as far as the family tells. */
function ownLine(className: string, index: RepoIndex): { fn: PyFunction; module: PyModule }[] {
  const below = descendantsOf(className, index);
  const methods = familyMethods(className, undefined, index).filter(({ fn }) => !below.has(last(fn.className!)));
  return methods.sort((a, b) => (last(a.fn.className!) === className ? -1 : 0) - (last(b.fn.className!) === className ? -1 : 0));
}

/** By class name: `always` when some `__exit__` of its family commits outside any `if`, `flagged` when only under one. */
const exitCommits = memoizePer((index: RepoIndex): Map<string, 'always' | 'flagged'> => {
  const answers = new Map<string, 'always' | 'flagged'>();
  for (const className of repositoryClassNames(index)) {
    let answer: 'always' | 'flagged' | undefined;
    // the `__exit__` that runs for `Class(...)`: the class's own, else an ancestor's; never a subclass's.
    for (const { fn } of ownLine(className, index).filter(({ fn: each }) => each.name === '__exit__').slice(0, 1)) {
      for (const call of fn.node.descendantsOfType('call')) {
        if (callParts(call).method !== 'commit') continue;
        const guarded = ancestorIf(call, fn.node);
        answer = !guarded ? 'always' : (answer ?? 'flagged');
      }
    }
    if (answer) answers.set(className, answer);
  }
  return answers;
});

function ancestorIf(node: SyntaxNode, fnNode: SyntaxNode): boolean {
  const excName = fnNode.childForFieldName('parameters')?.namedChildren[1]?.text;
  for (let current = node.parent, child: SyntaxNode = node; current && current.id !== fnNode.id; child = current, current = current.parent) {
    // `try: conn.commit() finally: conn.close()`: the try body runs; handlers and else do not always.
    if (current.type === 'try_statement' && child.type === 'block' && current.childForFieldName('body')?.id === child.id) continue;
    // `if exc_type is None: commit() else: rollback()`: the block's success path commits.
    if (current.type === 'if_statement' && excName !== undefined && /^(not\s+(\w+)|(\w+)\s+is\s+None)$/.test(current.childForFieldName('condition')?.text ?? '') && (current.childForFieldName('condition')?.text ?? '').includes(excName) && current.childForFieldName('consequence')?.id === child.id) continue;
    // `if exc_type is not None: rollback() else: commit()` (or `if exc_type:`): the else arm is the success path.
    if (current.type === 'else_clause' && current.parent?.type === 'if_statement' && excName !== undefined && current.parent.childForFieldName('alternative')?.id === current.id && new RegExp(`^(${excName}|${excName}\\s+is\\s+not\\s+None)$`).test(current.parent.childForFieldName('condition')?.text ?? '')) { child = current.parent; current = current.parent; continue; }
    if (current.type === 'if_statement' || current.type === 'conditional_expression' || current.type === 'try_statement') return true;
  }
  return false;
}
