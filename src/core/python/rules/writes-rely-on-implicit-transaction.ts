import { describeWrites, driverOf, inHelperConnectionBlock, setsAutocommitFor, severalWrites, transactionFacts, within } from './facts.ts';
import { defineRule } from './rule.ts';
import { callParts } from '../body-walk.ts';
import { retriesOfOneAttempt } from './retried-attempts.ts';
import { onOwnDefaultModeConnection } from './default-mode-connection.ts';
import { insideWrapperTransaction } from '../wrapper-transaction.ts';
import { insideCallerWrapper } from '../caller-wrapper.ts';

export const writesRelyOnImplicitTransaction = defineRule({
  meta: {
    id: 'writes-rely-on-implicit-transaction',
    description: 'Several writes and no transaction of the function\'s own: they stay together only by sqlite3\'s default mode.',
    category: 'sqlite-transaction',
    severity: 'warning',
    messages: {
      impliedTransaction:
        '{{writes}} and no transaction of their own: only {{defaultMode}} holds them together; in autocommit a crash between them leaves them half done',
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
        // So are a helper's writes in the helper's own `with conn:` block: that block commits them, or saves each at once.
        const writes = facts.dmlWrites.filter((write) => !facts.connectionBlocks.some((block) => within(block, write)) && !inHelperConnectionBlock(write));
        if (!severalWrites(writes, fnNode) || retriesOfOneAttempt(writes)) return;
        // Every write inside `with self.transaction():` of this module's own BEGIN ... COMMIT wrapper has a transaction of its own.
        // Or every call reaching this function runs it inside such a wrapper on the object it passes (caller-wrapper.ts).
        if (writes.every((write) => insideWrapperTransaction(write, context.fn, context.module) || insideCallerWrapper(write, context.fn, context.module))) return;
        const first = writes[0]!;
        const connection = callParts(first.node).receiver?.text;
        const autocommit = connection !== undefined && setsAutocommitFor(connection, facts, first.node);
        // The message's harm needs autocommit: not possible when every write runs on a connection this module opened in the default mode and never switches.
        if (!autocommit && writes.every((write) => onOwnDefaultModeConnection(context, write))) return;
        context.report({
          node: first.node,
          messageId: autocommit ? 'autocommitWrites' : 'impliedTransaction',
          data: { writes: describeWrites(writes), defaultMode: driverOf(context.module, context.fn).defaultMode },
        });
      },
    };
  },
});
