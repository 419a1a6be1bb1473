// A schema script a crash cuts short is rebuilt at the next open (zim 0.75's Index): the function that runs it
// (the rebuild) first drops every table it listed from sqlite_master (listed-table-drop.ts), then runs a script of
// constants that creates the tables and ends by inserting a marker row; and the module's opener calls the rebuild
// whenever that marker row is absent:
//
//     def _db_connect(self):                                   # the opener
//         try:
//             if self.get_property('db_version') != DB_VERSION:
//                 self._db_init()
//             elif self.get_property('db_sortkey_format') != SORTKEY:   # the key the script inserts last
//                 self._db_init()
//             self.set_property('db_version', DB_VERSION)
//         except sqlite3.OperationalError:                     # the marker's table missing
//             self._db_init()
//
// The script's statements autocommit one by one, so a crash leaves a prefix of it; every prefix lacks the last
// INSERT's row: its table missing makes the marker read raise into a handler that calls the rebuild, the row missing
// reads back None, unequal to the expected value, which calls it too. The rebuild drops what the prefix made and
// runs the script again. What qualifies, all checked:
// - the rebuild: the drop loop and the script call are statements of its body itself (not under an if, loop, try),
//   the loop first, on the same connection; the script holds only CREATE TABLE and INSERT, its last statement an
//   INSERT INTO <t> VALUES ('<key>', ...) of a table <t> it creates; its SQL is built from literals and module
//   constants only (no parameter, local or attribute: nothing read from the database is written back by it);
// - the opener, a method of the rebuild's class: a `try` among its body's own statements (no return before it) whose
//   body holds, as its own statement (nothing before it that returns or raises), an if/elif chain with a clause
//   `<helper>('<key>', ...) != <value>` (<value> not None), every clause up to that one calling the rebuild as a
//   statement of its own block and testing the same way (any key); <helper> a method of the module that selects
//   from <t> and returns `... if row else None` (None for a missing row, `row` the fetchone()) and assigns nothing
//   outside its locals; no statement before the chain (in the try or before it) may write a row (below); and an
//   except clause catching a sqlite error (OperationalError, DatabaseError, Error, Exception, or bare) that calls
//   the rebuild as its first statement (or first statement of a `try` that is);
// - the marker table is the script's first statement, a plain CREATE TABLE (no IF NOT EXISTS), and no INSERT into it
//   carries an OR clause; the drop loop runs over the one sqlite_master listing of the rebuild, whose WHERE keeps
//   every table (only `type = 'table'` and `name NOT LIKE 'sqlite%'`) and which has no ORDER BY. A caller that runs
//   the rebuild with the marker current (flush) is then safe too: the marker table, made first, holds the lowest
//   sqlite_master rowid of the tables left, so the listing (rowid order) drops it first, and a cut anywhere later
//   leaves it gone or without its last row;
// - the script is the rebuild's last write: after it come only `<conn>.commit()`, logging, or `self.<m>()` calls of
//   methods that `__init__` also runs after the opener (unconditionally or under `if not hasattr(self, '<x>')`, <m>
//   binding self.<x>): whatever they make is made again at every open;
// - the rebuild, opener and helper are methods of one top-level class whose `__init__` is the opener or calls it as
//   a statement of its own body, nothing before that call leaving; no subclass in the repository redefines
//   `__init__`, the opener, the rebuild, the helper or those <m>;
// - "may write a row" before the tests: a DML string, a call of a module function that may (one level; deeper is
//   taken to write), a call on the connection with SQL not a literal, a call on `self` or an object reached from it
//   (or a local alias of one) that does not resolve, a call handed `self`, the connection or such an alias, or a
//   call the repository index resolves to a function of another module holding a DML string (logging aside).
// Not seen: a call into code outside the repository, handed only plain values (a path), that opens a connection of
// its own and writes the marker; sqlite_master's scan order is taken to be rowid order (no ORDER BY: what SQLite
// does, not what SQL promises); the "database is locked" gap of the opener's handler.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { repoIndexOf, resolveCall } from '../callgraph.ts';
import { classQualname, functionsByQualname, resolveLocalCall } from '../local-resolve.ts';
import { subclassesOf } from '../inherited-methods.ts';
import { listFunctions } from '../functions.ts';
import { splitSqlStatements } from '../sql.ts';
import { dropsListedTable, noRowsCarriedOver, statementCall } from './listed-table-drop.ts';
import { isModuleConstant } from './module-constants.ts';
import { callParts } from '../body-walk.ts';
import { caughtClasses, compactText, literalText } from './syntax.ts';
import { contains } from './syntax-tree.ts';
import { sqlTemplate } from './schema-guarded-ddl.ts';

interface Rebuild {
  holder: PyFunction;
  holderModule: PyModule;
  drop: Effect;
  table: string;
  key: string;
  receiver: string;
  /** Methods the rebuild calls after the script, which `__init__` must also run. */
  after: string[];
}

const CREATE_TABLE = /^\s*create\s+table\s+(?:if\s+not\s+exists\s+)?["`[]?(\w+)/i;
const INSERT_MARKER = /^\s*insert\s+(?:or\s+\w+\s+)?into\s+["`[]?(\w+)["`\]]?\s*(?:\([^)]*\)\s*)?values\s*\(\s*'([^']+)'/i;
const INSERT = /^\s*insert\s+(?:or\s+\w+\s+)?into\s+["`[]?(\w+)/i;
const SQLITE_ERRORS = /^(?:(?:\w+\.)*(?:OperationalError|DatabaseError|Error)|Exception|BaseException)$/;

/**
 * The script's partial application is rebuilt at the next open (see above), and nothing the reporting function read
 * from the database before the drops is written after them (no data write follows, or every data read only feeds
 * the opener's tests).
 */
export function scriptRebuiltOnReopen(script: Effect, effects: readonly Effect[], fn: PyFunction, module: PyModule): boolean {
  const rebuild = rebuildOf(script, effects, fn, module);
  if (!rebuild) return false;
  const openers = openersOf(rebuild);
  if (openers.length === 0) return false;
  return noRowsCarriedOver(rebuild.drop, effects) || (openers.some((o) => o.fn === fn) && readsOnlyTested(effects, fn, module, rebuild));
}

/**
 * The DDL is a listed-table drop of a rebuild the reporting function calls only as an opener does (see above), and
 * every data read of the function only feeds the opener's tests: a crash anywhere in the rebuild leaves the marker
 * as it was (the test that chose the rebuild chooses it again) or gone (its read raises or reads None), so the
 * re-run calls the rebuild again, which drops what is left and makes the rest; the writes after it are redone.
 */
export function dropRebuiltOnReopen(ddl: Effect, effects: readonly Effect[], fn: PyFunction, module: PyModule): boolean {
  if (!ddl.via || !dropsListedTable(ddl, fn, module)) return false;
  const script = effects.find((effect) => effect.kind === 'db-script' && effect.node.id === ddl.node.id && effects.indexOf(effect) > effects.indexOf(ddl));
  const rebuild = script && rebuildOf(script, effects, fn, module);
  if (!rebuild || rebuild.drop !== ddl) return false;
  const opener = openersOf(rebuild).find((o) => o.fn === fn);
  if (!opener) return false;
  // Every call of the rebuild in the function is one the opener makes on the marker's absence.
  const calls = fn.node.descendantsOfType('call').filter((call) => resolveLocalCall(call, module, fn) === rebuild.holder);
  if (!calls.every((call) => opener.calls.some((c) => c.id === call.id))) return false;
  return readsOnlyTested(effects, fn, module, rebuild);
}

function rebuildOf(script: Effect, effects: readonly Effect[], fn: PyFunction, module: PyModule): Rebuild | undefined {
  const located = statementCall(script, fn, module);
  if (!located) return undefined;
  const { call, fn: holder } = located;
  const holderModule = script.via ? (script.via.path === module.path ? module : repoIndexOf(module)?.modules.get(script.via.path)) : module;
  if (!holderModule) return undefined;
  const body = holder.node.childForFieldName('body');
  const statement = call.parent;
  if (!body || statement?.type !== 'expression_statement' || statement.parent?.id !== body.id) return undefined;
  // The script: literals and module constants only, CREATE TABLE and INSERT only, a marker INSERT last.
  const argument = call.childForFieldName('arguments')?.namedChildren[0];
  if (!argument || !builtFromConstants(argument, holderModule)) return undefined;
  const statements = script.sql?.text === undefined ? [] : splitSqlStatements(script.sql.text).filter((s) => s.trim() !== '');
  if (statements.length === 0) return undefined;
  const created = new Set<string>();
  for (const sql of statements) {
    const create = CREATE_TABLE.exec(sql);
    if (create) created.add(create[1]!.toLowerCase());
    else if (!INSERT.test(sql)) return undefined;
  }
  const marker = INSERT_MARKER.exec(statements[statements.length - 1]!);
  if (!marker || !created.has(marker[1]!.toLowerCase())) return undefined;
  const table = marker[1]!.toLowerCase();
  // The marker table made first (lowest rowid: listed and dropped first), plainly; no INSERT into it keeps an old row.
  const first = CREATE_TABLE.exec(statements[0]!);
  if (!first || first[1]!.toLowerCase() !== table || /^\s*create\s+table\s+if\b/i.test(statements[0]!)) return undefined;
  if (statements.some((sql) => INSERT.exec(sql)?.[1]?.toLowerCase() === table && /^\s*insert\s+or\b/i.test(sql))) return undefined;
  const receiver = receiverOf(call);
  if (receiver === undefined) return undefined;
  // The drop loop: through the same call of the rebuild (or both in it), a statement of its body before the script.
  const drop = effects.slice(0, effects.indexOf(script)).find((effect) => {
    const sameCall = effect.node.id === script.node.id || (script.via === undefined && effect.via === undefined);
    if (effect.kind !== 'db-ddl' || !sameCall) return false;
    const at = statementCall(effect, fn, module);
    if (!at || at.fn.node.id !== holder.node.id || receiverOf(at.call) !== receiver) return false;
    const loop = topStatement(at.call, body);
    return loop?.type === 'for_statement' && loop.endIndex <= statement.startIndex && dropsListedTable(effect, fn, module);
  });
  if (!drop || !unfilteredListing(holder, receiver)) return undefined;
  // Nothing after the script writes, or only what __init__ runs again at every open (checked with the class).
  const after: string[] = [];
  for (const later of ownStatements(body).filter((s) => s.startIndex >= statement.endIndex)) {
    const laterCall = later.type === 'expression_statement' ? later.namedChildren[0] : undefined;
    if (laterCall?.type !== 'call' || later.namedChildren.length !== 1) return undefined;
    const callee = laterCall.childForFieldName('function');
    const args = laterCall.childForFieldName('arguments')?.namedChildren ?? [];
    if (callee?.type === 'attribute' && receiverOf(laterCall) === receiver && callee.childForFieldName('attribute')?.text === 'commit' && args.length === 0) continue;
    if (loggingCall(laterCall)) continue;
    const method = /^self\.(\w+)$/.exec(callee?.text.replace(/\s+/g, '') ?? '');
    if (!method || args.length > 0) return undefined;
    after.push(method[1]!);
  }
  return { holder, holderModule, drop, table, key: marker[2]!, receiver, after };
}

const LISTING = /^\s*select\s+name\s+from\s+(?:main\.)?sqlite_(?:master|schema)\b([\s\S]*)$/i;
const KEEPS_TABLES = /^(?:type\s*={1,2}\s*(?:'table'|"table")|name\s+not\s+like\s+(?:'sqlite_?%'|"sqlite_?%"))$/i;

/**
 * The rebuild's one sqlite_master listing on the connection keeps every table: its WHERE only `type = 'table'` and
 * `name NOT LIKE 'sqlite%'` conjuncts, no ORDER BY (nor anything else).
 */
function unfilteredListing(holder: PyFunction, receiver: string): boolean {
  const listings = holder.node.descendantsOfType('call').flatMap((call) => {
    const sql = sqlTemplate(call.childForFieldName('arguments')?.namedChildren[0]);
    const match = sql && LISTING.exec(sql.text);
    return match ? [{ call, rest: match[1]!, holes: sql.holes.length }] : [];
  });
  if (listings.length !== 1 || listings[0]!.holes > 0 || receiverOf(listings[0]!.call) !== receiver) return false;
  const rest = listings[0]!.rest.trim().replace(/;$/, '').trim();
  if (rest === '') return true;
  const where = /^where\s+([\s\S]+)$/i.exec(rest);
  return where !== null && where[1]!.split(/\s+and\s+/i).every((part) => KEEPS_TABLES.test(part.trim()));
}

const LOG_METHODS = /^(?:debug|info|warning|warn|error|exception|critical|log)$/;

/** `logger.debug(...)`, `logging.info(...)`, `log.warning(...)`, `print(...)`. */
function loggingCall(call: SyntaxNode): boolean {
  const callee = call.childForFieldName('function');
  if (callee?.type === 'identifier') return callee.text === 'print';
  if (callee?.type !== 'attribute') return false;
  const object = callee.childForFieldName('object');
  return object?.type === 'identifier' && /^(?:_?logger|_?log|logging|LOG|LOGGER)$/.test(object.text) && LOG_METHODS.test(callee.childForFieldName('attribute')?.text ?? '');
}

/** Every identifier in the expression is a module constant or the name of a plain function called. */
function builtFromConstants(node: SyntaxNode, module: PyModule): boolean {
  if (node.type === 'attribute' || node.type === 'subscript' || node.type === 'lambda') return false;
  if (node.type === 'identifier') return isModuleConstant(node.text, module);
  if (node.type === 'call') {
    const callee = node.childForFieldName('function');
    if (callee?.type !== 'identifier') return false;
    return (node.childForFieldName('arguments')?.namedChildren ?? []).every((arg) => builtFromConstants(arg, module));
  }
  if (node.type === 'string') return node.namedChildren.every((child) => child.type !== 'interpolation');
  return node.namedChildren.every((child) => child.type === 'comment' || builtFromConstants(child, module));
}

interface Opener {
  fn: PyFunction;
  /** The calls of the rebuild the opener makes on the marker's absence. */
  calls: SyntaxNode[];
  /** The conditions of the chain up to the marker's clause. */
  tests: SyntaxNode[];
}

function openersOf(rebuild: Rebuild): Opener[] {
  const module = rebuild.holderModule;
  const owner = rebuild.holder.className === undefined ? undefined : classQualname(rebuild.holder);
  // One top-level class holds all of it; no subclass redefines its open path or the rebuild.
  if (owner === undefined || owner.includes('.')) return [];
  if (overriddenBelow(module, owner, ['__init__', rebuild.holder.name, ...rebuild.after])) return [];
  const init = functionsByQualname(module).get(`${owner}.__init__`);
  if (!init) return [];
  const openers: Opener[] = [];
  for (const fn of listFunctions(module)) {
    if (fn.node.id === rebuild.holder.node.id || fn.className === undefined || classQualname(fn) !== owner) continue;
    if (overriddenBelow(module, owner, [fn.name])) continue;
    if (!runsOnEveryOpen(fn, init, rebuild)) continue;
    const opener = openerShape(fn, module, rebuild);
    if (opener) openers.push(opener);
  }
  return openers;
}

/** Some subclass of the class (anywhere in the repository) defines one of the methods. */
export function overriddenBelow(module: PyModule, owner: string, names: readonly string[]): boolean {
  return subclassesOf({ module, name: owner }).some((sub) => names.some((name) => functionsByQualname(sub.module).has(`${sub.name}.${name}`)));
}

/**
 * `__init__` is the opener, or calls it (`self.<opener>()`) as a statement of its own body with nothing before it
 * that leaves; and each method the rebuild calls after its script is called by `__init__` after that, as a
 * statement of its body or under `if not hasattr(self, '<x>'):` alone, the method binding self.<x> in its body.
 */
function runsOnEveryOpen(fn: PyFunction, init: PyFunction, rebuild: Rebuild): boolean {
  if (fn.node.id === init.node.id) return rebuild.after.length === 0;
  const body = init.node.childForFieldName('body');
  if (!body) return false;
  const statements = ownStatements(body);
  const selfCall = (statement: SyntaxNode | undefined, name: string): boolean => {
    const call = statement?.type === 'expression_statement' && statement.namedChildren.length === 1 ? statement.namedChildren[0] : undefined;
    return call?.type === 'call' && call.childForFieldName('function')?.text.replace(/\s+/g, '') === `self.${name}` && (call.childForFieldName('arguments')?.namedChildren.length ?? 1) === 0;
  };
  let at = -1;
  for (let i = 0; i < statements.length; i++) {
    if (selfCall(statements[i], fn.name)) {
      at = i;
      break;
    }
    if (leaves(statements[i]!)) return false;
  }
  if (at < 0) return false;
  const later = statements.slice(at + 1);
  const methods = functionsByQualname(rebuild.holderModule);
  return rebuild.after.every((name) =>
    later.some((statement) => {
      if (selfCall(statement, name)) return true;
      if (statement.type !== 'if_statement' || statement.namedChildren.some((c) => c.type === 'elif_clause' || c.type === 'else_clause')) return false;
      const guard = /^not\s+hasattr\(\s*self\s*,\s*(['"])(\w+)\1\s*\)$/.exec(statement.childForFieldName('condition')?.text.trim() ?? '');
      const block = statement.childForFieldName('consequence');
      const inner = block ? ownStatements(block) : [];
      if (!guard || inner.length !== 1 || !selfCall(inner[0], name)) return false;
      const method = methods.get(`${classQualname(init)}.${name}`);
      const methodBody = method?.node.childForFieldName('body');
      return methodBody !== null && methodBody !== undefined && ownStatements(methodBody).some((s) =>
        s.type === 'expression_statement' && s.namedChildren[0]?.type === 'assignment' && s.namedChildren[0].childForFieldName('left')?.text.replace(/\s+/g, '') === `self.${guard[2]}`);
    }),
  );
}

function openerShape(fn: PyFunction, module: PyModule, rebuild: Rebuild): Opener | undefined {
  const body = fn.node.childForFieldName('body');
  if (!body) return undefined;
  const callsRebuild = (statement: SyntaxNode | undefined): SyntaxNode | undefined => {
    const call = statement?.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
    return call?.type === 'call' && resolveLocalCall(call, module, fn) === rebuild.holder ? call : undefined;
  };
  for (const statement of ownStatements(body)) {
    if (statement.type === 'try_statement') {
      const found = tryShape(statement, fn, module, rebuild, callsRebuild);
      if (found) return found;
    }
    if (leaves(statement) || mayWrite(statement, fn, module, rebuild)) return undefined;
  }
  return undefined;
}

const DML = /^\s*(?:insert|update|delete|replace)\b/i;

/**
 * The statement may write a row before the tests (the marker itself, so that the test passes on a partial
 * schema): a DML string in it; a call of a function of the module other than the rebuild that has one or calls
 * such a function in turn (one level deep; deeper is taken to write); a call on the connection whose SQL is not a
 * literal; an unresolved `self.<m>()`, or a call on an object `self` holds; a call handed `self` or the connection;
 * a call the repository index resolves to functions of other modules of which one holds a DML string.
 * Logging calls are taken not to write.
 */
function mayWrite(statement: SyntaxNode, fn: PyFunction, module: PyModule, rebuild: Rebuild, depth = 0): boolean {
  if (statement.descendantsOfType('string').some((s) => DML.test(literalText(s)))) return true;
  const index = repoIndexOf(module);
  const connection = rebuild.receiver;
  const rootedAt = (text: string, root: string): boolean => text === root || text.startsWith(`${root}.`) || text.startsWith(`${root}(`) || text.startsWith(`${root}[`);
  // Locals of the function bound to `self`, the connection or something reached from them (`db = self._db`).
  const aliases = new Set<string>();
  for (const binding of [...fn.node.descendantsOfType('assignment'), ...fn.node.descendantsOfType('as_pattern')]) {
    const [target, value] = binding.type === 'assignment'
      ? [binding.childForFieldName('left'), binding.childForFieldName('right')]
      : [binding.childForFieldName('alias') ?? binding.namedChildren[1], binding.namedChildren[0]];
    const text = value?.text.replace(/\s+/g, '') ?? '';
    if (target?.type === 'identifier' || target?.type === 'as_pattern_target') {
      if (rootedAt(text, 'self') || rootedAt(text, connection)) aliases.add(target.text);
    }
  }
  const reachesSelf = (text: string): boolean => rootedAt(text, 'self') || [...aliases].some((alias) => rootedAt(text, alias));
  return statement.descendantsOfType('call').some((call) => {
    const callee = resolveLocalCall(call, module, fn);
    if (callee) {
      if (callee === rebuild.holder) return false;
      const body = callee.node.childForFieldName('body');
      return depth >= 1 || !body || mayWrite(body, callee, module, rebuild, depth + 1);
    }
    if (loggingCall(call)) return false;
    const calleeNode = call.childForFieldName('function');
    const receiver = receiverOf(call);
    if (receiver !== undefined && rootedAt(receiver, connection)) {
      const method = calleeNode?.childForFieldName('attribute')?.text ?? '';
      if (!/^execute(?:many|script)?$/.test(method)) return false;
      const sql = sqlTemplate(call.childForFieldName('arguments')?.namedChildren[0]);
      return sql === undefined || sql.holes.length > 0;
    }
    if (receiver !== undefined && reachesSelf(receiver)) return true;
    const handed = (call.childForFieldName('arguments')?.namedChildren ?? []).map((arg) =>
      (arg.type === 'keyword_argument' ? arg.childForFieldName('value') : arg.type === 'list_splat' || arg.type === 'dictionary_splat' ? arg.namedChildren[0] : arg)?.text.replace(/\s+/g, '') ?? '');
    if (handed.some((text) => text === 'self' || rootedAt(text, connection) || [...aliases].some((alias) => rootedAt(text, alias)))) return true;
    if (!index) return false;
    const resolved = resolveCall(index, module.path, call, fn);
    return resolved.targets.some((target) => {
      const targetModule = index.modules.get(target.path);
      const found = targetModule && functionsByQualname(targetModule).get(target.qualname);
      return !found || found.node.descendantsOfType('string').some((s) => DML.test(literalText(s)));
    });
  });
}

function tryShape(
  tryStatement: SyntaxNode,
  fn: PyFunction,
  module: PyModule,
  rebuild: Rebuild,
  callsRebuild: (statement: SyntaxNode | undefined) => SyntaxNode | undefined,
): Opener | undefined {
  const tryBody = tryStatement.childForFieldName('body');
  if (!tryBody) return undefined;
  // The first handler a missing table's OperationalError reaches calls the rebuild, nothing before it leaving.
  let handlerCall: SyntaxNode | undefined;
  for (const clause of tryStatement.namedChildren.filter((child) => child.type === 'except_clause')) {
    const classes = caughtClasses(clause);
    if (classes && !classes.some((c) => SQLITE_ERRORS.test(c.text.replace(/\s+/g, '')))) continue;
    const block = clause.namedChildren.find((child) => child.type === 'block');
    for (const statement of block ? ownStatements(block) : []) {
      const inner = statement.type === 'try_statement' ? statement.childForFieldName('body') : null;
      handlerCall = callsRebuild(statement) ?? (inner ? callsRebuild(ownStatements(inner)[0]) : undefined);
      if (handlerCall || leaves(statement)) break;
    }
    break;
  }
  if (!handlerCall) return undefined;
  for (const statement of ownStatements(tryBody)) {
    if (statement.type === 'if_statement') {
      const chain = chainShape(statement, fn, module, rebuild, callsRebuild);
      if (chain) return { fn, calls: [...chain.calls, handlerCall], tests: chain.tests };
    }
    if (leaves(statement) || mayWrite(statement, fn, module, rebuild)) return undefined;
  }
  return undefined;
}

function chainShape(
  ifStatement: SyntaxNode,
  fn: PyFunction,
  module: PyModule,
  rebuild: Rebuild,
  callsRebuild: (statement: SyntaxNode | undefined) => SyntaxNode | undefined,
): { calls: SyntaxNode[]; tests: SyntaxNode[] } | undefined {
  const clauses = [ifStatement, ...ifStatement.namedChildren.filter((child) => child.type === 'elif_clause')];
  const calls: SyntaxNode[] = [];
  const tests: SyntaxNode[] = [];
  for (const clause of clauses) {
    const condition = clause.childForFieldName('condition');
    const block = clause.childForFieldName('consequence');
    const call = block ? ownStatements(block).map(callsRebuild).find((c) => c !== undefined) : undefined;
    if (!condition || !call) return undefined;
    // The call is a statement of the block with nothing before it that leaves.
    const before = ownStatements(block!).filter((s) => s.endIndex <= call.startIndex);
    if (before.some(leaves)) return undefined;
    calls.push(call);
    tests.push(condition);
    if (markerTest(condition, fn, module, rebuild, rebuild.key)) return { calls, tests };
    // An earlier test reads a row too, through a helper that writes nothing.
    if (!markerTest(condition, fn, module, rebuild, undefined)) return undefined;
  }
  return undefined;
}

/** `<helper>('<key>', ...) != <value>`, the helper reading <t> and returning None for a missing row. */
function markerTest(condition: SyntaxNode, fn: PyFunction, module: PyModule, rebuild: Rebuild, key: string | undefined): boolean {
  if (condition.type !== 'comparison_operator' || condition.namedChildren.length !== 2) return false;
  if (!condition.children.some((child) => child.type === '!=')) return false;
  const [left, right] = condition.namedChildren as [SyntaxNode, SyntaxNode];
  for (const [read, value] of [[left, right], [right, left]] as const) {
    if (read.type !== 'call' || value.type === 'none') continue;
    const first = read.childForFieldName('arguments')?.namedChildren[0];
    if (first?.type !== 'string' || (key !== undefined && literalText(first) !== key)) continue;
    const helper = resolveLocalCall(read, module, fn);
    // A subclass's own helper may answer for a missing row (a default): which one runs depends on the object.
    if (helper?.className !== undefined && overriddenBelow(module, classQualname(helper), [helper.name])) continue;
    if (helper && missingRowReadsNone(helper, rebuild)) return true;
  }
  return false;
}

const RETURNS_NONE_WHEN_MISSING = /^return\s+[\s\S]+\s+if\s+(\w+)\s+else\s+None$/;

/** The helper selects from <t> on the rebuild's connection, writes nothing, returns `x if row else None`, and binds only locals. */
function missingRowReadsNone(helper: PyFunction, rebuild: Rebuild): boolean {
  const node = helper.node;
  const reads = node.descendantsOfType('string').some((s) => new RegExp(`^\\s*select\\b[\\s\\S]*\\bfrom\\s+["\`[]?${rebuild.table}\\b`, 'i').test(literalText(s)));
  if (!reads || node.descendantsOfType('string').some((s) => DML.test(literalText(s)))) return false;
  const usesConnection = node.descendantsOfType('call').some((call) => receiverOf(call) === rebuild.receiver);
  if (!usesConnection) return false;
  // Every return is `return <x> if <row> else None`, <row> bound only to the read's fetchone(), or `return None`.
  const returns = node.descendantsOfType('return_statement');
  const fetched = (name: string): boolean => {
    const bindings = node.descendantsOfType('assignment').filter((a) => a.childForFieldName('left')?.text === name);
    return bindings.length === 1 && /\.fetchone\(\s*\)$/.test(bindings[0]!.childForFieldName('right')?.text ?? '');
  };
  const returnsNone = (r: SyntaxNode): boolean => {
    const text = r.text.replace(/\s+/g, ' ').trim();
    const match = RETURNS_NONE_WHEN_MISSING.exec(text);
    return text === 'return None' || (match !== null && fetched(match[1]!));
  };
  if (returns.length === 0 || !returns.every(returnsNone)) return false;
  // No state kept: no attribute or subscript assigned, no global.
  const assigns = [...node.descendantsOfType('assignment'), ...node.descendantsOfType('augmented_assignment')];
  if (assigns.some((a) => a.childForFieldName('left')?.type !== 'identifier')) return false;
  return node.descendantsOfType('global_statement').length === 0 && node.descendantsOfType('nonlocal_statement').length === 0;
}

/**
 * Every read of the function other than of the schema (sqlite_master, PRAGMA) is made by a call in one of the
 * opener's tests, through a helper that only returns what it read: no read value is kept to be written back.
 */
function readsOnlyTested(effects: readonly Effect[], fn: PyFunction, module: PyModule, rebuild: Rebuild): boolean {
  const opener = openersOf(rebuild).find((o) => o.fn === fn);
  if (!opener) return false;
  return effects.every((effect) => {
    if (!effect.kind.startsWith('db-')) return true;
    if (effect.sql?.text === undefined || effect.sql.kind === 'unknown') return effect.kind === 'db-script' || effect.kind === 'db-commit' || effect.kind === 'db-rollback' || effect.kind === 'db-begin';
    if (effect.kind !== 'db-read' || SCHEMA_READ.test(effect.sql.text)) return true;
    if (!opener.tests.some((test) => contains(test, effect.node))) return false;
    const helper = effect.via && resolveLocalCall(effect.node, module, fn);
    return helper !== undefined && helper !== null && effect.via?.qualname === helper.qualname && missingRowReadsNone(helper, rebuild);
  });
}

const SCHEMA_READ = /^\s*(?:select\b[\s\S]*\bfrom\s+(?:main\.)?sqlite_(?:master|schema)\b|pragma\b)/i;

/** The statements of a block, comments left out. */
function ownStatements(block: SyntaxNode): SyntaxNode[] {
  return block.namedChildren.filter((child) => child.type !== 'comment');
}

/** The statement of `body` (its own child) that holds `node`. */
function topStatement(node: SyntaxNode, body: SyntaxNode): SyntaxNode | undefined {
  return ownStatements(body).find((statement) => contains(statement, node));
}

/** The statement may leave the enclosing code: a return, raise, break or continue anywhere in it (nested defs aside). */
function leaves(statement: SyntaxNode): boolean {
  const kinds = ['return_statement', 'raise_statement', 'break_statement', 'continue_statement'];
  if (kinds.includes(statement.type)) return true;
  return kinds.some((kind) =>
    statement.descendantsOfType(kind).some((found) => {
      for (let at = found.parent; at && at.id !== statement.id; at = at.parent) {
        if (at.type === 'function_definition' || at.type === 'lambda' || at.type === 'class_definition') return false;
      }
      return true;
    }),
  );
}

function receiverOf(call: SyntaxNode): string | undefined {
  const receiver = callParts(call).receiver;
  return receiver ? compactText(receiver) : undefined;
}
