// Every place in a repository that can make a sqlite3 connection autocommit, or hide that it does. When
// there is none, and the repository opens its connections itself (repository-connections.ts), sqlite3's
// default mode holds every write of it together up to its commit: the autocommit harm that
// commit-without-begin, writes-rely-on-implicit-transaction and with-conn-opens-no-transaction describe
// cannot happen there (zim's index, gajim's storage, todoman's cache).
//
// A switch is: a constructor (`sqlite3.connect` / `sqlite3.Connection` under any import name) given a mode
// that may be autocommit, a factory, a fourth positional argument or `*args`; a `**kw` not proven forwarded
// (forwarded-keywords.ts); any call given `isolation_level=`/`autocommit=` that may mean autocommit (a
// wrapper's option); the constructor taken as a value or subclassed; any assignment of `.isolation_level` or
// `.autocommit` that may mean autocommit, on any object; `setattr` of either by name, or with a computed
// name in a repository where some string spells either. A `None` later restored (`c.isolation_level = None;
// c.execute('VACUUM'); c.isolation_level = ''`, gPodder, lollypop) is a switch too: a raise between leaves
// the connection autocommit.
//
// Partial, and said so wherever it quiets: code outside the parsed repository (plugins, a library's
// users, third-party code handed a connection) is not seen; a computed setattr whose name comes from
// outside data, `exec`/`eval` and `importlib` are not looked at.
import type { PyModule, SyntaxNode } from '../model.ts';
import type { RepoIndex } from '../callgraph.ts';
import { callParts } from '../body-walk.ts';
import { attributeAssignments, type AttributeAssignment } from '../attribute-assignments.ts';
import { importBindings } from '../imports.ts';
import { memoizePer } from '../memo.ts';
import { unparenthesized } from './syntax.ts';
import { forwardedKeywords } from './forwarded-keywords.ts';
import { boundOutsideImports } from './single-binding.ts';
import { attributesByName, bindingStatement, namedForGetattr, setattrArguments } from './name-references.ts';

export const MODE_NAMES = ['isolation_level', 'autocommit'] as const;

/**
 * A mode value that still opens transactions on its own: a string for `isolation_level` ('', 'DEFERRED',
 * 'IMMEDIATE', 'EXCLUSIVE') or `False` for `autocommit` (Python 3.12: always in a transaction). Only `None`,
 * `True` or a value the reader cannot see can mean autocommit.
 */
export function keepsTransactions(value: SyntaxNode | null | undefined): boolean {
  if (!value) return false;
  const node = unparenthesized(value);
  return (node.type === 'string' && /^[rRuU]*['"]/.test(node.text)) || node.type === 'false';
}

const SQLITE3_MODULES = new Set(['sqlite3', 'sqlite3.dbapi2', 'pysqlite2', 'pysqlite2.dbapi2']);
const CONSTRUCTORS = new Set(['connect', 'Connection']);

/** The callee texts under which the module can call sqlite3's constructors: `sqlite3.connect`, `sqlite.connect` for `from sqlite3 import dbapi2 as sqlite`, `open_db` for `from sqlite3 import connect as open_db`. */
export const sqliteConstructors = memoizePer((module: PyModule): Set<string> => {
  const names = new Set<string>();
  const bindings = importBindings(module);
  if (bindings.some((binding) => binding.star)) return names;
  for (const binding of bindings) {
    // Every import of the name is sqlite3's, and nothing else binds it (`except ImportError: import apsw as sqlite3`).
    const same = bindings.filter((other) => other.localName === binding.localName);
    const wholeModule = same.every((other) => SQLITE3_MODULES.has(other.name ? `${other.module}.${other.name}` : other.module));
    const constructor = same.every((other) => other.name !== undefined && CONSTRUCTORS.has(other.name) && SQLITE3_MODULES.has(other.module));
    if ((!wholeModule && !constructor) || boundOutsideImports(binding.localName, module.tree.rootNode)) continue;
    if (wholeModule) for (const each of CONSTRUCTORS) names.add(`${binding.localName}.${each}`);
    else names.add(binding.localName);
  }
  return names;
});

export interface AutocommitSwitches {
  /** Some module calls a sqlite3 constructor. */
  opensConnections: boolean;
  /** `path:line: what`, in module order; empty when no code can make a connection autocommit. */
  switches: string[];
  /**
   * The switches that name the mode and give it a value that may mean autocommit, and stay: `isolation_level=None`,
   * `autocommit=flag`, `.isolation_level = None` not restored at once, a literal setattr of the mode, a fourth
   * positional argument. The others only hide what the mode is (a factory, `**kwargs` not followed, a computed
   * setattr, the constructor taken as a value) or restore it (`None` around one VACUUM); autocommit-evidence.ts
   * asks for these alone.
   */
  evident: string[];
}

/** Undefined unless the index holds every module of the repository with its tree: else nothing can be said of the repository. */
export function autocommitSwitches(index: RepoIndex): AutocommitSwitches | undefined {
  if (!index.complete || index.modules.size === 0 || index.modules.size !== index.summaries.size) return undefined;
  return switchesOf(index);
}

const switchesOf = memoizePer((index: RepoIndex): AutocommitSwitches => {
  const modules = [...index.modules.values()];
  const spelled = modules.some(spellsModeName);
  const answer: AutocommitSwitches = { opensConnections: false, switches: [], evident: [] };
  for (const module of modules) {
    const found = moduleSwitches(module, index, spelled);
    answer.opensConnections ||= found.opensConnections;
    answer.switches.push(...found.switches);
    answer.evident.push(...found.evident);
  }
  return answer;
});

/** The module's text spells a mode attribute's name, in part (a string, a field, a parameter): a computed setattr could then set it. */
const spellsModeName = memoizePer((module: PyModule): boolean => /isolation|autocommit/i.test(module.source));

function moduleSwitches(module: PyModule, index: RepoIndex, spelled: boolean): AutocommitSwitches {
  const constructors = sqliteConstructors(module);
  const switches: string[] = [];
  const evident: string[] = [];
  const at = (node: SyntaxNode, what: string, named = false): void => {
    const entry = `${module.path}:${node.startPosition.row + 1}: ${what}`;
    switches.push(entry);
    if (named) evident.push(entry);
  };
  let opensConnections = false;
  // Each walk of a large tree costs: walk only modules whose text can hold what it looks for.
  const text = module.source;
  const calls = /setattr|isolation_level|autocommit|connect|Connection|__set__/.test(text) ? module.tree.rootNode.descendantsOfType('call') : [];
  for (const call of calls) {
    const parts = callParts(call);
    if (/(^|\.)(setattr|__setattr__)$/.test(parts.callee)) {
      const { name, value } = setattrArguments(call);
      const literal = name?.type === 'string' && name.descendantsOfType('interpolation').length === 0;
      if (!literal) {
        if (spelled) at(call, 'setattr with a computed name, in a repository where a string spells the mode');
      } else if (MODE_NAMES.some((mode) => name.text.includes(mode)) && !keepsTransactions(value)) at(call, 'setattr of the mode', true);
      continue;
    }
    for (const mode of MODE_NAMES) {
      const value = parts.keywords.get(mode);
      if (value && !keepsTransactions(value)) at(call, `${parts.callee}(${mode}=${value.text.slice(0, 40)})`, true);
    }
    // `options.setdefault('isolation_level', None)`, `partial(setattr, conn, 'autocommit', True)`: the mode named, then its value.
    const named = parts.positional.findIndex((argument) => spellsMode(argument));
    if (named >= 0 && parts.positional[named + 1] !== undefined && !keepsTransactions(parts.positional[named + 1])) at(call, `${parts.callee}(${parts.positional[named]!.text}, ${parts.positional[named + 1]!.text.slice(0, 40)})`, true);
    // Checked under any spelling that may be sqlite3's (a star import, a name bound elsewhere); traced only under a proven one.
    if (!constructors.has(parts.callee) && !/(^|\.)(sqlite3?|dbapi2)\.(connect|Connection)$/.test(parts.callee)) continue;
    opensConnections = true;
    if (parts.keywords.has('factory')) at(call, `${parts.callee}(factory=...)`);
    if (parts.positional.some((argument) => argument.type === 'list_splat')) at(call, `${parts.callee}(*args)`);
    else if (parts.positional.length > 3) at(call, `${parts.callee} with a fourth positional argument (isolation_level)`, true);
    if (parts.positional.some((argument) => argument.type === 'dictionary_splat')) {
      const refused = forwardedKeywords(call, module, index);
      if (refused) at(call, `${parts.callee}(**kwargs): ${refused}`);
    }
  }
  for (const reference of /connect|Connection/.test(text) ? module.tree.rootNode.descendantsOfType(['attribute', 'identifier']) : []) {
    if (constructors.has(reference.text) && !namesWithoutMaking(reference)) at(reference, `${reference.text} taken as a value or subclassed`);
  }
  for (const mode of text.includes('isolation_level') || text.includes('autocommit') ? MODE_NAMES : []) {
    const plain = new Set<number>();
    for (const assignment of attributeAssignments(module).whole.get(mode) ?? []) {
      plain.add(assignment.target.id);
      if (assignment.augmented || assignment.position !== undefined || !keepsTransactions(assignment.value)) {
        const toggle = restoredAtOnce(assignment);
        at(assignment.target, `.${mode} = ${assignment.value.text.slice(0, 40)}${toggle ? ', restored after one statement' : ''}`, !toggle);
      }
    }
    // Any other use than a read or a plain keeping assignment: `for c.isolation_level in ...`, `[c.autocommit] = ...`,
    // `with ... as c.isolation_level`, `type(c).isolation_level.__set__(c, None)`.
    for (const use of attributesByName(module).get(mode) ?? []) {
      if (!plain.has(use.id) && storedOrReached(use)) at(use, `.${mode} set or reached in another way`, bindingStatement(use) !== undefined);
    }
  }
  // `{'isolation_level': None}` for `**options`, `options['autocommit'] = True`.
  if (/isolation_level|autocommit/.test(text)) {
    for (const pair of module.tree.rootNode.descendantsOfType('pair')) {
      const key = pair.childForFieldName('key');
      if (key && spellsMode(key) && !keepsTransactions(pair.childForFieldName('value'))) at(pair, `{${key.text}: ${pair.childForFieldName('value')?.text.slice(0, 40)}}`, true);
    }
    // `def configure(conn, isolation_level=None)`: a parameter of the mode's name, autocommit by default.
    for (const parameter of module.tree.rootNode.descendantsOfType(['default_parameter', 'typed_default_parameter'])) {
      const name = parameter.childForFieldName('name')?.text;
      if (MODE_NAMES.some((mode) => mode === name) && !keepsTransactions(parameter.childForFieldName('value'))) at(parameter, `parameter ${parameter.text.slice(0, 40)}`, true);
    }
    for (const assignment of module.tree.rootNode.descendantsOfType('assignment')) {
      const left = assignment.childForFieldName('left');
      const key = left?.type === 'subscript' ? left.childForFieldName('subscript') : undefined;
      if (key && spellsMode(key) && !keepsTransactions(assignment.childForFieldName('right'))) at(assignment, `[${key.text}] = ${assignment.childForFieldName('right')?.text.slice(0, 40)}`, true);
    }
  }
  // `getattr(builtins, 'setattr')(...)`, a descriptor's `__set__` called by hand.
  for (const name of ['setattr', '__setattr__', '__set__']) if (namedForGetattr(module, name)) switches.push(`${module.path}: getattr reaches ${name}`);
  for (const call of text.includes('__set__') ? calls : []) if (callParts(call).method === '__set__') at(call, '__set__ called by hand');
  // setattr taken as a value (`assign = setattr`, `partial(setattr, conn)`, `from builtins import setattr as put`).
  for (const use of text.includes('setattr') ? module.tree.rootNode.descendantsOfType('identifier') : []) {
    if (!/^(setattr|__setattr__)$/.test(use.text)) continue;
    const callee = use.parent?.type === 'attribute' && use.parent.childForFieldName('attribute')?.id === use.id ? use.parent : use;
    if (callee.parent?.type === 'call' && callee.parent.childForFieldName('function')?.id === callee.id) continue;
    if (use.parent?.type === 'function_definition') continue;
    at(use, `${use.text} taken as a value`);
  }
  return { opensConnections, switches, evident };
}

/**
 * `c.isolation_level = None`, one statement that is not a write (`c.execute('VACUUM')`), then the same target given
 * a mode that keeps transactions (gPodder's and lollypop's VACUUM). A raise in between leaves `c` autocommit (a
 * switch for the proof), but no write of the repository runs in the window it opens.
 */
function restoredAtOnce(assignment: AttributeAssignment): boolean {
  const statement = assignment.value.parent?.parent;
  if (assignment.augmented || assignment.position !== undefined || assignment.value.type !== 'none' || statement?.type !== 'expression_statement') return false;
  const between = statement.nextNamedSibling;
  const restore = between?.nextNamedSibling;
  if (between?.type !== 'expression_statement' || restore?.type !== 'expression_statement') return false;
  const call = between.namedChildren[0];
  const sql = call?.type === 'call' ? callParts(call).positional[0] : undefined;
  if (call?.type !== 'call' || callParts(call).method !== 'execute' || sql?.type !== 'string' || !/^[rRuU]*['"]+\s*(VACUUM|PRAGMA|ANALYZE)\b/i.test(sql.text)) return false;
  const again = restore.namedChildren[0];
  return again?.type === 'assignment' && again.childForFieldName('left')?.text === assignment.target.text && keepsTransactions(again.childForFieldName('right'));
}

/** A string literal that is exactly a mode attribute's name. */
function spellsMode(node: SyntaxNode): boolean {
  return node.type === 'string' && /^[rRuU]?(['"]{1,3})(isolation_level|autocommit)\1$/.test(node.text);
}

/** The constructor's name called, or only named: an annotation, `cast(sqlite3.Connection, x)`, `isinstance`, an import. */
function namesWithoutMaking(reference: SyntaxNode): boolean {
  const parent = reference.parent;
  if (!parent) return true;
  if (parent.type === 'attribute') return true; // part of a longer dotted name, itself checked
  if (parent.type === 'call' && parent.childForFieldName('function')?.id === reference.id) return true;
  if (['type', 'generic_type', 'import_from_statement', 'dotted_name', 'aliased_import'].includes(parent.type)) return true;
  if (parent.type === 'argument_list' && parent.parent?.type === 'call' && /Connection$/.test(reference.text)) {
    return /(^|\.)(cast|isinstance|issubclass)$/.test(callParts(parent.parent).callee);
  }
  return false;
}

/** A mode attribute used otherwise than read: a target of any binding or `del`, or the object of a further attribute. */
function storedOrReached(use: SyntaxNode): boolean {
  const parent = use.parent;
  return (parent?.type === 'attribute' && parent.childForFieldName('object')?.id === use.id) || bindingStatement(use) !== undefined;
}
