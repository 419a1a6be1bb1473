// Where a value in a function comes from, followed through its local names
// (name-bindings.ts) and the calls made on them: out of database reads the
// effects model sees ('database'), only constants ('constant'), or something
// else as well, a parameter, an attribute of self, a global, an exception
// ('other'). One 'other' part makes the whole 'other'.
//
// A database read is a db-read effect's call (`cur.execute(SELECT)`, or a
// same-module helper whose own effects read, like buku's `self.get_rec_all()`),
// `cur.fetchall()`/`fetchone()`/`fetchmany()` and `for row in cur` on a
// receiver that ran such a read in the function. Reads on a ":memory:"
// connection are not among the rules' effects (memory-db.ts): rows that die
// with the process are no source a torn file could be rebuilt from.
//
// A parameter is 'other' even when the function also fills it from a read
// (buku's exportdb: a caller's search result in `resultset`, else every row):
// the caller's value may be anything. A module's function is 'other' too
// (`urlopen(u).read()`, `sys.stdin`), but for a few that only transform their
// arguments (PURE_CALLS). A function of this module, or a method called on self,
// is what its returns are made of, judged in its own body (helper-returns.ts):
// `self.snapshot()` may hand back the object's state, `notes()` a file it reads;
// a method on self that is not found there is 'other'. Partial: ORM queries count
// only where the effects model sees a read, which it does not for SQLObject's `select()`.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { callParts, walkFunctionBody } from '../body-walk.ts';
import { importBindings } from '../imports.ts';
import { resolveLocalCall } from '../local-resolve.ts';
import { nameBindings, type NameBindings } from './name-bindings.ts';
import { compactText, isOwnCode } from './syntax.ts';
import { findEffects, resolveSameModuleHelper } from '../effects.ts';
import { withoutInMemoryDatabase } from './memory-db.ts';
import { isModuleConstant } from './module-constants.ts';

export type Origin = 'database' | 'constant' | 'other';

const FETCHES = new Set(['fetchall', 'fetchone', 'fetchmany']);

/** Builtins a written value may be computed with; they hold no data of their own. */
const BUILTINS = new Set([
  'str', 'bytes', 'int', 'float', 'bool', 'repr', 'len', 'dict', 'list', 'tuple', 'set', 'frozenset', 'sorted', 'reversed',
  'enumerate', 'zip', 'map', 'filter', 'sum', 'min', 'max', 'abs', 'round', 'format', 'chr', 'ord', 'hex', 'range', 'print',
  'iter', 'next', 'any', 'all', 'isinstance', 'bytearray',
]);

const CONSTANT_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** Builtins that bring in data from outside their arguments: a file, the terminal, a namespace, code. */
const SOURCE_BUILTINS = new Set(['open', 'input', 'globals', 'locals', 'vars', 'eval', 'exec', '__import__']);

const MAX_DEPTH = 200;

/** Functions of other modules that only transform their arguments: what they return is made of them. */
const PURE_CALLS = new Set(['json.dumps', 'dumps', 'pickle.dumps', 'base64.b64encode', 'html.escape', 'escape', 'textwrap.dedent', 'textwrap.indent']);

/** `a` of `a.b.c` or of `a.b.c(...)`'s function; undefined when the chain starts with a call or subscript. */
function rootName(node: SyntaxNode): string | undefined {
  let current: SyntaxNode | null = node;
  while (current?.type === 'attribute') current = current.childForFieldName('object');
  return current?.type === 'identifier' ? current.text : undefined;
}

const LITERALS = new Set([
  'integer', 'float', 'true', 'false', 'none', 'ellipsis', 'string_start', 'string_content', 'string_end', 'escape_sequence',
  'type_conversion', 'format_specifier', 'comment',
]);

/** Nodes whose value is made of their named children's values. */
const COMPOSITES = new Set([
  'string', 'concatenated_string', 'interpolation', 'binary_operator', 'boolean_operator', 'comparison_operator', 'not_operator',
  'unary_operator', 'list', 'tuple', 'set', 'dictionary', 'pair', 'parenthesized_expression', 'expression_list', 'list_splat',
  'dictionary_splat', 'slice', 'list_comprehension', 'set_comprehension', 'dictionary_comprehension',
  'generator_expression', 'for_in_clause', 'assignment',
]);

export interface OriginScope {
  fnNode: SyntaxNode;
  module: PyModule;
  effects: readonly Effect[];
  /** The method's own object (`self`, `cls`): what a method called on it returns is judged in the method. */
  selfName?: string;
  /** The function judged, to find the functions it calls in its module. */
  fn?: PyFunction;
  /**
   * Judging a helper's returns for a caller (helper-returns.ts): its parameters other than self stand for the
   * caller's arguments, which the caller judges, so they add nothing here; what the body mixes in still counts.
   */
  argumentsNeutral?: boolean;
  /** Helpers being judged or judged already, shared down the calls (helper-returns.ts). */
  visits?: HelperVisits;
}

export function combine(origins: Iterable<Origin>): Origin {
  let result: Origin = 'constant';
  for (const origin of origins) {
    if (origin === 'other') return 'other';
    if (origin === 'database') result = 'database';
  }
  return result;
}

/** A reusable judge of one function's values: names are judged once each. */
export function originJudge(scope: OriginScope): (node: SyntaxNode) => Origin {
  const bindings = nameBindings(scope.fnNode);
  const reads = scope.effects.filter((effect) => effect.kind === 'db-read');
  const ownReads = new Set(reads.filter((effect) => !effect.via).map((effect) => effect.node.id));
  const readReceivers = new Set(
    scope.effects
      .filter((effect) => effect.kind === 'db-read' && !effect.via)
      .flatMap((effect) => {
        const receiver = callParts(effect.node).receiver;
        return receiver ? [compactText(receiver)] : [];
      }),
  );
  const imported = new Set(importBindings(scope.module).map((binding) => binding.localName));
  const names = new Map<string, Origin>();
  const visits: HelperVisits = scope.visits ?? new Map();

  const ofName = (name: string): Origin => {
    const known = names.get(name);
    if (known) return known;
    // A name's value built from itself (`text += row.url`): the cycle adds nothing new.
    names.set(name, 'constant');
    // A helper's object (`self`) is its state, never a stand-in for the caller's arguments.
    const neutral = scope.argumentsNeutral === true && name !== scope.selfName;
    const origin = nameOrigin(name, bindings, imported, readReceivers, judge, neutral, scope.module);
    names.set(name, origin);
    return origin;
  };

  const ofCall = (node: SyntaxNode): Origin => {
    // An execute's arguments are the query and its filters; a helper's may be data it hands back (`merge(rows, self.pending)`).
    if (ownReads.has(node.id)) return 'database';
    const call = callParts(node);
    if (FETCHES.has(call.method) && call.receiver && readReceivers.has(compactText(call.receiver))) return 'database';
    const fn = node.childForFieldName('function');
    // Another module's function may hand back anything from outside (a file, the network, stdin), unless it only transforms.
    const root = fn ? rootName(fn) : undefined;
    if (fn?.type === 'identifier' && SOURCE_BUILTINS.has(fn.text) && !bindings.values.has(fn.text) && !bindings.params.has(fn.text)) return 'other';
    if (root !== undefined && imported.has(root) && !PURE_CALLS.has(call.callee) && !PURE_CALLS.has(fn?.text ?? '')) return 'other';
    // The function called is not data (`convert(rows)`, `json.dumps`), but the object a method is called on is (`rows.to_csv()`).
    const object = fn?.type === 'attribute' ? fn.childForFieldName('object') : null;
    const onSelf = object?.type === 'identifier' && object.text === scope.selfName;
    const calledOn = object && !onSelf ? [judge(object)] : [];
    const parts = [...calledOn, ...(call.argumentList?.namedChildren ?? []).map(judge)];
    // A function of this module is what its returns are made of, its own reads included (`self.get_rec_all()`).
    const helper = scope.fn && resolveLocalCall(node, scope.module, scope.fn);
    if (helper && helper.node.id !== scope.fnNode.id) return combine([helperReturnsOrigin(helper, scope.module, visits), ...parts]);
    // A method of the object whose body is not found here (inherited, assigned): it may return the object's state.
    if (onSelf) return 'other';
    return combine(parts);
  };

  // Generated code can chain thousands of terms (`a + 'x' + 'x' ...`): past MAX_DEPTH a value is not followed.
  let depth = 0;
  function judge(node: SyntaxNode): Origin {
    if (depth >= MAX_DEPTH) return 'other';
    depth++;
    try {
      return judgeAt(node);
    } finally {
      depth--;
    }
  }
  function judgeAt(node: SyntaxNode): Origin {
    switch (node.type) {
      case 'call':
        return ofCall(node);
      case 'identifier':
        return ofName(node.text);
      case 'attribute': {
        // A module's attribute (`sys.stdin`, `os.environ`) is outside data; only its constants are not.
        const root = rootName(node);
        if (root !== undefined && imported.has(root)) return CONSTANT_NAME.test(node.childForFieldName('attribute')?.text ?? '') ? 'constant' : 'other';
        return judge(node.childForFieldName('object')!);
      }
      case 'subscript':
        return combine([judge(node.childForFieldName('value')!), ...node.childrenForFieldName('subscript').map(judge)]);
      case 'conditional_expression':
        // `a if test else b`: the test chooses, it is not written.
        return combine([node.namedChildren[0], node.namedChildren[2]].filter((child) => child !== undefined).map(judge));
      case 'keyword_argument':
        return judge(node.childForFieldName('value')!);
      case 'if_clause':
        return 'constant';
      default:
        if (COMPOSITES.has(node.type)) return combine(node.namedChildren.map(judge));
        return LITERALS.has(node.type) ? 'constant' : 'other';
    }
  }
  return judge;
}

function nameOrigin(
  name: string,
  bindings: NameBindings,
  imported: ReadonlySet<string>,
  readReceivers: ReadonlySet<string>,
  judge: (node: SyntaxNode) => Origin,
  neutralParams: boolean,
  module: PyModule,
): Origin {
  if (bindings.opaque.has(name)) return 'other';
  const values = bindings.values.get(name) ?? [];
  const isParam = bindings.params.has(name);
  if (values.length === 0 && !isParam) {
    // A NAME in capitals is a constant only when the module binds it to a literal (module-constants.ts): `PENDING = []` may hold state.
    return bindings.imported.has(name) || imported.has(name) || BUILTINS.has(name) || isModuleConstant(name, module) ? 'constant' : 'other';
  }
  // `for row in cur` over a cursor that ran a read: its rows.
  const origin = combine(values.map((value) => (readReceivers.has(compactText(value)) ? 'database' : judge(value))));
  // A caller's value may be anything, whatever the function fills the name with on other paths.
  if (isParam) return neutralParams ? origin : 'other';
  return origin;
}

// What a function of the module hands back to its caller: the
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
