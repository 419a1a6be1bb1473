// What the sqlite rules ask about one function's effects: which calls write,
// which open, commit or roll back a transaction, whether the function puts
// its connection into autocommit itself, and whether two writes can both run.
// Computed once per function and shared by the rules.
import type { Effect, SyntaxNode, TxStyleResult } from '../model.ts';
import type { RuleContext } from './rule.ts';
import { splitSqlStatements, statementKind } from '../sql.ts';
import { callParts, walkFunctionBody } from '../body-walk.ts';
import { contains, enclosingExceptClauses, mutuallyExclusive } from './syntax.ts';

export interface TransactionFacts {
  /** DML writes (INSERT/UPDATE/DELETE/REPLACE) and SQL that could not be resolved, which may write. */
  dmlWrites: Effect[];
  /** Schema changes; PRAGMAs left out: they set the connection, and journal_mode cannot even run in a transaction. */
  ddl: Effect[];
  scripts: Effect[];
  /** BEGIN, SAVEPOINT, or a script that begins: the function opens its own transaction. */
  opens: Effect[];
  commits: Effect[];
  rollbacks: Effect[];
  /** Where the function puts a connection into autocommit (`isolation_level = None`, `autocommit=True`). */
  autocommitNodes: SyntaxNode[];
}

const cache = new WeakMap<readonly Effect[], TransactionFacts>();

export function transactionFacts(context: Pick<RuleContext, 'effects' | 'fn'>): TransactionFacts {
  let facts = cache.get(context.effects);
  if (!facts) {
    facts = computeFacts(context.effects, context.fn.node);
    cache.set(context.effects, facts);
  }
  return facts;
}

function computeFacts(effects: readonly Effect[], fnNode: SyntaxNode): TransactionFacts {
  return {
    dmlWrites: effects.filter((effect) => effect.kind === 'db-write'),
    ddl: effects.filter((effect) => effect.kind === 'db-ddl' && effect.sql?.kind === 'ddl'),
    scripts: effects.filter((effect) => effect.kind === 'db-script'),
    opens: effects.filter((effect) => effect.kind === 'db-begin' || (effect.kind === 'db-script' && scriptBegins(effect))),
    commits: effects.filter((effect) => effect.kind === 'db-commit'),
    rollbacks: effects.filter((effect) => effect.kind === 'db-rollback'),
    autocommitNodes: autocommitSettings(fnNode),
  };
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

/** `executemany`, or a call in a loop: one effect that happens many times. */
export function repeats(effect: Effect): boolean {
  return effect.inLoop || effect.call.endsWith('.executemany');
}

/**
 * True when the effects amount to more than one write that can run in one
 * pass (so a crash can fall between them), and at least one is known to
 * write: unresolved SQL alone is too weak a reason to speak.
 */
export function severalWrites(writes: readonly Effect[], fnNode: SyntaxNode): boolean {
  if (!writes.some(knownWrite)) return false;
  if (writes.some(repeats)) return true;
  for (let i = 0; i < writes.length; i++) {
    for (let j = i + 1; j < writes.length; j++) {
      if (!mutuallyExclusive(writes[i]!.node, writes[j]!.node, fnNode)) return true;
    }
  }
  return false;
}

/** `3 writes`, or `2 writes, some repeated in a loop`: how a message names what a crash can split. */
export function describeWrites(writes: readonly Effect[]): string {
  const count = `${writes.length} ${writes.length === 1 ? 'write' : 'writes'}`;
  return writes.some(repeats) ? `${count}, repeated in a loop,` : count;
}

/** The `with` item of `withStatement` that the transaction-style detector judged a connection. */
export function connectionItem(withStatement: SyntaxNode, txStyle: TxStyleResult): SyntaxNode | undefined {
  const lines = new Set(txStyle.evidence.filter((found) => found.pattern === 'with-conn' || found.pattern === 'with-connect-as').map((found) => found.line));
  return withStatement
    .descendantsOfType('with_item')
    .find((item) => item.parent?.parent?.id === withStatement.id && lines.has(item.startPosition.row + 1));
}

export function within(container: SyntaxNode, effect: Effect): boolean {
  return contains(container, effect.node);
}

/** `x.isolation_level = None`, `x.autocommit = True`, `connect(..., isolation_level=None | autocommit=True)`. */
function autocommitSettings(fnNode: SyntaxNode): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  walkFunctionBody(fnNode, (node) => {
    if (node.type === 'assignment') {
      const left = node.childForFieldName('left');
      const attribute = left?.type === 'attribute' ? left.childForFieldName('attribute')?.text : undefined;
      const right = node.childForFieldName('right')?.text;
      if ((attribute === 'isolation_level' && right === 'None') || (attribute === 'autocommit' && right === 'True')) found.push(node);
    } else if (node.type === 'call' && connectsInAutocommit(node)) {
      found.push(node);
    }
  });
  return found;
}

/** `CREATE ... IF NOT EXISTS`, `DROP ... IF EXISTS` and TEMP objects: a re-run after a crash finds nothing to trip on. */
export function rerunSafeDdl(statement: string): boolean {
  return /\bif\s+(not\s+)?exists\b/i.test(statement) || /^\s*create\s+(temp|temporary)\b/i.test(statement);
}

/** Writes not yet committed when `before` runs: after the last commit or rollback that precedes it. */
export function pendingWritesBefore(effects: readonly Effect[], before: number): Effect[] {
  let pending: Effect[] = [];
  for (let index = 0; index < before; index++) {
    const effect = effects[index]!;
    if (effect.kind === 'db-commit' || effect.kind === 'db-rollback' || effect.kind === 'db-script') pending = [];
    else if (effect.kind === 'db-write' || (effect.kind === 'db-ddl' && effect.sql?.kind === 'ddl')) pending.push(effect);
  }
  return pending;
}

export type RecordAfter = { kind: 'write'; effect: Effect } | { kind: 'commit'; effect: Effect };

/**
 * How the database records, after effect `index`, what that effect did: a
 * later write that is known to write, or else a later commit that saves
 * writes made before it. Writes on an error path (an except clause that the
 * effect is not in) and writes in another branch do not count: they record a
 * failure, or a different case.
 */
export function recordAfter(effects: readonly Effect[], index: number, fnNode: SyntaxNode): RecordAfter | undefined {
  const subject = effects[index]!;
  const onSamePath = (later: Effect): boolean =>
    later.node.startIndex >= subject.node.startIndex &&
    !mutuallyExclusive(subject.node, later.node, fnNode) &&
    !onErrorPathOnly(later.node, subject.node, fnNode);
  const later = effects.slice(index + 1).filter(onSamePath);
  const write = later.find((effect) => effect.kind === 'db-write' && effect.sql?.kind === 'write');
  if (write) return { kind: 'write', effect: write };
  const commit = later.find((effect) => effect.kind === 'db-commit');
  if (commit && pendingWritesBefore(effects, index).some(knownWrite)) return { kind: 'commit', effect: commit };
  return undefined;
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
