import { describeWrites, driverOf, oneRepeatedDelete, onlyRerunSafeDdl, pendingWritesBefore, setsAutocommitFor, severalWrites, transactionFacts } from './facts.ts';
import { defineRule } from './rule.ts';
import { callParts } from '../body-walk.ts';
import { commitOnOwnDefaultModeConnection } from './default-mode-connection.ts';
import { evidenceClause } from './autocommit-evidence.ts';
import { commitSkippedInCallerBatch } from './caller-batch.ts';

export const commitWithoutBegin = defineRule({
  meta: {
    id: 'commit-without-begin',
    description: 'The function calls commit(), so it owns the end of the transaction, but never opens it (no BEGIN or SAVEPOINT).',
    category: 'sqlite-transaction',
    severity: 'warning',
    messages: {
      commitWithoutBegin:
        'commit() ends a transaction this function never began: its {{writes}} are held together only by {{defaultMode}}; in autocommit a crash between them leaves them half done{{evidence}}',
      commitInAutocommit:
        'commit() after switching to autocommit commits nothing: its {{writes}} were each saved at once, so a crash between them leaves them half done',
    },
    messageSeverity: { commitInAutocommit: 'error' },
    hint: 'Begin what you commit: BEGIN before the first write (SAVEPOINT/RELEASE when a caller\'s transaction may be open).',
  },
  create(context) {
    const fnNode = context.fn.node;
    return {
      'function:exit'() {
        const facts = transactionFacts(context);
        if (facts.opens.length > 0) return;
        for (const commit of facts.commits) {
          const committed = pendingWritesBefore(context, context.effects.indexOf(commit));
          if (!severalWrites(committed, fnNode) || onlyRerunSafeDdl(committed) || oneRepeatedDelete(committed)) continue;
          const connection = callParts(commit.node).receiver?.text;
          const autocommit = connection !== undefined && setsAutocommitFor(connection, facts, commit.node);
          // The message's harm needs autocommit: not possible when the commit and the writes run on a connection this module (or, scanned with its repository, the repository) opened in the default mode and never switches.
          if (!autocommit && commitOnOwnDefaultModeConnection(context, commit, committed)) continue;
          // The helper commits only outside a batch flag that every path here sets (caller-batch.ts): this commit ends nothing.
          if (!autocommit && commitSkippedInCallerBatch(context, commit, committed)) continue;
          context.report({
            node: commit.node,
            messageId: autocommit ? 'commitInAutocommit' : 'commitWithoutBegin',
            data: { writes: describeWrites(committed), defaultMode: driverOf(context.module, context.fn).defaultMode, evidence: evidenceClause(context.module, context.fn, commit) },
          });
          return;
        }
      },
    };
  },
});
