import type { Effect, SyntaxNode } from '../model.ts';
import { knownWrite, transactionFacts, within } from './facts.ts';
import { defineRule } from './rule.ts';
import { compactText, contains, enclosingLoop, statementOf } from './syntax.ts';
import { callParts } from '../body-walk.ts';
import { loopsOverOneRow } from './single-row-loop.ts';
import { commitSkippedInCallerBatch } from './caller-batch.ts';

const LEAVES_LOOP = new Set(['break_statement', 'return_statement', 'raise_statement']);

export const commitInLoop = defineRule({
  meta: {
    id: 'commit-in-loop',
    description: 'commit() inside a for/while loop makes each iteration its own transaction.',
    category: 'sqlite-transaction',
    severity: 'warning',
    messages: {
      commitInLoop:
        'commit() inside a loop: each iteration is its own transaction, so a crash keeps the earlier iterations and a re-run repeats them',
      commitPerItemResumable:
        'commit() per item in a loop whose re-run skips finished items: check that each item and its progress mark commit together',
    },
    messageSeverity: { commitPerItemResumable: 'info' },
    hint: 'Commit once after the loop, or record each item as done in the same transaction as its writes so a re-run skips it.',
  },
  create(context) {
    const fnNode = context.fn.node;
    return {
      'function:exit'() {
        const facts = transactionFacts(context);
        const writes = [...facts.dmlWrites, ...facts.ddl, ...facts.scripts];
        // RELEASE of a savepoint inside a loop only closes the nested unit; the outer transaction still holds.
        for (const commit of facts.commits.filter((effect) => effect.sql === undefined || effect.sql.kind === 'commit')) {
          const loop = enclosingLoop(commit.node, fnNode);
          if (!loop || leavesLoopAfter(commit.node, loop)) continue;
          if (nestedManagerBlock(commit, loop, facts.opens)) continue;
          // Over a LIMIT 1 query's rows, in no outer loop: at most one iteration, so no earlier ones for a crash to keep.
          if (loopsOverOneRow(loop, context.effects) && !enclosingLoop(loop.parent ?? loop, fnNode)) continue;
          const body = loopBody(loop);
          const writesInLoop = writes.filter((write) => within(body, write));
          if (!writesInLoop.some(knownWrite)) continue;
          // Only DELETEs (diskcache's cull/clear/expire, in batches): a crash keeps the rows already gone and a
          // re-run deletes what is left; nothing half done, nothing repeated.
          if (writesInLoop.some(knownWrite) && writesInLoop.every(deletesOnly)) continue;
          // The helper commits only outside a batch flag, and every path here runs inside such a batch (caller-batch.ts):
          // this commit does not run, and the iterations are held by the batch's one transaction.
          if (commitSkippedInCallerBatch(context, commit, writesInLoop)) continue;
          const resumable = rerunSkipsFinishedItems(loop, writesInLoop, context.effects);
          // The question commitPerItemResumable asks, answered for one shape: each iteration begins a transaction,
          // writes and commits on that one connection, and nothing in between can leave the iteration early or
          // swallow an error. Each item then commits whole; a crash rolls back only the item in progress.
          if (resumable && itemCommitsWhole(commit, body, writesInLoop, facts.opens, context.effects)) continue;
          context.report({ node: commit.node, messageId: resumable ? 'commitPerItemResumable' : 'commitInLoop' });
        }
      },
    };
  },
});

const LEAVES_ITERATION = ['continue_statement', 'break_statement', 'return_statement'];

/**
 * `BEGIN`, the loop's writes, then the commit: the BEGIN and the commit statements of the loop body itself,
 * every write after the BEGIN and before the commit, all on one receiver as written, none in a helper, and no
 * continue, break, return or try with a handler between the BEGIN and the commit.
 */
function itemCommitsWhole(commit: Effect, body: SyntaxNode, writesInLoop: readonly Effect[], opens: readonly Effect[], effects: readonly Effect[]): boolean {
  const receiver = receiverText(commit);
  if (receiver === undefined || commit.via || statementOf(commit.node).parent?.id !== body.id) return false;
  const at = effects.indexOf(commit);
  return opens.some((open) => {
    const begun = effects.indexOf(open);
    if (open.via || receiverText(open) !== receiver || statementOf(open.node).parent?.id !== body.id) return false;
    const between = body.namedChildren.filter((statement) => statement.startIndex > open.node.endIndex && statement.endIndex < commit.node.startIndex);
    const escapes = between.some((statement) => [statement, ...statement.descendantsOfType([...LEAVES_ITERATION, 'except_clause'])].some((node) => LEAVES_ITERATION.includes(node.type) || node.type === 'except_clause'));
    return !escapes && writesInLoop.every((write) => !write.via && receiverText(write) === receiver && begun < effects.indexOf(write) && effects.indexOf(write) < at);
  });
}

function receiverText(effect: Effect): string | undefined {
  const receiver = callParts(effect.node).receiver;
  return receiver ? compactText(receiver) : undefined;
}

/** A DELETE, or unresolved SQL whose rows are fetched (`sql(select, args).fetchall()`): a query, not a write. */
function deletesOnly(write: Effect): boolean {
  if (write.sql?.kind === 'unknown') return FETCHES.has(write.node.parent?.type === 'attribute' ? write.node.parent.childForFieldName('attribute')?.text ?? '' : '');
  return write.sql?.kind === 'write' && /^\s*delete\b/i.test(write.sql.text ?? '');
}

const FETCHES = new Set(['fetchall', 'fetchone', 'fetchmany']);

/**
 * `with db.atomic():` around the loop and `atomic()` again per item (sqlite-utils' `_convert_multi`
 * calling `update()`): a transaction manager entered while its outer block is open makes a savepoint,
 * and the item's "commit" only releases it; the outer block still holds the loop together.
 */
function nestedManagerBlock(commit: Effect, loop: SyntaxNode, opens: readonly Effect[]): boolean {
  if (commit.sql !== undefined || !MANAGER_CALL.test(commit.call)) return false;
  return opens.some((open) => {
    if (open.sql !== undefined || !MANAGER_CALL.test(open.call) || open.node.startIndex >= loop.startIndex) return false;
    const block = enclosingWith(open.node);
    return block !== undefined && contains(block, loop);
  });
}

const MANAGER_CALL = /\.(atomic|transaction)$/;

function enclosingWith(node: SyntaxNode): SyntaxNode | undefined {
  let at = node.parent;
  while (at && at.type !== 'with_statement') at = at.parent;
  return at ?? undefined;
}

function loopBody(loop: SyntaxNode): SyntaxNode {
  return loop.childForFieldName('body') ?? loop;
}

/** A retry loop commits once: a break, return or raise follows the commit in the same iteration. */
function leavesLoopAfter(node: SyntaxNode, loop: SyntaxNode): boolean {
  for (let statement = statementOf(node); statement.id !== loop.id; statement = statementOf(statement.parent!)) {
    for (let next = statement.nextNamedSibling; next; next = next.nextNamedSibling) {
      if (LEAVES_LOOP.has(next.type)) return true;
    }
    if (!statement.parent || statement.parent.id === loopBody(loop).id || !statement.parent.parent) break;
  }
  return false;
}

/**
 * The loop is resumable when every item's writes are idempotent, or when a
 * filtered read that drives or guards the loop (`WHERE status = 'pending'`,
 * `SELECT 1 ... WHERE id = ?`) names a table the loop writes: the write is
 * then the item's progress mark.
 */
function rerunSkipsFinishedItems(loop: SyntaxNode, writesInLoop: readonly Effect[], effects: readonly Effect[]): boolean {
  const dml = writesInLoop.filter((write) => write.sql?.kind === 'write');
  if (dml.length > 0 && dml.every((write) => /\bor\s+(ignore|replace)\b|\bon\s+conflict\b|^\s*replace\b/i.test(write.sql?.text ?? ''))) return true;
  const writtenTables = new Set(dml.flatMap((write) => write.sql?.tables ?? []));
  const guards = effects.filter(
    (effect) => effect.kind === 'db-read' && /\bwhere\b/i.test(effect.sql?.text ?? '') && drivesOrGuards(effect.node, loop),
  );
  return guards.some((read) => (read.sql?.tables ?? []).some((table) => writtenTables.has(table)));
}

/** In the loop (header or body), or before it and feeding the name the loop iterates. */
function drivesOrGuards(read: SyntaxNode, loop: SyntaxNode): boolean {
  if (contains(loop, read)) return true;
  if (read.startIndex > loop.startIndex) return false;
  const iterated = loop.childForFieldName('right') ?? loop.childForFieldName('condition');
  const names = new Set(iterated?.descendantsOfType('identifier').map((identifier) => identifier.text) ?? []);
  if (iterated?.type === 'identifier') names.add(iterated.text);
  const statement = statementOf(read);
  const assignment = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
  const assigned = assignment?.type === 'assignment' ? assignment.childForFieldName('left')?.text : undefined;
  const receiver = read.childForFieldName('function')?.childForFieldName('object')?.text;
  return (assigned !== undefined && names.has(assigned)) || (receiver !== undefined && names.has(receiver));
}
