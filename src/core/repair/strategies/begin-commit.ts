// The smallest transaction repair: the lines that open the transaction, in the
// code's own style and connection name, and nothing re-indented. BEGIN goes just
// before the first write of each unit of work (only when no transaction is open,
// so the function still joins a caller's, as sqlite3's default mode would); the
// unit's own commit() stays. A loop that committed per item commits once after
// the loop, or, for a job built to resume, begins per item. `with conn:` gets
// BEGIN as its first statement. An error before commit() leaves the transaction
// open exactly as the default mode does (no ROLLBACK is added: that would need a
// new `try` and a re-indented body; the helper-class fallback has one).
//
// When this shape does not fit (a cursor with no connection in sight, a unit
// that starts inside a nested block), the strategy returns nothing and the
// helper-class repair (own-transaction.ts) is the fallback candidate.
import { callParts } from '../../python/body-walk.ts';
import { findEffects } from '../../python/effects.ts';
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../../python/model.ts';
import { applyEdits, descendantsOfType, indentOf, indentUnit, lineEnd, lineStart, type TextEdit } from '../source-edit.ts';
import { commitReceiver, statementsOf, type RepairStrategy } from './strategy.ts';

const LOOPS = ['for_statement', 'while_statement'];
const WRITES = new Set<Effect['kind']>(['db-write', 'db-ddl']);

export const beginCommit: RepairStrategy = {
  id: 'begin-commit',
  answers: ['writes-rely-on-implicit-transaction', 'with-conn-opens-no-transaction', 'commit-without-begin', 'commit-in-loop', 'ddl-outside-transaction'],
  alsoWhen: ['keyed-send-before-commit', 'claim-then-work'],
  apply({ module, fn, resumable }) {
    const effects = findEffects(fn, module);
    // A function that begins itself manages its own transaction; executescript() commits first. An existing
    // try/rollback() is kept as it is: BEGIN goes inside it, before the first write, and its rollback() now undoes them.
    if (effects.some((e) => e.kind === 'db-begin' || e.kind === 'db-script')) return undefined;
    // A helper that leaves the commit to this function writes inside this function's unit, so the BEGIN goes here,
    // at the caller, before the call; a helper that commits its own writes is a unit of its own, repaired there
    // (transaction-at-helper.ts).
    const committingCalls = new Set(effects.filter((e) => e.via && e.kind === 'db-commit').map((e) => e.node.id));
    const writes = effects.filter((e) => WRITES.has(e.kind) && (!e.via || !committingCalls.has(e.node.id)));
    if (writes.length === 0) return undefined;
    const body = fn.node.childForFieldName('body');
    if (!body) return undefined;
    const { source } = module;
    const unit = indentUnit(module.tree.rootNode, source);
    const quote = preferredQuote(module);
    const edits: TextEdit[] = [];
    const said: string[] = [];
    const begun = new Set<number>();
    const begin = (before: SyntaxNode, conn: string): void => {
      if (begun.has(before.id)) return;
      begun.add(before.id);
      edits.push(beginBefore(source, before, conn, unit, quote));
    };
    const receivers = new Set(descendantsOfType(body, ['call']).map((c) => callParts(c)).filter((p) => ['execute', 'executemany', 'commit', 'cursor'].includes(p.method)).map((p) => p.receiver?.text));

    // `with conn:` commits or rolls back at its end: it only needs to begin.
    const withBlocks: SyntaxNode[] = [];
    for (const statement of descendantsOfType(body, ['with_statement'])) {
      const items = statement.namedChildren.find((n) => n.type === 'with_clause')?.namedChildren ?? [];
      const value = items.length === 1 ? items[0]!.childForFieldName('value') : undefined;
      if (!value || !['identifier', 'attribute'].includes(value.type) || !receivers.has(value.text)) continue;
      const block = statement.childForFieldName('body');
      const first = block && statementsOf(block)[0];
      if (!first) continue;
      begin(first, value.text);
      withBlocks.push(statement);
      said.push(`\`with ${value.text}:\` begins its transaction (it only commits or rolls back)`);
    }
    const inWith = (node: SyntaxNode) => withBlocks.some((w) => w.startIndex <= node.startIndex && w.endIndex >= node.endIndex);

    const commits = descendantsOfType(body, ['expression_statement']).filter((s) => commitReceiver(s) !== undefined && !inWith(s));
    const freeWrites = writes.filter((w) => !inWith(w.node));
    if (commits.length === 0 && freeWrites.length === 0) return edits.length ? { source: applyEdits(source, edits), summary: said.join('; ') } : undefined;
    const conn = commits.map((c) => commitReceiver(c)!)[0] ?? connectionOf(freeWrites[0]!, fn);
    if (!conn) return undefined;

    const removed = new Set<number>();
    const loops = new Map<number, SyntaxNode>();
    for (const commit of commits) {
      const loop = outermostLoop(commit, fn.node);
      if (!loop) continue;
      const perItem = resumable && commit.parent?.parent && LOOPS.includes(commit.parent.parent.type);
      if (perItem) continue;
      removed.add(commit.id);
      edits.push(removalOf(source, commit));
      loops.set(loop.id, loop);
    }
    // A commit after the loop (in its block or an enclosing one) already ends the unit; else one is added after the loop.
    const commitAfterLoop = new Map<number, SyntaxNode>();
    for (const loop of loops.values()) if (!commitFollows(loop, fn.node, removed)) commitAfterLoop.set(loop.id, loop);
    if (loops.size) said.push('the per-item commits in the loop become one commit after it');
    // Each remaining commit ends a unit that starts after the previous commit of its block.
    const blocks = new Map<number, SyntaxNode>();
    for (const commit of commits) if (!removed.has(commit.id) && commit.parent) blocks.set(commit.parent.id, commit.parent);
    for (const loopTop of commitAfterLoop.values()) if (loopTop.parent) blocks.set(loopTop.parent.id, loopTop.parent);
    const units: { first: SyntaxNode; writes: number }[] = [];
    for (const block of blocks.values()) {
      const statements = statementsOf(block);
      let start = 0;
      statements.forEach((statement, index) => {
        const endsUnit = (commitReceiver(statement) !== undefined && !removed.has(statement.id)) || commitAfterLoop.has(statement.id);
        if (!endsUnit) return;
        const last = commitReceiver(statement) !== undefined ? index - 1 : index;
        const unit = statements.slice(start, last + 1);
        const first = unit.find((s) => freeWrites.some((w) => contains(s, w.node)));
        if (first) units.push({ first, writes: writesIn(unit, freeWrites, block) });
        if (commitAfterLoop.has(statement.id) && !statements.slice(index + 1).some((s) => commitReceiver(s) !== undefined)) {
          const at = lineEnd(source, statement.endIndex - 1);
          edits.push({ start: at, end: at, text: `${source[at - 1] === '\n' ? '' : '\n'}${indentOf(source, statement)}${conn}.commit()\n` });
        }
        start = index + 1;
      });
    }
    // One write on its own is all or nothing already (in autocommit mode too): such a unit gets no BEGIN when another
    // unit of the function needs one. Alone, it keeps its BEGIN: the finding asked for it, and the crash test decides.
    const needed = units.filter((u) => u.writes > 1);
    for (const u of needed.length ? needed : units) begin(u.first, conn);
    // No commit at all (the function switched to autocommit itself): BEGIN before the first write, COMMIT after the last.
    if (commits.length === 0) {
      const top = statementsOf(body);
      const first = top.find((s) => contains(s, freeWrites[0]!.node));
      const last = [...top].reverse().find((s) => contains(s, freeWrites.at(-1)!.node));
      if (!first || !last) return undefined;
      begin(first, conn);
      const at = lineEnd(source, last.endIndex - 1);
      edits.push({ start: at, end: at, text: `${source[at - 1] === '\n' ? '' : '\n'}${indentOf(source, last)}${conn}.commit()\n` });
      said.push(`the writes are committed together (\`${conn}.commit()\` after the last)`);
    }
    if (begun.size === 0) return undefined;
    said.push(`\`${conn}.execute("BEGIN")\` before the first write, unless a caller's transaction is open, so the writes commit or roll back together in either sqlite3 mode`);
    return { source: applyEdits(source, edits), summary: said.join('; ') };
  },
};

/** The writes in a unit's statements; a write repeated by a loop inside the unit counts as many. */
function writesIn(unit: readonly SyntaxNode[], writes: readonly Effect[], block: SyntaxNode): number {
  const mine = writes.filter((w) => unit.some((s) => contains(s, w.node)));
  const looped = mine.some((w) => {
    for (let current = w.node.parent; current && current.id !== block.id; current = current.parent) if (LOOPS.includes(current.type)) return true;
    return false;
  });
  return looped ? Infinity : mine.length;
}

function contains(outer: SyntaxNode, inner: SyntaxNode): boolean {
  return outer.startIndex <= inner.startIndex && outer.endIndex >= inner.endIndex;
}

/** `if not conn.in_transaction:` / `conn.execute("BEGIN")`, at the statement's indent, just above it. */
function beginBefore(source: string, statement: SyntaxNode, conn: string, unit: string, quote: string): TextEdit {
  const indent = indentOf(source, statement);
  const at = lineStart(source, statement.startIndex);
  return { start: at, end: at, text: `${indent}if not ${conn}.in_transaction:\n${indent}${unit}${conn}.execute(${quote}BEGIN${quote})\n` };
}

/** The module's own string quote: double unless single-quoted strings are the majority. */
function preferredQuote(module: PyModule): string {
  let single = 0;
  let double = 0;
  for (const string of module.tree.rootNode.descendantsOfType('string')) {
    const quote = /^[a-zA-Z]*(['"])/.exec(string.text)?.[1];
    if (quote === "'") single++;
    else if (quote === '"') double++;
  }
  return single > double ? "'" : '"';
}

function outermostLoop(node: SyntaxNode, fnNode: SyntaxNode): SyntaxNode | undefined {
  let found: SyntaxNode | undefined;
  for (let current = node.parent; current && current.id !== fnNode.id; current = current.parent) if (LOOPS.includes(current.type)) found = current;
  return found;
}

/** True when a commit statement (not one of `removed`) comes after `node`, in its block or an enclosing one of the function. */
function commitFollows(node: SyntaxNode, fnNode: SyntaxNode, removed: ReadonlySet<number>): boolean {
  for (let current: SyntaxNode | null = node; current && current.id !== fnNode.id; current = current.parent) {
    for (let next = current.nextNamedSibling; next; next = next.nextNamedSibling) {
      const found = descendantsOfType(next, ['expression_statement']).some((s) => commitReceiver(s) !== undefined && !removed.has(s.id));
      if (found) return true;
    }
  }
  return false;
}

/** Removes a commit statement; an `if` that held nothing else goes with it. */
function removalOf(source: string, commit: SyntaxNode): TextEdit {
  let target = commit;
  const block = commit.parent;
  const holder = block?.parent;
  if (block?.type === 'block' && statementsOf(block).length === 1 && holder?.type === 'if_statement' && !holder.childForFieldName('alternative')) target = holder;
  return { start: lineStart(source, target.startIndex), end: lineEnd(source, target.endIndex - 1), text: '' };
}

/** The connection a write goes through: its receiver, unless that is a cursor (which cannot begin). */
function connectionOf(write: Effect, fn: PyFunction): string | undefined {
  const receiver = callParts(write.node).receiver;
  if (!receiver || !['identifier', 'attribute'].includes(receiver.type)) return undefined;
  const cursorAssigned = descendantsOfType(fn.node, ['assignment']).some(
    (a) => a.childForFieldName('left')?.text === receiver.text && /\.cursor\(\)$/.test(a.childForFieldName('right')?.text ?? ''),
  );
  return cursorAssigned ? undefined : receiver.text;
}

