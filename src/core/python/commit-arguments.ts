// Whether a call asks its callee not to commit: `commit=False`, `delay_commit=True`, or the same
// passed positionally (`self.add_rec(url, title, tags, None, 0, True, False)`, buku) or left to a
// default (`def save(conn, delay_commit=True)` called as `save(conn)`), or from the tuples a loop
// item holds (`for item in gen(): self.add_rec(*item)`, loop-item-tuples.ts). Positions are read against
// the callee's own parameter list, so they need the callee; keywords are judged at the call site
// alone, whether the callee is known or not.
import type { PyFunction, PyModule, SyntaxNode } from './model.ts';
import { callParts, type CallParts } from './body-walk.ts';
import { loopItemTuples, type FunctionResolver } from './loop-item-tuples.ts';

const SKIP_WHEN_TRUE = /^(delay|defer|skip|no|without)_?commit$/i;
const SKIP_WHEN_FALSE = /^(auto_?)?commit(_now)?$|^do_commit$/i;

/** True when the argument `value` given to a parameter named `name` turns the commit off. */
function turnsCommitOff(name: string, value: string | undefined): boolean {
  return (SKIP_WHEN_TRUE.test(name) && value === 'True') || (SKIP_WHEN_FALSE.test(name) && value === 'False');
}

/** Where the call is written, so a `*item` argument can be traced to the tuples the loop iterates. */
export interface CallSite {
  caller: PyFunction;
  module: PyModule;
  resolve: FunctionResolver;
}

/**
 * True when the call turns the callee's commit off. With `callee` (a same-repository function the
 * call resolves to), positional arguments and defaults count too. With `site`, a parameter reached
 * through a trailing `*item` is read from every tuple the loop item can be (loop-item-tuples.ts:
 * `for item in gen(): self.add_rec(*item)`, gen yielding tuple literals). Not resolved, so taken
 * to commit: any other `*args`, an item whose tuples are not all provable, and a default left to
 * a call that passes `**kwargs`.
 */
export function callSkipsCommit(call: SyntaxNode, callee?: PyFunction, site?: CallSite): boolean {
  const parts = callParts(call);
  for (const [name, value] of parts.keywords) if (turnsCommitOff(name, value.text)) return true;
  if (!callee) return false;
  const parameters = commitParameters(callee, parts.receiver?.text);
  if (parameters.length === 0) return false;
  const splat = parts.positional.findIndex((argument) => argument.type === 'list_splat');
  const spreadsKeywords = parts.positional.some((argument) => argument.type === 'dictionary_splat');
  for (const parameter of parameters) {
    if (parts.keywords.has(parameter.name)) continue;
    const passedAt = parameter.position !== undefined && (splat < 0 || parameter.position < splat) ? parts.positional[parameter.position] : undefined;
    if (passedAt) {
      if (turnsCommitOff(parameter.name, passedAt.text)) return true;
      continue;
    }
    const throughSplat = splat >= 0 && parameter.position !== undefined && parameter.position >= splat;
    if (throughSplat) {
      if (site && splatTurnsCommitOff(parts, splat, parameter, spreadsKeywords, site)) return true;
      continue;
    }
    if (!spreadsKeywords && turnsCommitOff(parameter.name, parameter.defaultValue)) return true;
  }
  return false;
}

/**
 * True when every tuple `*item` can be turns the commit off at the parameter's place: its element
 * there, or the default when the tuple is too short. Only a lone trailing splat of a loop variable:
 * after it, positions depend on the tuple's length.
 */
function splatTurnsCommitOff(parts: CallParts, splat: number, parameter: CommitParameter, spreadsKeywords: boolean, site: CallSite): boolean {
  const argument = parts.positional[splat]!;
  const trailing = parts.positional.slice(splat + 1).every((after) => after.type === 'dictionary_splat');
  const name = argument.namedChildren[0];
  if (!trailing || name?.type !== 'identifier' || parameter.position === undefined) return false;
  const tuples = loopItemTuples(name, site.caller, site.module, site.resolve);
  if (!tuples) return false;
  const index = parameter.position - splat;
  return tuples.every((tuple) => {
    const elements = tuple.namedChildren.filter((element) => element.type !== 'comment');
    if (elements.some((element) => element.type === 'list_splat')) return false;
    const element = elements[index];
    return element ? turnsCommitOff(parameter.name, element.text) : !spreadsKeywords && turnsCommitOff(parameter.name, parameter.defaultValue);
  });
}

interface CommitParameter {
  name: string;
  /** Its index among the positional arguments a call passes; undefined for keyword-only ones. */
  position?: number;
  defaultValue?: string;
}

/** The callee's parameters that name a commit switch, with where a call passes them. */
function commitParameters(callee: PyFunction, receiver: string | undefined): CommitParameter[] {
  const nodes = callee.node.childForFieldName('parameters')?.namedChildren ?? [];
  const found: CommitParameter[] = [];
  let position = 0;
  let keywordOnly = false;
  let first = true;
  for (const node of nodes) {
    if (node.type === 'keyword_separator' || node.type === 'list_splat_pattern') {
      keywordOnly = true;
      continue;
    }
    if (node.type === 'positional_separator' || node.type === 'dictionary_splat_pattern' || node.type === 'comment') continue;
    const name = parameterName(node);
    // `obj.method(...)` binds the receiver to self/cls; `Class.method(obj, ...)` passes it, as a static method's first parameter is passed.
    const bound = first && receiver !== undefined && receiver !== callee.className && callee.className !== undefined && (name === 'self' || name === 'cls');
    first = false;
    if (bound) continue;
    if (name !== undefined && (SKIP_WHEN_TRUE.test(name) || SKIP_WHEN_FALSE.test(name))) {
      const parameter: CommitParameter = { name };
      if (!keywordOnly) parameter.position = position;
      const defaultValue = node.childForFieldName('value')?.text;
      if (defaultValue !== undefined) parameter.defaultValue = defaultValue;
      found.push(parameter);
    }
    if (!keywordOnly) position += 1;
  }
  return found;
}

function parameterName(node: SyntaxNode): string | undefined {
  if (node.type === 'identifier') return node.text;
  if (node.type === 'default_parameter' || node.type === 'typed_default_parameter') return node.childForFieldName('name')?.text;
  if (node.type === 'typed_parameter') return node.namedChildren.find((child) => child.type === 'identifier')?.text;
  return undefined;
}
