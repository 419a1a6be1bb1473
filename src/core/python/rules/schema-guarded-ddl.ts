// DDL a re-run completes because the statement runs only when a read of the schema it changes says
// it is still to do (minidb 2.0.7's Store._ensure_schema): `PRAGMA table_info(<t>)` read first, then
// `ALTER TABLE <t> ADD COLUMN <c>` only for the columns whose names that read does not list, and
// `CREATE TABLE <t>` only when the read returned no row (the table is absent). A crash between them
// leaves some done, and the re-run reads the schema again and does the rest, as `IF NOT EXISTS` would.
// What qualifies, all in the function that runs the statement (or the one same-repository helper the
// effect came through):
// - ALTER TABLE <t> ADD [COLUMN] <c>, with <c> a name bound by `for ... in L` (or the loop itself
//   under `if c not in E:`), L a list built once by a comprehension whose filter is `c not in E`
//   and whose element carries <c> to the loop; E the column names of the read: the rows' field 1,
//   through comprehensions that keep every row (no filter);
// - CREATE TABLE <t> in the else of `if rows:` (or under `if not rows:`) where `rows` still holds
//   the read's fetchall() when tested;
// - the read is `PRAGMA table_info(<t>)` for the same <t>, written as the same expression: a literal, a
//   parameter the function never binds again, or a local bound by one assignment that runs once per call.
// Anything else (DROP, RENAME, a guard on another list or another table, a filtered or re-shaped row
// list, a name tested other than the one altered) does not qualify.
// Partial: sqlite_master lookups are not read; a guard written in a caller is not seen.
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { repoIndexOf } from '../callgraph.ts';
import { functionsByQualname } from '../local-resolve.ts';
import { scopeFacts } from '../module-facts.ts';
import { contains } from './syntax-tree.ts';
import { singleAssignment } from './single-binding.ts';

const HOLE = '\u0001';

/** True when the DDL effect's statement is guarded by a read of the schema it changes (see above). */
export function schemaGuardedDdl(effect: Effect, fn: PyFunction, module: PyModule): boolean {
  const located = statementCall(effect, fn, module);
  if (!located) return false;
  const { call, fn: holder, module: holderModule } = located;
  const template = sqlTemplate(call.childForFieldName('arguments')?.namedChildren[0]);
  if (!template) return false;
  const statement = template.text.trim();
  const hole = (token: string): string | undefined => (token.startsWith(HOLE) ? template.holes[Number(token.slice(1, -1))] : undefined);
  // The table as `<callee>\0expr:<expression>` or `<callee>\0lit:<name>`: the read must run through the same call (one
  // connection, one database) and name the table the same way; a hole's expression never equals a literal name.
  const operand = (token: string): string =>
    `${calleeKey(call)}\u0000${hole(token) !== undefined ? `expr:${hole(token)}` : `lit:${token.replace(/^["`[]|["`\]]$/g, '')}`}`;
  const alter = new RegExp(`^alter\\s+table\\s+(\\S+)\\s+add\\s+(?:column\\s+)?(\\S+)`, 'i').exec(statement);
  if (alter) {
    const column = hole(alter[2]!);
    return column !== undefined && /^\w+$/.test(column) && columnGuarded(call, column, operand(alter[1]!), holder, holderModule);
  }
  const create = /^create\s+table\s+([^\s(]+)\s*\(/i.exec(statement);
  return create !== null && tableGuarded(call, operand(create[1]!), holder, holderModule);
}

/** The call that runs the statement: the effect's own, or the one at its line in the helper it came through. */
function statementCall(effect: Effect, fn: PyFunction, module: PyModule): { call: SyntaxNode; fn: PyFunction; module: PyModule } | undefined {
  if (!effect.via) return { call: effect.node, fn, module };
  const holderModule = effect.via.path === module.path ? module : repoIndexOf(module)?.modules.get(effect.via.path);
  const holder = holderModule && functionsByQualname(holderModule).get(effect.via.qualname);
  if (!holder || !holderModule) return undefined;
  const head = (effect.sql?.text ?? '').trim().split(/\s+/).slice(0, 2).join(' ').toLowerCase();
  const calls = scopeFacts(holderModule, holder.node).calls.filter(({ node, range }) => {
    if (range.startLine !== effect.via!.line) return false;
    const text = sqlTemplate(node.childForFieldName('arguments')?.namedChildren[0])?.text.trim();
    return head !== '' && text !== undefined && text.split(/\s+/).slice(0, 2).join(' ').toLowerCase() === head;
  });
  return calls.length === 1 ? { call: calls[0]!.node, fn: holder, module: holderModule } : undefined;
}

/** `self._execute`, `conn.execute`: the call as written, whitespace dropped. */
const calleeKey = (call: SyntaxNode): string => (call.childForFieldName('function')?.text ?? '').replace(/\s+/g, '');

interface Template {
  /** The SQL with each interpolated expression as HOLE<n>HOLE. */
  text: string;
  holes: string[];
}

/** A string literal, f-string, `"..." % (a, b)` or `"...".format(a, b)` as SQL text with holes; undefined otherwise. */
export function sqlTemplate(node: SyntaxNode | null | undefined): Template | undefined {
  if (!node) return undefined;
  if (node.type === 'parenthesized_expression') return sqlTemplate(node.namedChildren[0]);
  if (node.type === 'string' || node.type === 'concatenated_string') {
    const parts = node.type === 'string' ? [node] : node.namedChildren.filter((child) => child.type === 'string');
    const holes: string[] = [];
    let text = '';
    for (const part of parts) {
      for (const child of part.namedChildren) {
        if (child.type === 'string_content') text += child.text;
        else if (child.type === 'interpolation') {
          text += `${HOLE}${holes.length}${HOLE}`;
          holes.push(child.namedChildren[0]?.text ?? '');
        }
      }
    }
    return { text, holes };
  }
  if (node.type === 'binary_operator' && node.childForFieldName('operator')?.text === '%') {
    const left = sqlTemplate(node.childForFieldName('left'));
    const right = node.childForFieldName('right');
    if (!left || left.holes.length > 0 || !right) return undefined;
    const values = right.type === 'tuple' ? right.namedChildren.map((value) => value.text) : [right.text];
    let at = 0;
    const text = left.text.replace(/%[sdr]/g, () => `${HOLE}${at++}${HOLE}`);
    return at === values.length ? { text, holes: values } : undefined;
  }
  return undefined;
}

/** `for c... in L:` (L = [... for ... if c not in NAMES]) or `if c not in NAMES:` around the call, NAMES the read's column names of `table`. */
function columnGuarded(call: SyntaxNode, column: string, table: string, fn: PyFunction, module: PyModule): boolean {
  for (let at = call.parent; at && at.id !== fn.node.id; at = at.parent) {
    if (at.type === 'if_statement' && contains(at.childForFieldName('consequence') ?? at, call)) {
      const tested = notIn(at.childForFieldName('condition'));
      if (tested?.element === column && !reboundWithin(at.childForFieldName('consequence'), column) && columnNames(tested.container, table, fn, module, call)) return true;
    }
    if (at.type !== 'for_statement') continue;
    if (reboundWithin(at.childForFieldName('body'), column)) return false;
    const position = boundAt(at.childForFieldName('left'), column);
    const source = at.childForFieldName('right');
    if (position === undefined || source?.type !== 'identifier') return false;
    const built = assignmentsOf(source.text, fn);
    return built?.length === 1 && built[0]!.endIndex <= at.startIndex && missingFilter(built[0]!, position, table, fn, module, call);
  }
  return false;
}

/** `[(c, t) for c, t in wanted if c not in NAMES]`: the element at `position` is the name the filter tests. */
function missingFilter(comprehension: SyntaxNode, position: number | 'whole', table: string, fn: PyFunction, module: PyModule, call: SyntaxNode): boolean {
  if (comprehension.type !== 'list_comprehension' && comprehension.type !== 'generator_expression') return false;
  const body = comprehension.childForFieldName('body');
  const carried = position === 'whole' ? body : body?.type === 'tuple' || body?.type === 'parenthesized_expression' ? body.namedChildren[position] : undefined;
  const filters = comprehension.namedChildren.filter((child) => child.type === 'if_clause');
  const clauses = comprehension.namedChildren.filter((child) => child.type === 'for_in_clause');
  if (carried?.type !== 'identifier' || filters.length !== 1 || clauses.length !== 1) return false;
  if (boundAt(clauses[0]!.childForFieldName('left'), carried.text) === undefined) return false;
  const tested = notIn(filters[0]!.namedChildren[0]);
  return tested?.element === carried.text && columnNames(tested.container, table, fn, module, call);
}

/** `x not in y` → x's text and y. */
function notIn(condition: SyntaxNode | null | undefined): { element: string; container: SyntaxNode } | undefined {
  if (condition?.type !== 'comparison_operator' || !condition.children.some((child) => child.type === 'not in') || condition.namedChildren.length !== 2) return undefined;
  const [element, container] = condition.namedChildren as [SyntaxNode, SyntaxNode];
  return { element: element.text, container };
}

/** Where a loop target binds the name: the whole target, or its position in a tuple pattern. */
function boundAt(target: SyntaxNode | null, name: string): number | 'whole' | undefined {
  if (target?.type === 'identifier') return target.text === name ? 'whole' : undefined;
  if (target?.type !== 'pattern_list' && target?.type !== 'tuple_pattern') return undefined;
  const at = target.namedChildren.findIndex((child) => child.type === 'identifier' && child.text === name);
  return at < 0 ? undefined : at;
}

/** What a value holds, followed from the PRAGMA read: its rows, rows re-shaped with the name at a field, or the names. */
type Shape = { kind: 'rows'; nameAt: number } | { kind: 'names' };

/** The container is the column names the read returned: a name holding them, or `(n for n, _ in rows)` over one holding rows. */
function columnNames(container: SyntaxNode, table: string, fn: PyFunction, module: PyModule, before: SyntaxNode): boolean {
  if (container.type === 'identifier') return shapeOf(container.text, table, fn, module, before, 0)?.kind === 'names';
  return container.type === 'generator_expression' || container.type === 'list_comprehension' || container.type === 'set_comprehension'
    ? projected(container, table, fn, module, before, 0)?.kind === 'names'
    : false;
}

const MAX_SHAPE = 6;

/** The shape every assignment of the name in the function gives it (each before `before`), when they all agree it comes from the read. */
function shapeOf(name: string, table: string, fn: PyFunction, module: PyModule, before: SyntaxNode, depth: number): Shape | undefined {
  if (depth > MAX_SHAPE) return undefined;
  const assignments = assignmentsOf(name, fn);
  if (!assignments || assignments.length === 0) return undefined;
  if (assignedAgainInLoop(assignments, before, fn)) return undefined;
  const earlier = assignments.filter((value) => value.startIndex < before.startIndex);
  const last = earlier[earlier.length - 1];
  // The last assignment before the use must run whenever the use does: its block holds the use.
  const block = last?.parent?.parent?.parent;
  if (!last || last.parent?.parent?.type !== 'expression_statement' || !block || !contains(block, before)) return undefined;
  return valueShape(last, name, table, fn, module, depth);
}

function valueShape(value: SyntaxNode, name: string, table: string, fn: PyFunction, module: PyModule, depth: number): Shape | undefined {
  if (pragmaRows(value, table, fn, module)) return { kind: 'rows', nameAt: 1 };
  if (value.type === 'list_comprehension' || value.type === 'generator_expression') return projected(value, table, fn, module, value, depth + 1, name);
  return undefined;
}

/** `[(row[1], row[2]) for row in rows]`, `(n for n, _ in pairs)`: what a filter-free comprehension over read rows holds. */
function projected(comprehension: SyntaxNode, table: string, fn: PyFunction, module: PyModule, before: SyntaxNode, depth: number, self?: string): Shape | undefined {
  const clauses = comprehension.namedChildren.filter((child) => child.type === 'for_in_clause');
  if (clauses.length !== 1 || comprehension.namedChildren.some((child) => child.type === 'if_clause')) return undefined;
  const clause = clauses[0]!;
  const source = clause.childForFieldName('right');
  const target = clause.childForFieldName('left');
  if ((source?.type !== 'identifier' && source?.type !== 'call') || !target) return undefined;
  // A name refined from its own earlier value (`available = [... for row in available]`) is read before this assignment.
  const rows: Shape | undefined =
    source.type === 'call'
      ? pragmaRows(source, table, fn, module)
        ? { kind: 'rows', nameAt: 1 }
        : undefined
      : shapeOf(source.text, table, fn, module, source.text === self ? comprehension : before, depth + 1);
  if (rows?.kind !== 'rows') return undefined;
  const nameOf = (node: SyntaxNode | undefined): boolean => {
    if (!node) return false;
    if (target.type === 'identifier' && node.type === 'subscript') {
      const index = node.childForFieldName('subscript');
      return node.childForFieldName('value')?.text === target.text && index?.type === 'integer' && Number(index.text) === rows.nameAt;
    }
    return node.type === 'identifier' && boundAt(target, node.text) === rows.nameAt;
  };
  const body = comprehension.childForFieldName('body');
  if (nameOf(body ?? undefined)) return { kind: 'names' };
  if (body?.type !== 'tuple' && body?.type !== 'parenthesized_expression') return undefined;
  const at = body.namedChildren.findIndex((element) => nameOf(element));
  return at < 0 ? undefined : { kind: 'rows', nameAt: at };
}

/** `cur.fetchall()` (cur holding the read's cursor) or `<read>.fetchall()`: the rows of PRAGMA table_info(<table>). */
function pragmaRows(value: SyntaxNode, table: string, fn: PyFunction, module: PyModule): boolean {
  const callee = value.type === 'call' ? value.childForFieldName('function') : undefined;
  if (callee?.type !== 'attribute' || callee.childForFieldName('attribute')?.text !== 'fetchall') return false;
  const cursor = callee.childForFieldName('object');
  if (cursor?.type === 'call') return pragmaRead(cursor, table, fn, module);
  if (cursor?.type !== 'identifier') return false;
  const assigned = assignmentsOf(cursor.text, fn);
  return assigned?.length === 1 && assigned[0]!.type === 'call' && pragmaRead(assigned[0]!, table, fn, module);
}

/** A call whose first argument is `PRAGMA table_info(<table>)`, the table written as in the DDL and never bound again. */
function pragmaRead(call: SyntaxNode, table: string, fn: PyFunction, module: PyModule): boolean {
  const template = sqlTemplate(call.childForFieldName('arguments')?.namedChildren[0]);
  const read = template && /^\s*pragma\s+table_info\s*\(\s*(\S+?)\s*\)\s*;?\s*$/i.exec(template.text);
  if (!read) return false;
  const token = read[1]!;
  const written = token.startsWith(HOLE) ? `expr:${template.holes[Number(token.slice(1, -1))]}` : `lit:${token.replace(/^["`[]|["`\]]$/g, '')}`;
  if (`${calleeKey(call)}\u0000${written}` !== table) return false;
  // An interpolated table is a parameter the function never binds again, or a local its one assignment binds once per
  // call (gpodder's embedded minidb: `table, slots = self._schema(class_)`): the read and the DDL name one table.
  const name = written.slice('expr:'.length);
  return written.startsWith('lit:') || (fn.params.includes(name) && assignmentsOf(name, fn)?.length === 0) || singleAssignment(name, fn, call) !== undefined;
}

/** `CREATE TABLE` in the else of `if rows:` or under `if not rows:`, rows the read's fetchall() as tested. */
function tableGuarded(call: SyntaxNode, table: string, fn: PyFunction, module: PyModule): boolean {
  for (let child = call, at = call.parent; at && at.id !== fn.node.id; child = at, at = at.parent) {
    if (at.type !== 'if_statement') continue;
    const condition = at.childForFieldName('condition');
    const negated = condition?.type === 'not_operator' ? condition.childForFieldName('argument') : undefined;
    const tested = negated ?? condition;
    const alternatives = at.namedChildren.filter((part) => part.type === 'elif_clause' || part.type === 'else_clause');
    const inElse = alternatives.length === 1 && alternatives[0]!.type === 'else_clause' && alternatives[0]!.id === child.id;
    const inBody = at.childForFieldName('consequence')?.id === child.id;
    if (tested?.type !== 'identifier' || !(negated ? inBody : inElse)) continue;
    // Every assignment before the test is the read itself: a refined list could be empty for a table that exists.
    const assignments = assignmentsOf(tested.text, fn) ?? [];
    if (assignedAgainInLoop(assignments, at, fn)) continue;
    const before = assignments.filter((value) => value.startIndex < at.startIndex);
    if (before.length > 0 && before.every((value) => pragmaRows(value, table, fn, module))) return true;
  }
  return false;
}

/** The name bound again in the region (`name = name.upper()` between the test and the ALTER): the column altered is another. */
function reboundWithin(region: SyntaxNode | null, name: string): boolean {
  return (region?.descendantsOfType('identifier') ?? []).some((use) => {
    const parent = use.parent;
    if (use.text !== name || !parent) return false;
    if (['assignment', 'augmented_assignment', 'for_statement', 'for_in_clause'].includes(parent.type) && parent.childForFieldName('left')?.id === use.id) return true;
    return bindsOtherwise(parent, use);
  });
}

/** An assignment after the use, in a loop around both: the next pass reads that value. */
function assignedAgainInLoop(assignments: readonly SyntaxNode[], use: SyntaxNode, fn: PyFunction): boolean {
  return assignments.some((value) => {
    if (value.startIndex < use.startIndex) return false;
    for (let at = value.parent; at && at.id !== fn.node.id; at = at.parent) {
      if ((at.type === 'for_statement' || at.type === 'while_statement') && contains(at, use)) return true;
    }
    return false;
  });
}

/**
 * The values assigned to the name in the function's own code (`name = value`); undefined when it is bound
 * some other way too (a parameter, a loop or `with` target, a tuple target, augmented, global, walrus).
 */
function assignmentsOf(name: string, fn: PyFunction): SyntaxNode[] | undefined {
  const values: SyntaxNode[] = [];
  const body = fn.node.childForFieldName('body');
  for (const use of body?.descendantsOfType('identifier') ?? []) {
    if (use.text !== name) continue;
    const parent = use.parent;
    if (parent?.type === 'assignment' && parent.childForFieldName('left')?.id === use.id) {
      const value = parent.childForFieldName('right');
      if (!value) return undefined;
      values.push(value);
    } else if (parent && bindsOtherwise(parent, use)) return undefined;
  }
  return values;
}

function bindsOtherwise(parent: SyntaxNode, use: SyntaxNode): boolean {
  if ((parent.type === 'augmented_assignment' || parent.type === 'for_statement') && parent.childForFieldName('left')?.id === use.id) return true;
  return ['pattern_list', 'tuple_pattern', 'as_pattern_target', 'global_statement', 'nonlocal_statement', 'named_expression', 'delete_statement'].includes(parent.type);
}
