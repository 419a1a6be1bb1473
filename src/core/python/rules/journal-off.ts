import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { defineRule } from './rule.ts';
import { callParts } from '../body-walk.ts';
import { directEffects, resolveSameModuleHelper } from '../effects.ts';
import { rangeOf } from '../source-range.ts';
import { withoutInMemoryDatabase } from './memory-db.ts';
import { callEffect, mayHaveEffect } from '../call-effects.ts';
import { listFunctions } from '../functions.ts';
import { scopeFacts } from '../module-facts.ts';
import { memoizePer } from '../memo.ts';
import { splitSqlStatements, statementKind } from '../sql.ts';
import { resolveStringAlternatives } from '../string-value.ts';

/** `PRAGMA [schema.]journal_mode = OFF`, `= 'memory'`, `(off)`: the value, whatever its quotes and case. */
const JOURNAL_MODE_SET = /^pragma\s+(?:[\w"]+\.)?"?journal_mode"?\s*(?:=|\()\s*(['"]?)(\w+)\1\s*\)?\s*$/i;

/** The journal modes SQLite itself says leave the file "very likely" corrupt after a crash mid-transaction. */
const UNSAFE_MODES = new Set(['off', 'memory']);

/**
 * coverage 6.5 `SqliteDb._connect`: `self.execute("pragma journal_mode=off")`, then every write of
 * CoverageData through that connection; killing `CoverageData.update` mid-way left "database disk image
 * is malformed" at 4 of 5 crash points. SQLite (pragma.html#pragma_journal_mode) says this of OFF and of
 * MEMORY alike; WAL, DELETE, TRUNCATE and PERSIST are crash-safe, and synchronous=OFF only risks power
 * loss or an OS crash, so neither is reported.
 *
 * Reported once per call whose string argument (as sql.ts/string-value.ts resolve it: literal, constant,
 * concatenation, a fully literal f-string) sets one of these modes, whatever the receiver or wrapper,
 * when the module writes to a database somewhere. A module whose every database call resolves to a read
 * is quiet: with no write, no transaction can be torn.
 * Partial: an f-string or `%` template whose mode is a placeholder (`f"... = {mode}"`) is not resolved;
 * a connection set to OFF here and written only by another module is not seen; ORM settings
 * (peewee's `pragmas={'journal_mode': 'off'}`) are not read.
 */
export const journalOff = defineRule({
  meta: {
    id: 'journal-off',
    description: 'The connection runs with journal_mode OFF or MEMORY: no rollback journal on disk for a crash to be undone from.',
    category: 'sqlite-transaction',
    // Not a half-done update but, in SQLite's words, a database file that "will very likely go corrupt": everything in it is lost.
    severity: 'error',
    messages: {
      journalOff:
        'PRAGMA journal_mode={{mode}} keeps no rollback journal on disk: if the process crashes in the middle of a transaction, the database file will very likely go corrupt (SQLite\'s own words), not merely half-updated',
    },
    hint: 'Drop the pragma to keep the default DELETE journal, or use PRAGMA journal_mode=WAL (fast and crash-safe).',
  },
  create(context) {
    const { module, fn } = context;
    if (!/journal_mode/i.test(module.source)) return {};
    return {
      call(node: SyntaxNode) {
        const mode = unsafeJournalMode(node, module);
        if (mode === undefined || !writesDatabase(module) || onInMemoryDatabase(node, fn, module)) return;
        context.report({ node, messageId: 'journalOff', data: { mode: mode.toUpperCase() } });
      },
    };
  },
});

/** The unsafe mode one of the call's string arguments sets (any statement of a script), if any. */
function unsafeJournalMode(call: SyntaxNode, module: PyModule): string | undefined {
  const { positional, keywords } = callParts(call);
  for (const argument of [...positional, ...keywords.values()]) {
    for (const value of resolveStringAlternatives(argument, module)) {
      for (const statement of splitSqlStatements(value.text)) {
        if (statementKind(statement) !== 'pragma') continue;
        const mode = JOURNAL_MODE_SET.exec(statement)?.[2]?.toLowerCase();
        if (mode !== undefined && UNSAFE_MODES.has(mode)) return mode;
      }
    }
  }
  return undefined;
}

/**
 * A call on a connection opened on ":memory:" (or its cursor), as memory-db.ts tells them: such a database
 * dies with the process, so there is no file to corrupt. Asked of the call as written, not of its effects,
 * so a wrapper method's call is judged by its own receiver too.
 */
function onInMemoryDatabase(call: SyntaxNode, fn: PyFunction, module: PyModule): boolean {
  const asDatabaseCall: Effect = { kind: 'db-ddl', call: callParts(call).callee, range: rangeOf(call), node: call, inLoop: false };
  return withoutInMemoryDatabase([asDatabaseCall], fn, module, resolveSameModuleHelper).length === 0;
}

/**
 * Some call of the module, in a function or at top level, writes: an INSERT/UPDATE/DELETE, DDL, a script, or
 * SQL that cannot be resolved (which may write, as call-effects.ts reads it). PRAGMAs that set are `db-ddl`
 * too, and are not writes of data; a script of nothing but PRAGMAs is not one either.
 */
const writesDatabase = memoizePer((module: PyModule): boolean => {
  const topLevel = scopeFacts(module, undefined).calls.filter(({ callee }) => mayHaveEffect(callee)).map(({ node }) => callEffect(callParts(node), module, node));
  const effects = [...listFunctions(module).flatMap((fn) => directEffects(fn, module)), ...topLevel];
  return effects.some((effect) => effect !== undefined && ['db-write', 'db-ddl', 'db-script'].includes(effect.kind) && effect.sql?.kind !== 'pragma');
});
