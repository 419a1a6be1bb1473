// A DROP TABLE a re-run completes as `DROP TABLE IF EXISTS` would: the table is one of those the same function has
// just listed from the schema on the same connection (zim 0.75's Index._db_init):
//
//     tables = [r[0] for r in self._db.execute('SELECT name FROM sqlite_master WHERE type="table"')]
//     for table in tables:
//         self._db.execute('DROP TABLE %s' % table)
//
// A crash after some of the DROPs leaves those tables gone; the re-run lists the schema again, finds only the ones
// left and drops them. Nothing it drops is missing, so it trips on nothing.
// What qualifies, all in the function that runs the statement (or the helper the effect came through):
// - the statement is `DROP TABLE <hole>`, the hole the loop's name itself;
// - `for <name> in <list>:` around it, <name> used nowhere else in the function (not bound again, not read
//   elsewhere), <list> a local bound by one assignment that runs once per call (or the comprehension itself);
// - <list> = `[<row>[0] for <row> in <conn>.execute('SELECT name FROM sqlite_master ...')]`, no filter in the
//   comprehension (the query's own WHERE is re-read the same by the re-run), <conn> written as the DROP's receiver.
// Anything else (a list kept from before, another connection, another column, DROP INDEX/VIEW) does not qualify.
// And no data read before the drops is written back after them (`notes = SELECT ...; drop all; INSERT notes`: a crash
// after the drops loses the rows): either no data write (INSERT/UPDATE/DELETE/REPLACE, a script holding one, SQL
// not resolved) follows the drop in the function (schema changes may: the re-run makes them), or the function reads
// nothing but the sqlite_master listing and PRAGMAs (its own reads and its helpers'). Not seen: rows read through a
// call the scan does not follow (another object's method) and passed in.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { repoIndexOf } from '../callgraph.ts';
import { functionsByQualname } from '../local-resolve.ts';
import { sqlTemplate } from './schema-guarded-ddl.ts';
import { singleAssignment } from './single-binding.ts';
import { contains } from './syntax-tree.ts';

const HOLE = '\u0001';
const LISTS_TABLE_NAMES = /^\s*select\s+name\s+from\s+(?:main\.)?sqlite_(?:master|schema)\b/i;

/** True when the DDL effect drops a table the function listed from sqlite_master just before (see above). */
export function dropsListedTable(effect: Effect, fn: PyFunction, module: PyModule): boolean {
  const located = statementCall(effect, fn, module);
  if (!located) return false;
  const { call, fn: holder } = located;
  const template = sqlTemplate(call.childForFieldName('arguments')?.namedChildren[0]);
  const drop = template && new RegExp(`^\\s*drop\\s+table\\s+${HOLE}0${HOLE}\\s*;?\\s*$`, 'i').exec(template.text);
  if (!drop || template.holes.length !== 1) return false;
  const name = template.holes[0]!;
  if (!/^\w+$/.test(name)) return false;
  const loop = enclosingFor(call, name, holder.node);
  if (!loop || !usedOnlyThere(name, loop, call, holder.node)) return false;
  const source = loop.childForFieldName('right');
  // The list is bound once and used only by the loop: nothing adds a name the schema did not list.
  const listing = source?.type === 'identifier' ? onlyLoopUse(source, holder, loop) : source;
  return listing !== null && listing !== undefined && listsTableNames(listing, receiverOf(call));
}

/** The one value bound to the list, when its only other occurrence in the function is the loop's iterable. */
function onlyLoopUse(source: SyntaxNode, holder: PyFunction, loop: SyntaxNode): SyntaxNode | undefined {
  const assignment = singleAssignment(source.text, holder, loop);
  const target = assignment?.childForFieldName('left');
  if (target?.type !== 'identifier') return undefined;
  const others = holder.node.descendantsOfType('identifier').filter((occurrence) => {
    if (occurrence.text !== source.text || occurrence.id === target.id || occurrence.id === source.id) return false;
    const parent = occurrence.parent;
    return !(parent?.type === 'attribute' && parent.childForFieldName('attribute')?.id === occurrence.id) &&
      !(parent?.type === 'keyword_argument' && parent.childForFieldName('name')?.id === occurrence.id);
  });
  return others.length === 0 ? assignment?.childForFieldName('right') ?? undefined : undefined;
}

/** The innermost `for <name> in ...:` whose body holds the call. */
function enclosingFor(call: SyntaxNode, name: string, fnNode: SyntaxNode): SyntaxNode | undefined {
  for (let at = call.parent; at && at.id !== fnNode.id; at = at.parent) {
    if (at.type === 'function_definition' || at.type === 'lambda' || at.type === 'class_definition') return undefined;
    if (at.type !== 'for_statement') continue;
    const body = at.childForFieldName('body');
    const target = at.childForFieldName('left');
    return body && contains(body, call) && target?.type === 'identifier' && target.text === name ? at : undefined;
  }
  return undefined;
}

/** Every occurrence of the name in the function is the loop's target or inside the DROP's own arguments. */
function usedOnlyThere(name: string, loop: SyntaxNode, call: SyntaxNode, fnNode: SyntaxNode): boolean {
  const target = loop.childForFieldName('left')!;
  const args = call.childForFieldName('arguments');
  return (fnNode.descendantsOfType('identifier') ?? []).every((occurrence) => {
    if (occurrence.text !== name) return true;
    if (occurrence.id === target.id) return true;
    // `x.name`, `f(name=...)` are not the local.
    const parent = occurrence.parent;
    if (parent?.type === 'attribute' && parent.childForFieldName('attribute')?.id === occurrence.id) return true;
    if (parent?.type === 'keyword_argument' && parent.childForFieldName('name')?.id === occurrence.id) return true;
    return args !== null && contains(args, occurrence) && !bindsHere(occurrence);
  });
}

/** A walrus or comprehension target inside the arguments would bind the name again. */
function bindsHere(occurrence: SyntaxNode): boolean {
  const parent = occurrence.parent;
  if (!parent) return false;
  if (parent.type === 'named_expression' && parent.childForFieldName('name')?.id === occurrence.id) return true;
  for (let at: SyntaxNode | null = occurrence; at; at = at.parent) {
    if (at.parent?.type === 'for_in_clause' && at.parent.childForFieldName('left')?.id === at.id) return true;
  }
  return false;
}

/** `[r[0] for r in <receiver>.execute('SELECT name FROM sqlite_master ...')]`, with no filter. */
function listsTableNames(value: SyntaxNode, receiver: string | undefined): boolean {
  if (value.type !== 'list_comprehension' || receiver === undefined) return false;
  const parts = value.namedChildren;
  const clauses = parts.filter((part) => part.type === 'for_in_clause');
  if (clauses.length !== 1 || parts.some((part) => part.type === 'if_clause')) return false;
  const row = clauses[0]!.childForFieldName('left');
  const query = clauses[0]!.childForFieldName('right');
  const body = value.childForFieldName('body');
  if (row?.type !== 'identifier' || body?.type !== 'subscript') return false;
  const index = body.childForFieldName('subscript');
  if (body.childForFieldName('value')?.text !== row.text || index?.type !== 'integer' || Number(index.text) !== 0) return false;
  if (query?.type !== 'call') return false;
  const callee = query.childForFieldName('function');
  if (callee?.type !== 'attribute' || callee.childForFieldName('attribute')?.text !== 'execute' || receiverOf(query) !== receiver) return false;
  const sql = sqlTemplate(query.childForFieldName('arguments')?.namedChildren[0]);
  return sql !== undefined && sql.holes.length === 0 && LISTS_TABLE_NAMES.test(sql.text);
}

/** `self._db` of `self._db.execute(...)`, whitespace dropped. */
function receiverOf(call: SyntaxNode): string | undefined {
  const callee = call.childForFieldName('function');
  return callee?.type === 'attribute' ? callee.childForFieldName('object')?.text.replace(/\s+/g, '') : undefined;
}

/** The call that runs the statement: the effect's own, or the helper's own call it came through. */
export function statementCall(effect: Effect, fn: PyFunction, module: PyModule): { call: SyntaxNode; fn: PyFunction } | undefined {
  if (!effect.via) return { call: effect.node, fn };
  const holderModule = effect.via.path === module.path ? module : repoIndexOf(module)?.modules.get(effect.via.path);
  const holder = holderModule && functionsByQualname(holderModule).get(effect.via.qualname);
  const at = effect.viaNode;
  if (!holder || !at || !contains(holder.node, at)) return undefined;
  // The node in the helper's own tree at the helper call's place (viaNode may come from another module's tree).
  const call = holder.node.descendantForIndex(at.startIndex, at.endIndex);
  return call?.type === 'call' && call.text === at.text ? { call, fn: holder } : undefined;
}

const DATA_WRITE = /\b(?:insert|update|delete|replace)\b/i;
const SCHEMA_READ = /^\s*(?:select\b[\s\S]*\bfrom\s+(?:main\.)?sqlite_(?:master|schema)\b|pragma\b)/i;

/** Nothing read before the drop is written back after it: no data write follows it, or no data is read at all (see above). */
export function noRowsCarriedOver(drop: Effect, effects: readonly Effect[]): boolean {
  const at = effects.indexOf(drop);
  if (at < 0) return false;
  const dataWrite = (effect: Effect): boolean =>
    effect.kind === 'db-write' ||
    (effect.kind === 'db-script' && (effect.sql?.text === undefined || DATA_WRITE.test(effect.sql.text))) ||
    ((effect.kind === 'db-ddl' || effect.kind === 'db-read') && effect.sql?.text === undefined);
  if (!effects.slice(at + 1).some(dataWrite)) return true;
  return effects.every((effect) => {
    if (effect.kind === 'db-read') return effect.sql?.text !== undefined && SCHEMA_READ.test(effect.sql.text);
    // SQL not resolved may be a read; a script's SELECT brings no row into Python.
    return !(effect.kind.startsWith('db-') && effect.kind !== 'db-script' && (effect.sql?.kind === 'unknown' || (effect.sql !== undefined && effect.sql.text === undefined)));
  });
}
