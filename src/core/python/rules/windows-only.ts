// Code that runs only on native Windows: crashprobe judges POSIX semantics and crash-tests them, so a file write
// reached only under a Windows test (bleachbit's wipe_contents truncates a locked file in an
// `if os.name == 'nt' and IsUserAnAdmin():` arm) is left to the config: `windows_only: report` keeps its findings.
// Not a remove-then-rename under a Windows test (dulwich's _complete_pack, yt-dlp's write_json_file, offlineimap's
// `except WindowsError:`): that is the pre-3.3 workaround for what os.replace does atomically on Windows too, so its
// window is a defect with a portable fix, not a limit of the platform, and in-place-file-rewrite keeps reporting it.
// A statement is Windows-only when an enclosing arm can run only there:
// - the body of `if C` or `elif C` where C implies Windows: `os.name == 'nt'`, `sys.platform == 'win32'`,
//   `sys.platform.startswith('win')`, `platform.system() == 'Windows'`, `x in ('nt',)`, an `and` with one of them,
//   `not` of a test that Windows makes false (`os.name != 'nt'`), or a module constant bound only to such a test
//   (`IS_WINDOWS = os.name == 'nt'`, never rebound, imported or shadowed by the function);
// - an `elif` or `else` arm after an `if` whose condition Windows makes false (`if os.name != 'nt': ... else:`);
// - the body of `except WindowsError:` (the name exists only on Windows; the module must not bind it itself).
// Not Windows-only (stays reported): the else arm of a Windows test, `os.name != 'nt'`, a Windows test ORed with
// another (`os.name == 'nt' or sys.platform == 'cygwin'`), code after `if os.name == 'nt': return` (that runs
// everywhere but Windows), `except (WindowsError, OSError)`, `os.name == 'posix'`'s else arm (Jython's 'java'),
// a local flag or a constant assigned twice.
// Partial: a function called only from a Windows arm is not followed (dulwich's _fancy_rename), nor a test in a
// helper (`if is_windows():`), `import os as _os`, or a conditional expression.
import type { PyModule, SyntaxNode } from '../model.ts';
import { repoIndexOf, type RepoIndex } from '../callgraph.ts';
import { callParts } from '../body-walk.ts';
import { enclosingFunctionNode } from '../functions.ts';
import { binds, parameterNames } from './exclusive-guards.ts';
import { caughtClasses, compactText, contains, literalText, rootOf, unparenthesized } from './syntax.ts';
import { PATH_OPENERS } from './file-reads.ts';
import { memoizePer } from '../memo.ts';

/** The repository's config keeps Windows-only findings (`windows_only: report`); a lone snippet has none. */
export function skipsWindowsOnly(module: PyModule): boolean {
  return repoIndexOf(module)?.windowsOnly !== 'report';
}

/** `node` runs only on native Windows, and the config does not ask for such findings. */
export function windowsOnlyQuiet(node: SyntaxNode, module: PyModule): boolean {
  return skipsWindowsOnly(module) && reachedOnlyOnWindows(node, module);
}

export function reachedOnlyOnWindows(node: SyntaxNode, module?: PyModule): boolean {
  // A star import, a `builtins.X = ...` or a `globals()[...] = ...` anywhere in the repository may bind WindowsError
  // or rebind a platform constant on every platform: then no name proves Windows, only a direct probe does.
  const names = module === undefined || !rebindsNames(module);
  const paths = writtenPaths(node);
  for (let child = node, up = node.parent; up; child = up, up = up.parent) {
    let windows = false;
    if (up.type === 'if_statement' || up.type === 'elif_clause') {
      if (up.childForFieldName('consequence')?.id !== child.id) continue;
      windows = implies(up.childForFieldName('condition'), true, node, names);
      // An elif's arm also runs only where every earlier condition of its `if` failed.
      if (!windows && up.type === 'elif_clause') windows = earlierConditions(up).some((condition) => implies(condition, false, node, names));
    } else if (up.type === 'else_clause' && up.parent?.type === 'if_statement') {
      windows = earlierConditions(up).some((condition) => implies(condition, false, node, names));
    } else if (up.type === 'except_clause' && child.type === 'block') {
      const classes = caughtClasses(up);
      windows = names && classes !== undefined && classes.every((caught) => caught.type === 'identifier' && caught.text === 'WindowsError' && !boundInModule('WindowsError', node));
    }
    // The other platforms' side touches the same path: the Windows arm is one platform's half of the operation.
    if (windows && !otherSideTouches(up, child, paths)) return true;
  }
  return false;
}

/** Writes, copies, renames, truncations and opens: calls that touch the file their path argument names. */
const TOUCHING = /^(open|fdopen|rename|renames|replace|copy\w*|move|truncate|ftruncate|write\w*|dump|save\w*|touch|unlink|remove)$/;

/** The path texts the write names: an opener's first argument, a Path method's receiver (and what `Path(...)` wraps). */
function writtenPaths(node: SyntaxNode): Set<string> {
  const paths = new Set<string>();
  if (node.type !== 'call') return paths;
  const parts = callParts(node);
  const add = (path: SyntaxNode | undefined): void => {
    if (!path) return;
    const bare = unparenthesized(path);
    paths.add(compactText(bare));
    if (bare.type === 'call' && callParts(bare).positional[0]) paths.add(compactText(unparenthesized(callParts(bare).positional[0]!)));
  };
  if (PATH_OPENERS.has(parts.callee) || parts.callee === 'os.open') add(parts.positional[0]);
  else if (parts.receiver) add(parts.receiver);
  else for (const argument of parts.positional) if (argument.type !== 'string') add(argument);
  return paths;
}

/**
 * Some other arm of the Windows test's statement (the if's other arms, the try's body, else and other handlers),
 * or the rest of the function when the Windows arm leaves it (a return, raise, break or continue in it), touches
 * one of `paths`: an open, os.open, rename, replace, copy, truncate or write of the same path expression.
 */
function otherSideTouches(statement: SyntaxNode, arm: SyntaxNode, paths: ReadonlySet<string>): boolean {
  if (paths.size === 0) return false;
  const compound = statement.type === 'elif_clause' || statement.type === 'else_clause' || statement.type === 'except_clause' ? statement.parent : statement;
  if (!compound) return false;
  const leaves = arm.descendantsOfType(['return_statement', 'raise_statement', 'break_statement', 'continue_statement']).length > 0;
  const fn = enclosingFunctionNode(compound);
  const scope = leaves && fn ? fn : compound;
  const outsideArm = (node: SyntaxNode): boolean => node.startIndex >= arm.endIndex || node.endIndex <= arm.startIndex;
  const inSide = (node: SyntaxNode): boolean => outsideArm(node) && (contains(compound, node) || (leaves && node.startIndex >= compound.endIndex));
  return scope.descendantsOfType('call').some((call) => {
    if (!inSide(call)) return false;
    const parts = callParts(call);
    const last = (parts.method || parts.callee.split('.').at(-1)) ?? '';
    if (!TOUCHING.test(last)) return false;
    const named = [parts.receiver, ...parts.positional, ...parts.keywords.values()].some((argument) => {
      if (!argument) return false;
      const bare = unparenthesized(argument);
      if (paths.has(compactText(bare))) return true;
      // `Path(path).write_text(...)`, `os.fdopen(os.open(path, ...))`.
      return bare.type === 'call' && bare.descendantsOfType(['identifier', 'attribute', 'string']).some((inner) => paths.has(compactText(inner)));
    });
    return named;
  });
}

/**
 * The repository has a star import (`from .compat import *` may bind WindowsError = OSError), assigns into builtins
 * (`builtins.WindowsError = OSError`, `setattr(builtins, ...)`), or assigns through `globals()[...]` (a constant
 * rebound by its name's text): a name's binding is then not all in its module's text.
 */
function rebindsNames(module: PyModule): boolean {
  const index = repoIndexOf(module);
  return index ? repositoryRebindsNames(index) : moduleRebindsNames(module);
}

const repositoryRebindsNames = memoizePer((index: RepoIndex): boolean => [...index.modules.values()].some((each) => moduleRebindsNames(each)));

const moduleRebindsNames = memoizePer((module: PyModule): boolean => {
  const root = module.tree.rootNode;
  if (root.descendantsOfType('wildcard_import').length > 0) return true;
  const assigned = root.descendantsOfType(['assignment', 'augmented_assignment']).some((assignment) => {
    const left = assignment.childForFieldName('left');
    const targets = left?.type === 'pattern_list' || left?.type === 'tuple_pattern' ? left.namedChildren : left ? [left] : [];
    return targets.some((target) => {
      const text = compactText(target);
      return /^(builtins|__builtins__|__builtin__)[.[]/.test(text) || /^globals\(\)\[/.test(text) || /^vars\(\)\[/.test(text);
    });
  });
  if (assigned) return true;
  return root.descendantsOfType('call').some((call) => {
    const parts = callParts(call);
    const first = parts.positional[0] ? compactText(parts.positional[0]) : '';
    return (parts.callee === 'setattr' && /^(builtins|__builtins__|__builtin__)$/.test(first)) || (parts.method === 'update' && parts.receiver !== undefined && /^(globals\(\)|vars\(\)|__builtins__|builtins\.__dict__)$/.test(compactText(parts.receiver)));
  });
});

/** The conditions of the `if` and the elifs before `arm` (an elif_clause or else_clause of that `if`). */
function earlierConditions(arm: SyntaxNode): SyntaxNode[] {
  const statement = arm.parent;
  if (statement?.type !== 'if_statement') return [];
  const conditions: SyntaxNode[] = [];
  const first = statement.childForFieldName('condition');
  if (first) conditions.push(first);
  for (const alternative of statement.childrenForFieldName('alternative')) {
    if (alternative.id === arm.id) break;
    const condition = alternative.type === 'elif_clause' ? alternative.childForFieldName('condition') : null;
    if (condition) conditions.push(condition);
  }
  return conditions;
}

/** `os.name`, `sys.platform`, `platform.system()` (perhaps `.lower()`): which platform probe, or undefined. */
type Probe = 'os.name' | 'sys.platform' | 'platform.system' | 'platform.system.lower';

function probeOf(node: SyntaxNode): Probe | undefined {
  const text = compactText(unparenthesized(node));
  if (text === 'os.name' || text === 'sys.platform') return text;
  if (text === 'platform.system()') return 'platform.system';
  if (text === 'platform.system().lower()') return 'platform.system.lower';
  return undefined;
}

/** The value `probe` takes on native Windows (and only there). */
const WINDOWS_VALUE: Readonly<Record<Probe, string>> = {
  'os.name': 'nt',
  'sys.platform': 'win32',
  'platform.system': 'Windows',
  'platform.system.lower': 'windows',
};

/** The prefix `probe.startswith(...)` must test for only Windows to pass ('win' but not 'cygwin'). */
const WINDOWS_PREFIX: Readonly<Record<Probe, RegExp>> = {
  'os.name': /^nt$/,
  'sys.platform': /^win(3|32)?$/,
  'platform.system': /^Win(dows?|do|d)?$/,
  'platform.system.lower': /^win(dows?|do|d)?$/,
};

function stringValue(node: SyntaxNode): string | undefined {
  const bare = unparenthesized(node);
  if (bare.type !== 'string' || bare.namedChildren.some((child) => child.type === 'interpolation')) return undefined;
  return literalText(bare);
}

/** True when `condition` evaluating to `positive` can happen only on Windows. */
function implies(condition: SyntaxNode | null, positive: boolean, at: SyntaxNode, names: boolean, depth = 0): boolean {
  if (!condition || depth > 4) return false;
  const node = unparenthesized(condition);
  if (node.type === 'not_operator') return implies(node.childForFieldName('argument'), !positive, at, names, depth);
  if (node.type === 'boolean_operator') {
    const operator = node.childForFieldName('operator')?.type;
    const left = implies(node.childForFieldName('left'), positive, at, names, depth);
    const right = implies(node.childForFieldName('right'), positive, at, names, depth);
    // `A and B` true needs both true, so one Windows part is enough; `A or B` false needs both false, likewise.
    return (operator === 'and') === positive ? left || right : left && right;
  }
  if (node.type === 'comparison_operator') return comparisonImplies(node, positive);
  if (node.type === 'call') {
    const call = callParts(node);
    const [prefix] = call.positional;
    if (!positive || call.method !== 'startswith' || !call.receiver || call.positional.length !== 1 || !prefix) return false;
    const probe = probeOf(call.receiver);
    const value = stringValue(prefix);
    return probe !== undefined && value !== undefined && WINDOWS_PREFIX[probe].test(value);
  }
  if (node.type === 'identifier' && names) {
    const value = constantValue(node, at);
    return value !== undefined && implies(value, positive, value, names, depth + 1);
  }
  return false;
}

/** `probe == 'nt'` (true), `probe != 'nt'` (false), `probe in ('win32',)` (true), `probe not in (...)` (false). */
function comparisonImplies(node: SyntaxNode, positive: boolean): boolean {
  const operands = node.namedChildren.filter((child) => child.type !== 'comment');
  const operators = node.children.filter((child) => !child.isNamed).map((child) => child.type);
  if (operands.length !== 2 || operators.length < 1) return false;
  const operator = operators.join(' ');
  const [left, right] = operands as [SyntaxNode, SyntaxNode];
  if (operator === '==' || operator === '!=') {
    const probe = probeOf(left) ?? probeOf(right);
    const value = stringValue(probeOf(left) ? right : left);
    if (!probe || value === undefined || value !== WINDOWS_VALUE[probe]) return false;
    return (operator === '==') === positive;
  }
  if (operator === 'in' || operator === 'not in') {
    const probe = probeOf(left);
    const set = unparenthesized(right);
    if (!probe || !['tuple', 'list', 'set'].includes(set.type)) return false;
    const values = set.namedChildren.filter((child) => child.type !== 'comment');
    if (values.length === 0 || !values.every((value) => stringValue(value) === WINDOWS_VALUE[probe])) return false;
    return (operator === 'in') === positive;
  }
  return false;
}

/**
 * The value of a module-level constant `name` as read at `at`: bound by exactly one top-level assignment
 * (`IS_WINDOWS = os.name == 'nt'`), bound nowhere else in the module (no other assignment, import, global,
 * def, loop or alias), and not a parameter of a function around `at`.
 */
function constantValue(name: SyntaxNode, at: SyntaxNode): SyntaxNode | undefined {
  const root = rootOf(at);
  for (let up = at.parent; up; up = up.parent) {
    if ((up.type === 'function_definition' || up.type === 'lambda') && parameterNames(up).has(name.text)) return undefined;
  }
  const sites = bindingSitesIn(name.text, root);
  if (sites.length !== 1) return undefined;
  const [site] = sites as [SyntaxNode];
  const assignment = site.parent;
  if (assignment?.type !== 'assignment' || assignment.childForFieldName('left')?.id !== site.id) return undefined;
  if (assignment.parent?.type !== 'expression_statement' || assignment.parent.parent?.id !== root.id) return undefined;
  return assignment.childForFieldName('right') ?? undefined;
}

/** Every identifier that binds `name` anywhere in the module, imports, definitions and aliases included. */
function bindingSitesIn(name: string, root: SyntaxNode): SyntaxNode[] {
  const sites: SyntaxNode[] = [];
  for (const identifier of root.descendantsOfType('identifier')) {
    if (identifier.text !== name) continue;
    const parent = identifier.parent;
    const definition = (parent?.type === 'function_definition' || parent?.type === 'class_definition') && parent.childForFieldName('name')?.id === identifier.id;
    let imported = false;
    for (let up = parent; up; up = up.parent) if (up.type === 'import_statement' || up.type === 'import_from_statement') imported = true;
    if (binds(identifier) || definition || imported) sites.push(identifier);
  }
  return sites;
}

function boundInModule(name: string, at: SyntaxNode): boolean {
  return bindingSitesIn(name, rootOf(at)).length > 0;
}
