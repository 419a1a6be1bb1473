import type { Effect, PyFunction, PyModule, SyntaxNode, TxStyleResult } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { compactText, contains } from './syntax.ts';
import { connectKeyword, connectsInAutocommit, connectionItem, connectionWrites, describeWrites, driverOf, onlyRerunSafeDdl, setsAutocommitFor, transactionFacts } from './facts.ts';
import { onOwnDefaultModeConnection } from './default-mode-connection.ts';
import { autocommitEvidence, evidenceClause } from './autocommit-evidence.ts';
import { repoIndexOf, resolveCall } from '../callgraph.ts';
import { attributeAssignments } from '../attribute-assignments.ts';
import { importBindings } from '../imports.ts';
import { STDLIB_MODULES } from '../stdlib-modules.ts';
import { bindingsOf } from './repository-connections.ts';
import { placeOf } from './call-sites.ts';
import { keepsTransactions, MODE_NAMES } from './autocommit-switches.ts';
import { defineRule } from './rule.ts';

export const withConnOpensNoTransaction = defineRule({
  meta: {
    id: 'with-conn-opens-no-transaction',
    description: '`with conn:` commits or rolls back at the end but never begins: in autocommit mode it is no transaction.',
    category: 'sqlite-transaction',
    severity: 'warning',
    messages: {
      withConnNoBegin:
        '`with {{conn}}:` opens no transaction: its {{writes}} are held together only by sqlite3\'s default mode, and saved one by one in autocommit{{evidence}}',
      withConnDdlFirst:
        '`with {{conn}}:` opens no transaction, and sqlite3 opens none before DDL: its {{writes}} are saved one by one in either mode',
      withConnAutocommit:
        '`with {{conn}}:` on a connection in autocommit mode is no transaction: its {{writes}} are saved one at a time',
    },
    messageSeverity: { withConnAutocommit: 'error' },
    hint: 'Run BEGIN (or SAVEPOINT inside a caller\'s transaction) as the first statement of the block.',
  },
  create(context) {
    const fnNode = context.fn.node;
    return {
      with_statement(node) {
        const item = connectionItem(node, context.txStyle);
        const body = node.childForFieldName('body');
        if (!item || !body) return;
        const connection = connectionOf(item);
        if (connectKeyword(connection.value, 'autocommit') === 'False') return;
        const facts = transactionFacts(context);
        const writes = connectionWrites(facts, body, fnNode);
        if (!writes || onlyRerunSafeDdl(writes)) return;
        const first = writes[0]!;
        if (facts.opens.some((open) => open.node.startIndex <= first.node.startIndex)) return;
        const autocommit =
          connectsInAutocommit(connection.value) || setsAutocommitFor(connection.name, facts, node);
        // psycopg and other DB-API drivers begin before the first statement (autocommit off): the block is a transaction.
        if (!autocommit && driverOf(context.module, context.fn).kind !== 'sqlite3') return;
        const ddlFirst = facts.ddl.includes(first);
        // In the default mode sqlite3 begins before the first INSERT/UPDATE/DELETE, and the with commits or rolls back:
        // the block is a transaction when the module opened the connection so and never switches it. Not when DDL comes
        // first (no BEGIN before it) or a script runs (executescript commits first).
        const scripts = writes.some((write) => facts.scripts.includes(write));
        if (
          !autocommit && !ddlFirst && !scripts &&
          everyWriteOpens(writes, body, context.effects, connection.name, context.fn) &&
          !endsInside(body, fnNode, context.effects, connection.name, context.txStyle) &&
          writes.every((write) => onOwnDefaultModeConnection(context, write)) &&
          !modeMayChangeElsewhere(context.module, context.fn, writes[0]!, connection.name)
        ) return;
        context.report({
          node: item,
          messageId: autocommit ? 'withConnAutocommit' : ddlFirst ? 'withConnDdlFirst' : 'withConnNoBegin',
          data: { conn: connection.name, writes: describeWrites(writes), evidence: writes[0] ? evidenceClause(context.module, context.fn, writes[0]) : '' },
        });
      },
    };
  },
});

/**
 * Whichever write of the block runs first makes sqlite3 begin, and the rest run inside that transaction: every
 * write is a statement of the block's own (not a helper's, whose write may sit beside other SQL), a call standing
 * as a statement or as the right side of an assignment (not under `and`/`or`, a conditional or a comprehension,
 * whose evaluation may be put off), on the with's own connection (or a cursor of it: a write on another
 * connection is committed by that one, later or never), and its SQL a plain INSERT/UPDATE/DELETE/REPLACE
 * (sqlite3 opens no transaction before DDL or `WITH ... UPDATE`). Under an `if` or in a loop is fine (IPython's
 * `with conn: for line in cache: conn.execute("INSERT ...")`): a skipped write leaves the next one to begin.
 * Nothing else in the block runs SQL but reads: a PRAGMA (`PRAGMA user_version = 3` before a loop of UPDATEs),
 * other DDL or SQL the reader cannot see runs before any BEGIN and is saved alone.
 */
function everyWriteOpens(writes: readonly Effect[], body: SyntaxNode, effects: readonly Effect[], connection: string, fn: PyFunction): boolean {
  if (writes.length === 0 || !writes.every((write) => opensWhenRun(write, body) && onConnection(write, connection, fn))) return false;
  return effects.every((effect) => {
    if (!contains(body, effect.node) || !effect.kind.startsWith('db-') || effect.kind === 'db-commit' || effect.kind === 'db-rollback') return true;
    if (effect.kind === 'db-read') return effect.sql?.kind === 'read';
    return effect.kind === 'db-write' && writes.includes(effect);
  });
}

/** The write's receiver is the with's connection, or a local bound only to `<connection>.cursor()`. */
function onConnection(write: Effect, connection: string, fn: PyFunction): boolean {
  const receiver = callParts(write.node).receiver;
  if (!receiver) return false;
  if (compactText(receiver) === connection) return true;
  if (receiver.type !== 'identifier') return false;
  const values = bindingsOf(fn.node, receiver.text);
  return values !== undefined && values.length > 0 && values.every((value) => {
    if (value.type !== 'call') return false;
    const parts = callParts(value);
    return parts.method === 'cursor' && parts.receiver !== undefined && compactText(parts.receiver) === connection;
  });
}

function opensWhenRun(write: Effect, body: SyntaxNode): boolean {
  if (write.via !== undefined || !contains(body, write.node)) return false;
  // in a nested function or lambda of the block the write runs whenever that is called, maybe after the block.
  for (let node = write.node.parent; node && node.id !== body.id; node = node.parent) if (/^(function_definition|lambda|class_definition)$/.test(node.type)) return false;
  const parent = write.node.parent;
  const plain = parent?.type === 'expression_statement' || (parent?.type === 'assignment' && parent.childForFieldName('right')?.id === write.node.id && parent.parent?.type === 'expression_statement');
  const sql = (write.sql?.text ?? '').replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*/, '');
  return plain && /^(insert|update|delete|replace)\b/i.test(sql);
}

/**
 * Something in the block may end the transaction before its end: a commit or rollback (its own, a
 * helper's, a COMMIT statement), a commit or rollback method taken as a value, or a call the connection
 * (or the object holding it, `self` for `self.db`) is handed to in any form, in the block or before it
 * (`tune(conn)` may switch it to autocommit), whose code is not read here. A `with <connection>:` nested in the
 * block commits at its own end (one per row in a loop), so the outer block is no single transaction either.
 */
function endsInside(body: SyntaxNode, fnNode: SyntaxNode, effects: readonly Effect[], connection: string, txStyle: TxStyleResult): boolean {
  if (effects.some((effect) => (effect.kind === 'db-commit' || effect.kind === 'db-rollback') && contains(body, effect.node))) return true;
  if (body.descendantsOfType('with_statement').some((nested) => connectionItem(nested, txStyle) !== undefined)) return true;
  const root = connection.split('.')[0]!;
  const mentions = new RegExp(`(^|[^\\w.])${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`);
  // Handed over anywhere in the function, before the block too: the unread code may switch it to autocommit.
  for (const node of fnNode.descendantsOfType(['call', 'attribute'])) {
    if (node.type === 'attribute') {
      if (!contains(body, node)) continue;
      const name = node.childForFieldName('attribute')?.text ?? '';
      const called = node.parent?.type === 'call' && node.parent.childForFieldName('function')?.id === node.id;
      if (!called && ['commit', 'rollback', 'close', 'execute', 'executescript'].includes(name)) return true;
      continue;
    }
    const parts = callParts(node);
    if (parts.receiver && compactText(parts.receiver) === connection) continue;
    const argumentsText = [...parts.positional, ...parts.keywords.values()].map((argument) => argument.text);
    if (argumentsText.some((text) => mentions.test(text))) return true;
  }
  return false;
}

/** The connection as the body uses it: `conn` for `with conn:`, `c` for `with sqlite3.connect(p) as c:`. */
function connectionOf(item: SyntaxNode): { value: SyntaxNode; name: string } {
  const value = item.childForFieldName('value')!;
  if (value.type === 'as_pattern') {
    const expression = value.namedChildren[0] ?? value;
    const alias = value.childForFieldName('alias')?.text ?? expression.text;
    return { value: expression, name: expression.type === 'call' ? alias : expression.text };
  }
  return { value, name: value.text };
}

/**
 * Read with a repository that shows autocommit evidence, the module's own proof of the mode (it opened the connection
 * in the default mode and never switches it) does not see what other modules do to it: another module sets the mode
 * on an object reached through the same attribute (`hist.db.isolation_level = None` for this module's `self.db`) or
 * on a parameter of a function of its own (`def configure(conn): conn.isolation_level = None`), or this module hands
 * the connection to a function of another module or a third party (`configure(self.db)` in `__init__`), whose code
 * may switch it. Then the connection's mode may change and the block is reported as for any unproven connection.
 */
function modeMayChangeElsewhere(module: PyModule, fn: PyFunction, write: Effect, connection: string): boolean {
  const index = repoIndexOf(module);
  if (!index || autocommitEvidence(module, fn, write) === undefined) return false;
  const names = connectionAttributes(module, connection);
  for (const where of index.modules.values()) {
    if (where.path === module.path) continue;
    for (const mode of MODE_NAMES) {
      for (const { target, value } of attributeAssignments(where).whole.get(mode) ?? []) {
        if (keepsTransactions(value)) continue;
        const object = target.type === 'attribute' ? target.childForFieldName('object') : null;
        if (!object) continue;
        if (object.type === 'attribute' && names.has(object.childForFieldName('attribute')?.text ?? '')) return true;
        if (object.type === 'identifier' && names.size > 0 && placeOf(target, where)?.fn?.params.includes(object.text)) return true;
      }
    }
  }
  return handedToAnotherModule(module, connection, names);
}

/** The attribute names the connection may be kept under: its own (`self.db`), and every attribute the module assigns a `connect(...)` to. */
function connectionAttributes(module: PyModule, connection: string): Set<string> {
  const names = new Set<string>();
  const own = /\.(\w+)$/.exec(connection);
  if (own) names.add(own[1]!);
  for (const [attribute, assignments] of attributeAssignments(module).whole) {
    if (assignments.some(({ value }) => value.type === 'call' && /(^|\.)connect$/.test(callParts(value).callee))) names.add(attribute);
  }
  return names;
}

/** Some call of the module passes the connection (`self.db`, `x.db` for a kept name, or the name itself) to a function of another module or a third party's. */
function handedToAnotherModule(module: PyModule, connection: string, names: ReadonlySet<string>): boolean {
  const index = repoIndexOf(module)!;
  for (const call of module.tree.rootNode.descendantsOfType('call')) {
    const parts = callParts(call);
    const passed = [...parts.positional, ...parts.keywords.values()].some((argument) => {
      const text = compactText(argument);
      if (text === connection) return true;
      return argument.type === 'attribute' && names.has(argument.childForFieldName('attribute')?.text ?? '');
    });
    if (!passed) continue;
    const place = placeOf(call, module);
    const resolved = resolveCall(index, module.path, call, place?.fn);
    if (resolved.targets.some((target) => target.path !== module.path)) return true;
    const head = parts.callee.split('.')[0]!;
    const imported = importBindings(module).find((binding) => binding.localName === head);
    if (imported && !STDLIB_MODULES.has(imported.module.split('.')[0]!) && resolved.targets.length === 0) return true;
  }
  return false;
}
