import { describeWrites, driverOf, helperConnectionBlock, oneRepeatedDelete, setsAutocommitFor, severalWrites, transactionFacts, within } from './facts.ts';
import { defineRule } from './rule.ts';
import type { Effect, PyModule } from '../model.ts';
import { directEffects } from '../effects.ts';
import { functionsByQualname } from '../local-resolve.ts';
import { repoIndexOf, resolveCall } from '../callgraph.ts';
import { callParts } from '../body-walk.ts';
import { enclosingLoop, isOwnCode } from './syntax.ts';
import { retriesOfOneAttempt } from './retried-attempts.ts';
import { onOwnDefaultModeConnection } from './default-mode-connection.ts';
import { evidenceClause, underCondition } from './autocommit-evidence.ts';
import { insideWrapperTransaction } from '../wrapper-transaction.ts';
import { insideCallerWrapper } from '../caller-wrapper.ts';
import { readsThroughBuiltSelect } from './built-select.ts';
import { deletesRowsItReads } from './reread-deletes.ts';

export const writesRelyOnImplicitTransaction = defineRule({
  meta: {
    id: 'writes-rely-on-implicit-transaction',
    description: 'Several writes and no transaction of the function\'s own: they stay together only by sqlite3\'s default mode.',
    category: 'sqlite-transaction',
    severity: 'warning',
    messages: {
      impliedTransaction:
        '{{writes}} and no transaction of their own: only {{defaultMode}} holds them together; in autocommit a crash between them leaves them half done{{evidence}}',
      separateSteps:
        '{{writes}} and no transaction of their own, some committed by the helper that makes them (its own `with` block or commit): each such call saves its writes as a step of its own, so a crash between the steps leaves them half done in either mode',
      autocommitWrites:
        '{{writes}} in autocommit mode and no BEGIN: each is saved at once, so a crash between them leaves them half done',
    },
    messageSeverity: { autocommitWrites: 'error' },
    hint: 'Open the transaction before the first write: BEGIN (or SAVEPOINT when a caller\'s transaction is open), and COMMIT or RELEASE after the last.',
  },
  create(context) {
    const fnNode = context.fn.node;
    return {
      'function:exit'() {
        const facts = transactionFacts(context);
        // A function that commits owns the transaction's end: commit-without-begin speaks for it.
        if (facts.opens.length > 0 || facts.commits.length > 0) return;
        // Writes in a `with conn:` block are with-conn-opens-no-transaction's to speak for.
        // A helper's statement of unseen SQL that this function builds from a SELECT and only appends to reads (built-select.ts).
        const builtSelect = new Map<Effect, boolean>();
        const writesSomething = (write: Effect): boolean => {
          let reads = builtSelect.get(write);
          if (reads === undefined) builtSelect.set(write, (reads = readsThroughBuiltSelect(write, context.fn, context.module)));
          return !reads;
        };
        const writes = facts.dmlWrites.filter((write) => !facts.connectionBlocks.some((block) => within(block, write)) && writesSomething(write));
        if (!severalWrites(writes, fnNode) || retriesOfOneAttempt(writes)) return;
        // A helper's own `with conn:` block commits its writes at its end (default mode): all of them in one such
        // block are that block's, for with-conn-opens-no-transaction to speak for in the helper; spread over
        // several blocks, or beside writes of their own, they are steps committed one after another.
        const blockPass = (write: (typeof writes)[number]): string | undefined => {
          const block = helperConnectionBlock(write, repoIndexOf(context.module)) ?? (committedByItsCall(write, context.effects) || committedByItsInnerHelper(write, context.module) ? write.node : undefined);
          return block && `${write.node.id}:${block.id}`;
        };
        const passes = writes.map(blockPass);
        const repeatedPass = writes.some((write, i) => passes[i] !== undefined && enclosingLoop(write.node, fnNode) !== undefined);
        if (!repeatedPass && passes.every((pass) => pass !== undefined && pass === passes[0])) return;
        // Steps: a write after a helper block's pass that is not in that pass (the block committed what came before it,
        // in the default mode too), or one block passed again in a loop. A write of the caller before one block's pass
        // is committed with it, and default-mode reasoning holds.
        const separateSteps = repeatedPass || passes.some((pass, i) => pass !== undefined && passes.slice(i + 1).some((later) => later !== pass));
        // One DELETE a helper commits per item (lollypop's remove_uri per uri): the re-run deletes the rest.
        if (separateSteps && oneRepeatedDelete(writes)) return;
        // Every write inside `with self.transaction():` of this module's own BEGIN ... COMMIT wrapper has a transaction of its own.
        // Or every call reaching this function runs it inside such a wrapper on the object it passes (caller-wrapper.ts).
        if (writes.every((write) => insideWrapperTransaction(write, context.fn, context.module) || insideCallerWrapper(write, context.fn, context.module))) return;
        // The function's one write is a DELETE per row of a loop over its own read of that table: the re-run's read finds the rest (reread-deletes.ts).
        const everyWrite = [...facts.dmlWrites, ...facts.ddl, ...facts.scripts].filter(writesSomething);
        if (deletesRowsItReads(everyWrite, context.effects, context.fn, context.module)) return;
        const first = writes[0]!;
        const connection = callParts(first.node).receiver?.text;
        const autocommit = connection !== undefined && setsAutocommitFor(connection, facts, first.node);
        // The message's harm needs autocommit: not possible when every write runs on a connection this module (or, scanned with its repository, the repository) opened in the default mode and never switches.
        if (!separateSteps && !autocommit && writes.every((write) => onOwnDefaultModeConnection(context, write))) return;
        context.report({
          node: first.node,
          messageId: separateSteps ? 'separateSteps' : autocommit ? 'autocommitWrites' : 'impliedTransaction',
          data: { writes: describeWrites(writes), defaultMode: driverOf(context.module, context.fn).defaultMode, evidence: evidenceClause(context.module, context.fn, first) },
        });
      },
    };
  },
});

/**
 * A write made through a helper call that also commits after it (a `db.execute(sql)` wrapper ending in
 * `conn.commit()`): that call saves the write as a step of its own, in any mode.
 */
function committedByItsCall(write: Effect, effects: readonly Effect[]): boolean {
  if (!write.via || !write.viaNode) return false;
  const inner = write.viaNode;
  return effects.some((effect) => effect.kind === 'db-commit' && effect.node.id === write.node.id && effect.via?.qualname === write.via!.qualname && effect.via.path === write.via!.path && effect.viaNode !== undefined && effect.viaNode.startIndex > inner.startIndex);
}

/**
 * Two calls down (`self.__check_index()` calling `self.executemany(sql, rows)`, which ends in `con.commit()`): the
 * effects carry the helper's write but not a commit made a further call down, so the call the write is made by is
 * read here: a repository function that commits after its own write (hamster's Storage.executemany). Its callers'
 * call is then a step of its own, as for committedByItsCall. The commit must run on every call that wrote: not
 * under an `if`, a conditional, `and`/`or` or a handler (`if commit: self.con.commit()`, `if not self.batching:`),
 * nor after a `return` or `raise` of the function's own that may leave before it.
 */
function committedByItsInnerHelper(write: Effect, module: PyModule): boolean {
  if (!write.via || !write.viaNode || write.viaNode.type !== 'call') return false;
  const index = repoIndexOf(module);
  const helperModule = write.via.path === module.path ? module : index?.modules.get(write.via.path);
  const helper = helperModule && functionsByQualname(helperModule).get(write.via.qualname);
  if (!index || !helperModule || !helper) return false;
  const resolved = resolveCall(index, write.via.path, write.viaNode, helper);
  if (resolved.resolution !== 'exact' || resolved.targets.length !== 1) return false;
  const [target] = resolved.targets;
  const targetModule = index.modules.get(target!.path);
  const callee = targetModule && functionsByQualname(targetModule).get(target!.qualname);
  if (!targetModule || !callee) return false;
  const own = directEffects(callee, targetModule);
  const firstWrite = own.find((effect) => effect.kind === 'db-write' && effect.via === undefined);
  if (firstWrite === undefined) return false;
  const exits = callee.node.descendantsOfType(['return_statement', 'raise_statement']).filter((exit) => isOwnCode(exit, callee.node));
  return own.some(
    (effect) =>
      effect.kind === 'db-commit' && effect.via === undefined && effect.node.startIndex > firstWrite.node.startIndex &&
      isOwnCode(effect.node, callee.node) && !underCondition(effect.node, callee.node) &&
      !exits.some((exit) => exit.startIndex < effect.node.startIndex),
  );
}
