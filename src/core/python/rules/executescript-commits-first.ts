import type { Effect } from '../model.ts';
import { statementKind } from '../sql.ts';
import { knownWrite, pendingWritesBefore, rerunSafeDdl, scriptStatements, transactionFacts } from './facts.ts';
import { defineRule } from './rule.ts';
import { mutuallyExclusive } from './syntax.ts';
import { failedBeforeHandler } from './failed-tail-write.ts';
import { scriptRebuiltOnReopen } from './reopen-rebuild.ts';

export const executescriptCommitsFirst = defineRule({
  meta: {
    id: 'executescript-commits-first',
    description: 'executescript() commits any pending transaction before it runs, and runs its own statements in none unless the script says BEGIN.',
    category: 'sqlite-transaction',
    severity: 'warning',
    messages: {
      pendingWritesCommitted:
        'executescript() first commits the {{count}} pending writes before it: the transaction ends here, so a crash in the script keeps them',
      openTransactionCommitted:
        'executescript() first commits the transaction opened by BEGIN before it: the writes after it are no longer covered',
      scriptWithoutBegin:
        'the script runs {{count}} writes without BEGIN ... COMMIT: each is saved on its own, so a crash mid-script leaves it half applied',
    },
    hint: 'Put BEGIN; ... COMMIT; inside the script and run it before (or instead of) separate execute() writes; never mix it into an open transaction.',
  },
  create(context) {
    const fnNode = context.fn.node;
    return {
      'function:exit'() {
        const facts = transactionFacts(context);
        for (const script of facts.scripts) {
          const index = context.effects.indexOf(script);
          // A write that ends the try body of the handler holding the script has failed or not run when the handler runs.
          const written = pendingWritesBefore(context, index).filter((write) => !failedBeforeHandler(write, script.node, context.fn, context.module));
          const pending = heldByTransaction(written, context.effects).filter(
            (write) => knownWrite(write) && !mutuallyExclusive(write.node, script.node, fnNode),
          );
          if (pending.length > 0) {
            context.report({ node: script.node, messageId: 'pendingWritesCommitted', data: { count: pending.length } });
            continue;
          }
          // Ending an open transaction matters only when writes come after it, in the script or later.
          const statements = scriptStatements(script);
          const scriptWrites = statements.some((statement) => ['write', 'ddl'].includes(statementKind(statement)));
          const writesFollow = scriptWrites || context.effects.slice(index + 1).some(knownWrite);
          if (writesFollow && openTransactionBefore(context.effects, index)) {
            context.report({ node: script.node, messageId: 'openTransactionCommitted' });
            continue;
          }
          if (statements.some((statement) => ['begin', 'savepoint'].includes(statementKind(statement)))) continue;
          // IF [NOT] EXISTS schema statements re-run harmlessly; only the others can be half applied.
          const writes = statements.filter((statement) => {
            const kind = statementKind(statement);
            return kind === 'write' || (kind === 'ddl' && !rerunSafeDdl(statement));
          });
          if (writes.length < 2) continue;
          // Dropping every listed table first, then run again by the opener whenever the marker row it inserts last
          // is absent: a crash's prefix of the script is dropped and made again at the next open (reopen-rebuild.ts).
          if (scriptRebuiltOnReopen(script, context.effects, context.fn, context.module)) continue;
          context.report({ node: script.node, messageId: 'scriptWithoutBegin', data: { count: writes.length } });
        }
      },
    };
  },
});

/**
 * The pending writes a transaction really holds. sqlite3 opens no transaction before DDL (Python 3.6+; older versions
 * committed before it), so CREATE/ALTER/DROP with no INSERT/UPDATE/DELETE (or unresolved SQL) before it and no BEGIN
 * open was saved on its own, and there is nothing of it for the script to commit (zim's DROP TABLEs before its
 * schema script). With Python 3.12's `autocommit=False` a transaction is always open, but executescript then commits
 * nothing first either. DDL after such a write joins its transaction and is kept.
 */
function heldByTransaction(pending: readonly Effect[], effects: readonly Effect[]): Effect[] {
  let dmlBefore = false;
  return pending.filter((write) => {
    if (write.kind === 'db-write') dmlBefore = true;
    return write.kind !== 'db-ddl' || dmlBefore || openTransactionBefore(effects, effects.indexOf(write));
  });
}

/** A BEGIN or SAVEPOINT before `index` that no commit or rollback has closed. */
function openTransactionBefore(effects: readonly { kind: string }[], index: number): boolean {
  let open = false;
  for (let i = 0; i < index; i++) {
    const kind = effects[i]!.kind;
    if (kind === 'db-begin') open = true;
    else if (kind === 'db-commit' || kind === 'db-rollback' || kind === 'db-script') open = false;
  }
  return open;
}
