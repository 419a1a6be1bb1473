// What the sqlite rules ask about one function's effects: which calls write,
// which open, commit or roll back a transaction, whether the function puts
// its connection into autocommit itself, and whether two writes can both run.
// Computed once per function and shared by the rules.
import type { Effect, PyFunction, PyModule, SyntaxNode, TxStyleResult } from '../model.ts';
import type { RuleContext } from './rule.ts';
import { splitSqlStatements, statementKind } from '../sql.ts';
import { callParts } from '../body-walk.ts';
import { ancestorsWithin, callsItself, contains, definedInModule, enclosingExceptClauses, isOwnCode, mutuallyExclusive } from './syntax.ts';
import { retriedOnlyOnFailure } from './retry-loop.ts';
import { deadForItsCall } from './call-dead-arms.ts';
import { ownWithItems } from './syntax-tree.ts';
import { enclosingFunctionNode } from '../functions.ts';
import { integrityFallback, type WriteCall } from './integrity-fallback.ts';
import { committingWrapperAs } from './committing-wrapper.ts';
import type { RepoIndex } from '../callgraph.ts';

export interface TransactionFacts {
  /** DML writes (INSERT/UPDATE/DELETE/REPLACE) and SQL that could not be resolved, which may write. */
  dmlWrites: Effect[];
  /**
   * Schema changes: CREATE, ALTER, DROP. PRAGMA, ATTACH, DETACH and VACUUM are
   * left out: they change no data, and most cannot even run inside a transaction.
   */
  ddl: Effect[];
  scripts: Effect[];
  /** BEGIN, SAVEPOINT, or a script that begins: the function opens its own transaction. */
  opens: Effect[];
  commits: Effect[];
  rollbacks: Effect[];
  /** Where the function puts a connection into autocommit (`isolation_level = None`, `autocommit=True`). */
  autocommitNodes: SyntaxNode[];
  /** `with conn:` statements: each commits what was written in it when the block ends. */
  connectionBlocks: SyntaxNode[];
}

export type FactsInput = Pick<RuleContext, 'effects' | 'fn' | 'txStyle'>;

const cache = new WeakMap<readonly Effect[], TransactionFacts>();

export function transactionFacts(context: FactsInput): TransactionFacts {
  let facts = cache.get(context.effects);
  if (!facts) {
    facts = computeFacts(context.effects, context.fn.node, context.txStyle);
    cache.set(context.effects, facts);
  }
  return facts;
}

function computeFacts(effects: readonly Effect[], fnNode: SyntaxNode, txStyle: TxStyleResult): TransactionFacts {
  // Most functions touch no database: spare them the walks below.
  const touchesDatabase = effects.some((effect) => effect.kind.startsWith('db-'));
  return {
    dmlWrites: effects.filter((effect) => effect.kind === 'db-write'),
    ddl: effects.filter(isSchemaChange),
    scripts: effects.filter((effect) => effect.kind === 'db-script'),
    opens: effects.filter((effect) => effect.kind === 'db-begin' || (effect.kind === 'db-script' && scriptBegins(effect))),
    commits: effects.filter((effect) => effect.kind === 'db-commit'),
    rollbacks: effects.filter((effect) => effect.kind === 'db-rollback'),
    autocommitNodes: touchesDatabase ? autocommitSettings(fnNode) : [],
    connectionBlocks: touchesDatabase ? connectionBlocks(fnNode, txStyle) : [],
  };
}

function isSchemaChange(effect: Effect): boolean {
  return effect.kind === 'db-ddl' && effect.sql?.kind === 'ddl' && /^\s*\(?\s*(create|alter|drop)\b/i.test(effect.sql.text ?? '');
}

export function scriptStatements(effect: Effect): string[] {
  return effect.sql?.text === undefined ? [] : splitSqlStatements(effect.sql.text);
}

function scriptBegins(effect: Effect): boolean {
  return scriptStatements(effect).some((statement) => ['begin', 'savepoint'].includes(statementKind(statement)));
}

/** True when the SQL is known to write (not just possibly, as unresolved SQL might). */
export function knownWrite(effect: Effect): boolean {
  return effect.sql?.kind === 'write' || effect.sql?.kind === 'ddl' || effect.kind === 'db-script';
}

/**
 * `executemany`, or a call in a loop: one effect that happens many times. Not a statement that a loop
 * only retries after it raised (retry-loop.ts): no attempt is saved apart from the others (a failed
 * statement wrote nothing; after a failed commit the retry's row joins the open transaction, a
 * duplicate saved with the first, not a crash window).
 */
export function repeats(effect: Effect): boolean {
  if (effect.call.endsWith('.executemany')) return true;
  return effect.inLoop && !onlyRetried(effect);
}

/** The effect's own call is retried only on failure, and (for a helper's) the call of the helper is in no loop of its caller. */
function onlyRetried(effect: Effect): boolean {
  const own = effect.viaNode ?? effect.node;
  const ownFn = enclosingFunctionNode(own);
  if (!ownFn || !retriedOnlyOnFailure(own, ownFn)) return false;
  if (!effect.viaNode) return true;
  const caller = enclosingFunctionNode(effect.node);
  return caller !== undefined && !runsInLoop(effect.node, caller);
}

const COMPREHENSIONS = new Set(['list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);

/**
 * `node` may run more than once through a loop of `fnNode`: in a loop's body, in a `while`'s
 * condition (tested before every pass: `while self._append_next(it):`), or anywhere in a comprehension.
 * A `for`'s iterable and a loop's `else` run once.
 */
function runsInLoop(node: SyntaxNode, fnNode: SyntaxNode): boolean {
  return ancestorsWithin(node, fnNode).some((loop) => {
    if (COMPREHENSIONS.has(loop.type)) return true;
    if (loop.type !== 'for_statement' && loop.type !== 'while_statement') return false;
    const parts = [loop.childForFieldName('body'), loop.type === 'while_statement' ? loop.childForFieldName('condition') : null];
    return parts.some((part) => part !== null && contains(part, node));
  });
}


/**
 * True when the effects amount to more than one write that can run in one
 * pass (so a crash can fall between them), and at least one is known to
 * write: unresolved SQL alone is too weak a reason to speak.
 */
export function severalWrites(writes: readonly Effect[], fnNode: SyntaxNode): boolean {
  const live = liveWrites(writes);
  if (!live.some(knownWrite)) return false;
  if (live.some(repeats)) return true;
  for (let i = 0; i < live.length; i++) {
    for (let j = i + 1; j < live.length; j++) {
      if (!exclusiveEffects(live[i]!, live[j]!, fnNode)) return true;
    }
  }
  return false;
}

/** The writes that can run: not a helper's write in an arm its call's arguments rule out (call-dead-arms.ts). */
function liveWrites(writes: readonly Effect[]): readonly Effect[] {
  return writes.filter((write) => !deadForItsCall(write));
}

/**
 * At most one of the two runs in one pass. Two effects of one helper call share its call node here:
 * they exclude each other when their own calls do in the helper (its if/elif arms), unless the helper
 * calls itself (then one call of it can run both arms); the caller's loops are `repeats`' to judge.
 */
function exclusiveEffects(a: Effect, b: Effect, fnNode: SyntaxNode): boolean {
  if (a.node.id !== b.node.id) return exclusiveNodes(a.node, b.node, fnNode) || integrityFallback(ownCall(a), ownCall(b), fnNode);
  if (!a.viaNode || !b.viaNode || a.via?.qualname !== b.via?.qualname) return false;
  const helper = enclosingFunctionNode(a.viaNode);
  if (helper === undefined || helper.id !== enclosingFunctionNode(b.viaNode)?.id || callsItself(helper)) return false;
  return (
    exclusiveNodes(a.viaNode, b.viaNode, helper) ||
    integrityFallback(helperCall(a.viaNode, a), helperCall(b.viaNode, b), helper)
  );
}

/**
 * A helper's write as the helper makes it: its SQL only when no function of the module is named for the method it
 * calls (a wrapper `self.execute(sql)` that writes an audit row first is another helper, not the database's own).
 */
function helperCall(viaNode: SyntaxNode, effect: Effect): WriteCall {
  const method = viaNode.type === 'call' ? callParts(viaNode).method : undefined;
  const wrapped = method !== undefined && definedInModule(viaNode, method);
  return { node: viaNode, sql: wrapped ? undefined : effect.sql };
}

/** The effect's call here, its SQL only when the call runs it itself: a helper named `execute` may write more than its last statement. */
function ownCall(effect: Effect): WriteCall {
  return { node: effect.node, sql: effect.via ? undefined : effect.sql };
}

/** mutuallyExclusive, less the pairs where one node is in a test that runs before the other's later arm. */
function exclusiveNodes(a: SyntaxNode, b: SyntaxNode, fnNode: SyntaxNode): boolean {
  return mutuallyExclusive(a, b, fnNode) && !testedBeforeArm(a, b, fnNode) && !testedBeforeArm(b, a, fnNode);
}

/**
 * `a` is in the test of an `elif` (or the guard of a `case`) and `b` in a later arm of the same
 * if (or match): the test runs whenever that later arm is reached, so `elif conn.execute(DELETE)...:`
 * runs before the `else:` arm's INSERT. The arms exclude each other; the test does not.
 */
function testedBeforeArm(a: SyntaxNode, b: SyntaxNode, fnNode: SyntaxNode): boolean {
  return ancestorsWithin(a, fnNode).some((arm) => {
    const test = arm.type === 'elif_clause' ? arm.childForFieldName('condition') : arm.type === 'case_clause' ? arm.childForFieldName('guard') : null;
    return test !== null && contains(test, a) && arm.parent !== null && contains(arm.parent, b) && b.startIndex >= arm.endIndex;
  });
}

/** `3 writes`, `repeated writes` (one in a loop or executemany), `2 writes, some repeated,`: what a crash can split. */
export function describeWrites(writes: readonly Effect[]): string {
  const live = liveWrites(writes);
  if (!live.some(repeats)) return `${live.length} writes`;
  return live.length === 1 ? 'repeated writes' : `${live.length} writes, some repeated,`;
}

/** The `with` item of `withStatement` that the transaction-style detector judged a connection. */
export function connectionItem(withStatement: SyntaxNode, txStyle: TxStyleResult): SyntaxNode | undefined {
  const lines = new Set(txStyle.evidence.filter((found) => found.pattern === 'with-conn' || found.pattern === 'with-connect-as').map((found) => found.line));
  return ownWithItems(withStatement).find((item) => lines.has(item.startPosition.row + 1));
}

/**
 * The helper's own `with <conn>:` block a helper's write runs in, on the connection it writes on
 * (IPython's end_session: `with self.db: self.db.execute(...)`). That block commits at its end in the
 * default mode, and saves each write at once in autocommit: the caller's implicit transaction holds
 * nothing of it together with writes outside it.
 */
export function helperConnectionBlock(effect: Effect, index?: RepoIndex): SyntaxNode | undefined {
  const inner = effect.viaNode;
  const receiver = inner ? callParts(inner).receiver?.text : undefined;
  if (!inner || receiver === undefined) return undefined;
  for (let node = inner.parent; node && node.type !== 'function_definition' && node.type !== 'lambda'; node = node.parent) {
    if (node.type !== 'with_statement') continue;
    if (ownWithItems(node).some((item) => item.childForFieldName('value')?.text === receiver || (index !== undefined && committingWrapperAs(item, receiver, index)))) return node;
  }
  return undefined;
}

export function within(container: SyntaxNode, effect: Effect): boolean {
  return contains(container, effect.node);
}

/** `x.isolation_level = None`, `x.autocommit = True`, `connect(..., isolation_level=None | autocommit=True)`. */
function autocommitSettings(fnNode: SyntaxNode): SyntaxNode[] {
  return fnNode.descendantsOfType(['assignment', 'call']).filter((node) => {
    if (!isOwnCode(node, fnNode)) return false;
    if (node.type === 'call') return connectsInAutocommit(node);
    const left = node.childForFieldName('left');
    const attribute = left?.type === 'attribute' ? left.childForFieldName('attribute')?.text : undefined;
    const right = node.childForFieldName('right')?.text;
    return (attribute === 'isolation_level' && right === 'None') || (attribute === 'autocommit' && right === 'True');
  });
}

/** `CREATE ... IF NOT EXISTS`, `DROP ... IF EXISTS` and TEMP objects: a re-run after a crash finds nothing to trip on. */
export function rerunSafeDdl(statement: string): boolean {
  return /\bif\s+(not\s+)?exists\b/i.test(statement) || /^\s*create\s+(temp|temporary)\b/i.test(statement);
}

/** Every write is DDL a re-run completes (IF [NOT] EXISTS, TEMP): a crash between them leaves nothing a re-run trips on. */
export function onlyRerunSafeDdl(writes: readonly Effect[]): boolean {
  return writes.every((write) => write.kind === 'db-ddl' && write.sql?.text !== undefined && rerunSafeDdl(write.sql.text));
}

/**
 * Writes not yet committed when effect `before` runs: after the last commit,
 * rollback or script before it, and not inside a `with conn:` block that has
 * ended (and so committed) by then.
 */
export function pendingWritesBefore(context: FactsInput, before: number): Effect[] {
  const { effects } = context;
  const at = effects[before]?.node;
  const closedBlocks = transactionFacts(context).connectionBlocks.filter((block) => at !== undefined && block.endIndex <= at.startIndex);
  let pending: Effect[] = [];
  for (let index = 0; index < before; index++) {
    const effect = effects[index]!;
    if (effect.kind === 'db-commit' || effect.kind === 'db-rollback' || effect.kind === 'db-script') pending = [];
    else if (effect.kind === 'db-write' || isSchemaChange(effect)) pending.push(effect);
  }
  return pending.filter((effect) => !closedBlocks.some((block) => within(block, effect)));
}

export type RecordAfter = { kind: 'write'; effect: Effect } | { kind: 'commit'; effect: Effect };

/**
 * How the database records, after effect `index`, what that effect did: a
 * later write that is known to write, or else a later commit that saves
 * writes made before it. Writes on an error path (an except clause that the
 * effect is not in) and writes in another branch do not count: they record a
 * failure, or a different case.
 */
export function recordAfter(context: FactsInput, index: number): RecordAfter | undefined {
  const { effects } = context;
  const fnNode = context.fn.node;
  const subject = effects[index]!;
  const onSamePath = (later: Effect): boolean =>
    later.node.startIndex >= subject.node.startIndex &&
    !mutuallyExclusive(subject.node, later.node, fnNode) &&
    !onErrorPathOnly(later.node, subject.node, fnNode);
  const later = effects.slice(index + 1).filter(onSamePath);
  const write = later.find((effect) => effect.kind === 'db-write' && effect.sql?.kind === 'write');
  if (write) return { kind: 'write', effect: write };
  const commit = later.find((effect) => effect.kind === 'db-commit');
  if (commit && pendingWritesBefore(context, index).some(knownWrite)) return { kind: 'commit', effect: commit };
  return undefined;
}

export interface RecordedLater {
  effect: Effect;
  index: number;
  record: RecordAfter;
  /** `{ call, recordLine }` for a message: what happened first, and where the record comes. */
  data: { call: string; recordLine: number };
}

/** The effects that `matches` and that the database records only later (see recordAfter), in source order. */
export function recordedLater(context: FactsInput, matches: (effect: Effect) => boolean): RecordedLater[] {
  const found: RecordedLater[] = [];
  context.effects.forEach((effect, index) => {
    const record = matches(effect) ? recordAfter(context, index) : undefined;
    if (record) found.push({ effect, index, record, data: { call: `${effect.call}()`, recordLine: record.effect.range.startLine } });
  });
  return found;
}

function onErrorPathOnly(node: SyntaxNode, subject: SyntaxNode, fnNode: SyntaxNode): boolean {
  return enclosingExceptClauses(node, fnNode).some((clause) => !contains(clause, subject));
}

/** The writes inside `container` (DML, DDL, scripts), when they are several; undefined otherwise. */
export function connectionWrites(facts: TransactionFacts, container: SyntaxNode, fnNode: SyntaxNode): Effect[] | undefined {
  const writes = [...facts.dmlWrites, ...facts.ddl, ...facts.scripts]
    .filter((effect) => within(container, effect))
    .sort((a, b) => a.node.startIndex - b.node.startIndex);
  return severalWrites(writes, fnNode) ? writes : undefined;
}

/** True when the function put the connection named `name` into autocommit before `node`. */
export function setsAutocommitFor(name: string, facts: TransactionFacts, node: SyntaxNode): boolean {
  return facts.autocommitNodes.some((setting) => {
    if (setting.startIndex > node.startIndex) return false;
    if (setting.type === 'assignment') return setting.childForFieldName('left')?.childForFieldName('object')?.text === name;
    const assignment = setting.parent?.type === 'assignment' ? setting.parent : undefined;
    return assignment?.childForFieldName('left')?.text === name;
  });
}

/** `sqlite3.connect(..., isolation_level=None)` or `autocommit=True`. */
export function connectsInAutocommit(node: SyntaxNode): boolean {
  return connectKeyword(node, 'isolation_level') === 'None' || connectKeyword(node, 'autocommit') === 'True';
}

/** The text of a keyword argument of a `connect(...)` call; undefined for anything else. */
export function connectKeyword(node: SyntaxNode, name: string): string | undefined {
  if (node.type !== 'call') return undefined;
  const parts = callParts(node);
  return parts.method === 'connect' ? parts.keywords.get(name)?.text : undefined;
}

function connectionBlocks(fnNode: SyntaxNode, txStyle: TxStyleResult): SyntaxNode[] {
  return fnNode.descendantsOfType('with_statement').filter((node) => isOwnCode(node, fnNode) && connectionItem(node, txStyle));
}

/** The database driver a module's findings speak of. */
export interface Driver {
  kind: 'sqlite3' | 'psycopg' | 'dbapi';
  /** As the module imports it: `sqlite3`, `psycopg2`, `pymysql`; or the database a project module it builds on is named for: `PostgreSQL`, `MySQL`. */
  name: string;
  /** How its default keeps writes together, for the messages: "sqlite3's default mode". */
  defaultMode: string;
}

const PSYCOPG = /^(psycopg|psycopg2|psycopg_pool)$/;
const OTHER_DBAPI = /^(pymysql|MySQLdb|mysql|mysqlclient|mariadb|cx_Oracle|oracledb|pyodbc|pymssql|ibm_db|ibm_db_dbi|pg8000|snowflake|duckdb|teradatasql|jaydebeapi|fdb|firebirdsql)$/;
const driverCache = new WeakMap<PyModule, Driver>();

/**
 * The driver the module imports: psycopg (2 or 3) or another DB-API driver when it imports one and not
 * sqlite3; else sqlite3 (a connection passed in from elsewhere is judged as the crash harness runs it).
 * psycopg and PEP 249 drivers open a transaction before the first statement of any kind unless autocommit
 * is on, so the sqlite3-only claims (no transaction before DDL, `with conn:` never begins) are not theirs.
 */
export function driverOf(module: PyModule, fn?: PyFunction): Driver {
  const ofClass = fn?.className !== undefined ? classDriver(module, fn) : undefined;
  return ofClass ?? moduleDriver(module);
}

const classDrivers = new WeakMap<PyModule, Map<number, Driver | null>>();

/**
 * The driver a method's class names, when the module holds several (huey's storage.py: SqliteStorage beside
 * PostgresStorage, which calls psycopg.connect): a class that names psycopg or another DB-API driver and not
 * sqlite3 speaks for its methods.
 */
function classDriver(module: PyModule, fn: PyFunction): Driver | undefined {
  let cls = fn.node.parent;
  while (cls && cls.type !== 'class_definition') cls = cls.parent;
  if (!cls) return undefined;
  let known = classDrivers.get(module);
  if (!known) classDrivers.set(module, (known = new Map()));
  let driver = known.get(cls.id);
  if (driver === undefined) {
    const names = new Set([...cls.text.matchAll(/\b([A-Za-z_]\w*)\s*\.\s*connect\s*\(/g)].map((m) => m[1]!));
    const psycopg = [...names].find((n) => PSYCOPG.test(n));
    const other = [...names].find((n) => OTHER_DBAPI.test(n));
    driver = names.has('sqlite3') ? null : psycopg ? psycopgDriver(psycopg) : other ? dbapiDriver(other) : null;
    known.set(cls.id, driver);
  }
  return driver ?? undefined;
}

function psycopgDriver(name: string): Driver {
  return { kind: 'psycopg', name, defaultMode: `${name}'s implicit transaction (autocommit off)` };
}

function dbapiDriver(name: string): Driver {
  return { kind: 'dbapi', name, defaultMode: `the ${name} driver's implicit transaction (autocommit off)` };
}

const SQLITE3: Driver = { kind: 'sqlite3', name: 'sqlite3', defaultMode: "sqlite3's default mode" };

const POSTGRES_MODULE = /^(postgres|postgresql|pg|psycopg|psycopg2|redshift|cockroachdb)$/i;
const MYSQL_MODULE = /^(mysql|mariadb)$/i;
const SQLITE_MODULE = /^(sqlite|sqlite3)$/i;

/**
 * No driver imported, but the module builds on a project module named for its database (yoyo's
 * redshift.py: `from yoyo.backends.core.postgresql import PostgresqlBackend`): that database's
 * driver, not sqlite3, runs its statements.
 */
function backendDriver(module: PyModule): Driver | undefined {
  const segments = module.tree.rootNode.namedChildren
    .filter((s) => s.type === 'import_from_statement')
    .flatMap((s) => (s.childForFieldName('module_name')?.text ?? '').split('.'));
  const postgres = segments.some((segment) => POSTGRES_MODULE.test(segment));
  const mysql = segments.some((segment) => MYSQL_MODULE.test(segment));
  const sqlite = segments.some((segment) => SQLITE_MODULE.test(segment));
  // Named for more than one database (a module serving several backends): no one driver speaks for it.
  if (Number(postgres) + Number(mysql) + Number(sqlite) !== 1) return undefined;
  if (postgres) return { kind: 'psycopg', name: 'PostgreSQL', defaultMode: "the PostgreSQL driver's implicit transaction (autocommit off)" };
  if (mysql) return { kind: 'dbapi', name: 'MySQL', defaultMode: "the MySQL driver's implicit transaction (autocommit off)" };
  return undefined;
}

function moduleDriver(module: PyModule): Driver {
  const known = driverCache.get(module);
  if (known) return known;
  const roots = new Set(
    module.tree.rootNode.namedChildren
      .filter((s) => s.type === 'import_statement' || s.type === 'import_from_statement')
      .flatMap((s) => (s.type === 'import_from_statement' ? [s.childForFieldName('module_name')?.text ?? ''] : s.namedChildren.map((n) => (n.type === 'aliased_import' ? n.childForFieldName('name')?.text ?? '' : n.text))))
      .map((name) => name.split('.')[0]!),
  );
  const psycopg = [...roots].find((r) => PSYCOPG.test(r));
  const other = [...roots].find((r) => OTHER_DBAPI.test(r));
  let driver: Driver;
  if (roots.has('sqlite3')) driver = SQLITE3;
  else if (psycopg) driver = psycopgDriver(psycopg);
  else if (other) driver = dbapiDriver(other);
  else driver = backendDriver(module) ?? SQLITE3;
  driverCache.set(module, driver);
  return driver;
}

/**
 * One DELETE statement run again and again (requests-cache's `bulk_delete`, a chunk of keys per run):
 * a crash between runs leaves some of the rows gone from that one table, and the re-run deletes the
 * rest. Nothing half done across tables, nothing applied twice; several statements keep the finding.
 */
export function oneRepeatedDelete(writes: readonly Effect[]): boolean {
  const [write] = writes;
  return writes.length === 1 && write !== undefined && repeats(write) && write.sql?.kind === 'write' && /^\s*delete\b/i.test(write.sql.text ?? '');
}

