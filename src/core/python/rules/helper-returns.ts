// What a function of the module hands back to its caller, for data-origin.ts: the
// origin of its return (and yield) values and of its parameters' defaults, judged in
// its own body with its own effects. Its parameters other than self stand for the
// caller's arguments, which the caller judges; self is the object's state ('other').
// So buku's `get_rec_all()` (a SELECT, `return self.cur.fetchall()`) is 'database',
// `convert(rows)` building text from its argument adds nothing of its own, and
// `self.snapshot()` returning `repr(self.pending)`, or `notes()` returning a file's
// text, is 'other'. Helpers calling helpers are followed MAX_HELPER_DEPTH deep; past
// that, 'other'. A helper met again while it is being judged (recursion) adds nothing
// of its own: its value is made of its other returns; so only the outermost helper's
// answer is kept for later calls, the inner ones having counted on it.
import type { PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { walkFunctionBody } from '../body-walk.ts';
import { findEffects, resolveSameModuleHelper } from '../effects.ts';
import { combine, originJudge, type Origin } from './data-origin.ts';
import { withoutInMemoryDatabase } from './memory-db.ts';
import { isOwnCode } from './syntax.ts';

/** Helper → its origin, or 'pending' while its body is being judged. Shared by one judgement's nested helpers. */
export type HelperVisits = Map<number, Origin | 'pending'>;

export const MAX_HELPER_DEPTH = 3;

export function helperReturnsOrigin(helper: PyFunction, module: PyModule, visits: HelperVisits): Origin {
  const known = visits.get(helper.node.id);
  if (known === 'pending') return 'constant';
  if (known) return known;
  const depth = [...visits.values()].filter((state) => state === 'pending').length;
  if (depth >= MAX_HELPER_DEPTH) return 'other';
  visits.set(helper.node.id, 'pending');
  const origin = judgeReturns(helper, module, visits);
  // Judged while a caller of it was pending, its answer left that caller out (mutual recursion): not kept.
  if ([...visits.values()].filter((state) => state === 'pending').length === 1) visits.set(helper.node.id, origin);
  else visits.delete(helper.node.id);
  return origin;
}

function judgeReturns(helper: PyFunction, module: PyModule, visits: HelperVisits): Origin {
  const own = findEffects(helper, module).filter((effect) => isOwnCode(effect.node, helper.node));
  const effects = withoutInMemoryDatabase(own, helper, module, resolveSameModuleHelper);
  const first = helper.params[0];
  const judge = originJudge({
    fnNode: helper.node,
    module,
    effects,
    fn: helper,
    argumentsNeutral: true,
    visits,
    ...(helper.className && first ? { selfName: first } : {}),
  });
  return combine([...handedBack(helper.node), ...defaults(helper.node)].map(judge));
}

/** The values of the function's own `return x` and `yield x` (not of functions nested in it). */
function handedBack(fnNode: SyntaxNode): SyntaxNode[] {
  const values: SyntaxNode[] = [];
  walkFunctionBody(fnNode, (node) => {
    if (node.type !== 'return_statement' && node.type !== 'yield') return;
    const value = node.namedChildren.find((child) => child.type !== 'comment');
    if (value) values.push(value);
  });
  return values;
}

/** `def f(rows, extra=STATE)`: a caller that leaves the argument out gets the default. */
function defaults(fnNode: SyntaxNode): SyntaxNode[] {
  return (fnNode.childForFieldName('parameters')?.namedChildren ?? []).flatMap((parameter) => {
    const value = parameter.type === 'default_parameter' || parameter.type === 'typed_default_parameter' ? parameter.childForFieldName('value') : null;
    return value ? [value] : [];
  });
}
