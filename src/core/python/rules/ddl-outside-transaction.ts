import { driverOf, knownWrite, pendingWritesBefore, rerunSafeDdl, transactionFacts } from './facts.ts';
import { defineRule } from './rule.ts';
import { mutuallyExclusive } from './syntax.ts';
import type { Effect, SyntaxNode } from '../model.ts';
import { insideWrapperTransaction } from '../wrapper-transaction.ts';
import { insideCallerWrapper } from '../caller-wrapper.ts';
import { schemaGuardedDdl } from './schema-guarded-ddl.ts';
import { dropsListedTable, noRowsCarriedOver } from './listed-table-drop.ts';
import { failureSwallowedDdl } from './failure-swallowed-ddl.ts';
import { dropRebuiltOnReopen } from './reopen-rebuild.ts';
import { guardRegionCallsKnown, laterWritesIndependentOfGuard } from './guard-region.ts';

export const ddlOutsideTransaction = defineRule({
  meta: {
    id: 'ddl-outside-transaction',
    description: 'ALTER/CREATE/DROP next to other writes with no explicit BEGIN: sqlite3 opens no transaction before DDL.',
    category: 'sqlite-transaction',
    severity: 'warning',
    messages: {
      ddlNoTransaction:
        '{{statement}} runs in no transaction (sqlite3 opens none before DDL): a crash after it leaves the schema changed and the other writes undone, and a re-run trips on it',
      ddlCommitsAround:
        '{{statement}} is not part of the writes\' transaction ({{driver}}: the database commits around DDL, as MySQL and Oracle do): a crash after it leaves the schema changed and the other writes undone, and a re-run trips on it',
    },
    hint: 'Run BEGIN before the schema change so it commits together with the writes that go with it (SQLite DDL is transactional).',
  },
  create(context) {
    const fnNode = context.fn.node;
    return {
      'function:exit'() {
        const driver = driverOf(context.module, context.fn);
        // PostgreSQL's DDL is transactional and psycopg's implicit transaction holds it with the writes.
        if (driver.kind === 'psycopg') return;
        const facts = transactionFacts(context);
        const { effects } = context;
        // Schema changes only, each one a re-run completes (IF NOT EXISTS, as commit-without-begin takes it, or guarded
        // by a read of the schema it changes): a crash leaves some done, the re-run does the rest, no data write is lost.
        const rerunCompletes = (effect: Effect): boolean => rerunSafeDdl(effect.sql?.text ?? '') || schemaGuardedDdl(effect, context.fn, context.module);
        if (facts.dmlWrites.length === 0 && facts.scripts.length === 0 && facts.ddl.every(rerunCompletes)) return;
        const guarded = (effect: Effect): boolean => schemaGuardedDdl(effect, context.fn, context.module);
        const ddl = facts.ddl.find(
          (effect) =>
            // IF [NOT] EXISTS and TEMP objects: a re-run after a crash simply goes on.
            !rerunSafeDdl(effect.sql?.text ?? '') &&
            // DROP TABLE of each table just listed from sqlite_master: the re-run lists again and drops only what is left;
            // and no row read before the drops is written back after them (a crash would lose it).
            !(dropsListedTable(effect, context.fn, context.module) && noRowsCarriedOver(effect, effects)) &&
            // The same drops in a rebuild this function calls only as the opener does, on the marker row's absence,
            // reading nothing but for those tests: the re-run calls the rebuild again (reopen-rebuild.ts).
            !dropRebuiltOnReopen(effect, effects, context.fn, context.module) &&
            // `try: <the DDL> except: pass`: applied again it fails, and the failure is ignored, as IF NOT EXISTS would.
            !failureSwallowedDdl(effect, effects, fnNode) &&
            // Guarded by a read of the schema it changes, every later write outside that guard and no call in the guard
            // left unfollowed: the re-run skips the DDL and still makes the writes (gPodder's minidb: save() registers
            // the class, then inserts), and none under a test computed from the schema read or the helper's result
            // (`if created: seed`), which the re-run sees the other way.
            !(
              guarded(effect) &&
              laterWritesOutsideGuard(effect, effects, fnNode, guarded) &&
              guardRegionCallsKnown(effect, effects, context.fn, context.module) &&
              laterWritesIndependentOfGuard(effect, effects, context.fn, guarded)
            ) &&
            // `if name not in columns: add_column(name)`: the same guard, written in Python.
            !guardedByMissingCheck(effect.node, fnNode) &&
            !facts.opens.some((open) => open.node.startIndex <= effect.node.startIndex) &&
            // `with self.transaction():` of this module's own BEGIN ... COMMIT wrapper.
            !insideWrapperTransaction(effect, context.fn, context.module) &&
            // Every call reaching this function passes its connection object inside that object's wrapper (yoyo's v2.upgrade).
            !insideCallerWrapper(effect, context.fn, context.module) &&
            // After an uncommitted INSERT/UPDATE/DELETE the default mode's implicit transaction holds the DDL too.
            !pendingWritesBefore(context, effects.indexOf(effect)).some((write) => write.kind === 'db-write'),
        );
        if (!ddl) return;
        const laterWrites = effects
          .slice(effects.indexOf(ddl) + 1)
          .filter((effect) => effect.kind.startsWith('db-') && knownWrite(effect) && !mutuallyExclusive(ddl.node, effect.node, fnNode));
        // The DDL as the last write leaves nothing undone behind it.
        if (laterWrites.length === 0 && !ddl.inLoop) return;
        const statement = statementHead(ddl.sql?.text ?? 'DDL');
        if (driver.kind === 'dbapi') context.report({ node: ddl.node, messageId: 'ddlCommitsAround', data: { statement, driver: driver.name } });
        else context.report({ node: ddl.node, messageId: 'ddlNoTransaction', data: { statement } });
      },
    };
  },
});

const GUARDS = new Set(['if_statement', 'for_statement', 'while_statement']);

/**
 * No database write after the guarded DDL can be skipped with it by the guard: in this function, none sits in an
 * if/for/while around the DDL; through a helper, none comes through the same call of it (the helper's guard may hold it).
 * Other guarded DDL does not count: the re-run is meant to skip it too.
 */
function laterWritesOutsideGuard(ddl: Effect, effects: readonly Effect[], fnNode: SyntaxNode, guarded: (effect: Effect) => boolean): boolean {
  const at = effects.indexOf(ddl);
  if (at < 0) return false;
  const later = effects
    .slice(at + 1)
    .filter((effect) => ['db-write', 'db-ddl', 'db-script'].includes(effect.kind) && !(effect.kind === 'db-ddl' && guarded(effect)));
  if (ddl.via) return later.every((effect) => effect.node.id !== ddl.node.id);
  const guards: SyntaxNode[] = [];
  for (let node = ddl.node.parent; node && node.id !== fnNode.id; node = node.parent) if (GUARDS.has(node.type)) guards.push(node);
  return later.every((effect) => !guards.some((guard) => guard.startIndex <= effect.node.startIndex && effect.node.endIndex <= guard.endIndex));
}

/** `ALTER TABLE orders`: the first three words before any parenthesis, keywords upper-cased, placeholders kept. */
function statementHead(sql: string): string {
  const words = sql.trim().split('(')[0]!.trim().split(/\s+/).slice(0, 3);
  return words.map((word, index) => (index < 2 ? word.toUpperCase() : word)).join(' ');
}

/**
 * The schema change runs only under `if x not in y:` where `x` names an argument of the call
 * (sqlite-utils: `if col_name.lower() not in current_columns: self.add_column(col_name, ...)`):
 * a re-run after a crash finds the column and skips it, as `IF NOT EXISTS` would.
 */
function guardedByMissingCheck(call: SyntaxNode, fnNode: SyntaxNode): boolean {
  const argumentNames = new Set((call.childForFieldName('arguments')?.namedChildren ?? []).filter((a) => a.type === 'identifier').map((a) => a.text));
  if (argumentNames.size === 0) return false;
  for (let at = call.parent; at && at.id !== fnNode.id; at = at.parent) {
    if (at.type !== 'block' || at.parent?.type !== 'if_statement' || at.parent.childForFieldName('consequence')?.id !== at.id) continue;
    const condition = at.parent.childForFieldName('condition');
    if (condition?.type !== 'comparison_operator' || !condition.children.some((c) => c.type === 'not in')) continue;
    const tested = condition.namedChildren[0];
    const names = tested ? [tested, ...tested.descendantsOfType('identifier')].filter((n) => n.type === 'identifier').map((n) => n.text) : [];
    if (names.some((name) => argumentNames.has(name))) return true;
  }
  return false;
}
