// A helper's statement whose SQL the reader could not tell, passed in as a local the caller builds from a SELECT:
// `query = """SELECT ... WHERE ..."""`, then `query += " AND a.id IN (...)" % (...)` and `query += " ORDER BY ..."`,
// then `self.fetchall(query, params)` whose `cur.execute(query, params)` is the statement (hamster's
// Storage.__get_facts). The name is bound only by plain assignments of SQL starting with SELECT and by `+=`:
// whatever is appended, the statement still starts with SELECT, and sqlite3 (like any DB-API driver's execute)
// runs one statement per call (a second one after `;` is refused before anything runs), so the call reads and
// writes nothing. Anything else binding the name (a parameter, a tuple target, a loop or `with` target, a walrus,
// `global`/`nonlocal`, `query = query.replace(...)`, `query = other`) or a helper that rebinds its parameter, or
// a statement run by `executescript`, leaves it a possible write. Only on sqlite3 (the helper's module and the
// caller's use sqlite3's connections: psycopg2 runs `SELECT ...; DELETE ...` in one execute, a PostgreSQL function
// called by a SELECT may write, `SELECT ... INTO` creates a table), and only when the statement's text calls no
// function but SQLite's own aggregate and scalar builtins, and no module of the repository registers functions of
// its own (`create_function`, whose Python code may write when a SELECT calls it).
import type { Effect, PyFunction, PyModule, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { repoIndexOf } from '../callgraph.ts';
import { functionsByQualname } from '../local-resolve.ts';
import { resolveSql } from '../sql.ts';
import { contains, isOwnCode, unparenthesized } from './syntax.ts';
import { argumentAt } from './call-sites.ts';
import { driverOf } from './facts.ts';
import { memoizePer } from '../memo.ts';
import type { RepoIndex } from '../callgraph.ts';

/** SQLite's builtins a SELECT may call without writing, and the keywords a parenthesis may follow. */
const SQL_BUILTINS = new Set(['count', 'sum', 'min', 'max', 'avg', 'coalesce', 'ifnull', 'length', 'lower', 'upper', 'substr', 'abs', 'round', 'total', 'group_concat', 'date', 'time', 'datetime', 'strftime', 'julianday', 'json_extract', 'nullif', 'trim', 'ltrim', 'rtrim', 'instr', 'replace', 'typeof', 'cast']);
const SQL_KEYWORDS = new Set(['in', 'exists', 'values', 'from', 'join', 'on', 'using', 'and', 'or', 'not', 'where', 'as', 'when', 'then', 'else', 'select', 'by', 'having', 'match', 'like', 'glob', 'is', 'between', 'over', 'filter', 'distinct', 'all', 'case', 'end', 'escape']);

/** The write is a helper's statement of unseen SQL that the caller (`fn`) builds from a SELECT and only appends to. */
export function readsThroughBuiltSelect(write: Effect, fn: PyFunction, module: PyModule): boolean {
  if (write.kind !== 'db-write' || write.sql?.kind !== 'unknown' || !write.via || !write.viaNode || write.node.type !== 'call') return false;
  const index = repoIndexOf(module);
  const helperModule = write.via.path === module.path ? module : index?.modules.get(write.via.path);
  const helper = helperModule && functionsByQualname(helperModule).get(write.via.qualname);
  if (!helper || !isOwnCode(write.viaNode, helper.node)) return false;
  if (driverOf(helperModule, helper).kind !== 'sqlite3' || driverOf(module, fn).kind !== 'sqlite3') return false;
  if (registersFunctions(module, index)) return false;
  const inner = callParts(write.viaNode);
  if (!/^(execute|executemany)$/.test(inner.method ?? '')) return false;
  const statement = inner.positional[0];
  if (statement?.type !== 'identifier' || !helper.params.includes(statement.text)) return false;
  // the helper passes its parameter on as it came.
  const inHelper = bindingsOf(statement.text, helper.node);
  if (!inHelper || inHelper.plain.length > 0 || inHelper.appended.length > 0) return false;
  const unbound = callParts(write.node).receiver?.text === helper.className?.split('.').pop();
  const argument = argumentAt(write.node, statement.text, helper.params.indexOf(statement.text), helper, unbound);
  if (argument === undefined || argument === 'splat') return false;
  const value = unparenthesized(argument);
  if (value.type !== 'identifier' || fn.params.includes(value.text) || !contains(fn.node, value)) return false;
  const bound = bindingsOf(value.text, fn.node);
  if (!bound || bound.plain.length === 0) return false;
  if (![...bound.plain, ...bound.appended].every((value) => callsOnlyBuiltins(value, module))) return false;
  return bound.plain.every((right) => startsWithSelect(right, module));
}

/** The SQL the value spells (its resolved text, and each string literal in it) calls no function but SQLite's builtins, and selects INTO nothing. */
function callsOnlyBuiltins(value: SyntaxNode, module: PyModule): boolean {
  const texts = [resolveSql(value, module).text ?? '', ...(value.type === 'string' ? [value] : value.descendantsOfType('string')).map((string) => string.text)];
  return texts.every((text) => {
    if (/\binto\b/i.test(text)) return false;
    for (const match of text.matchAll(/([A-Za-z_][\w.]*)\s*\(/g)) {
      const name = match[1]!.toLowerCase();
      if (!SQL_BUILTINS.has(name) && !SQL_KEYWORDS.has(name)) return false;
    }
    return true;
  });
}

/** Some module of the repository (or this one, read alone) registers a SQL function, aggregate or collation of Python code. */
function registersFunctions(module: PyModule, index: RepoIndex | undefined): boolean {
  const modules = index ? [...index.modules.values()] : [module];
  return modules.some((each) => registers(each));
}

const registers = memoizePer((module: PyModule): boolean => /\b(create_function|create_aggregate|create_window_function)\s*\(/.test(module.source));

function startsWithSelect(value: SyntaxNode, module: PyModule): boolean {
  const sql = resolveSql(value, module);
  const text = (sql.text ?? '').replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*/, '');
  return sql.kind === 'read' && /^select\b/i.test(text);
}

/** Binding forms whose target may be a bare name: anything else binding it makes the answer undefined. */
const BINDERS = new Set(['for_statement', 'for_in_clause', 'named_expression', 'as_pattern', 'as_pattern_target', 'global_statement', 'nonlocal_statement', 'delete_statement', 'parameters', 'lambda_parameters', 'default_parameter', 'typed_parameter', 'typed_default_parameter', 'import_statement', 'import_from_statement', 'aliased_import', 'case_clause', 'except_clause', 'pattern_list', 'tuple_pattern', 'list_pattern', 'list_splat_pattern', 'keyword_pattern']);

/**
 * The name's bindings in the function: the right sides of its plain `name = value` statements and of its `name += value`;
 * undefined when anything else binds it (in the function or, by `nonlocal`/`global`, in a nested one), or a
 * nested function or class is named so.
 */
function bindingsOf(name: string, fnNode: SyntaxNode): { plain: SyntaxNode[]; appended: SyntaxNode[] } | undefined {
  const plain: SyntaxNode[] = [];
  const appended: SyntaxNode[] = [];
  const body = fnNode.childForFieldName('body');
  if (!body) return undefined;
  for (const statement of fnNode.descendantsOfType(['global_statement', 'nonlocal_statement'])) {
    if (statement.namedChildren.some((child) => child.text === name)) return undefined;
  }
  for (const definition of body.descendantsOfType(['function_definition', 'class_definition'])) {
    if (definition.childForFieldName('name')?.text === name) return undefined;
  }
  for (const identifier of body.descendantsOfType('identifier')) {
    if (identifier.text !== name || !isOwnCode(identifier, fnNode)) continue;
    const parent = identifier.parent;
    if (!parent) return undefined;
    if (parent.type === 'assignment' && parent.childForFieldName('left')?.id === identifier.id) {
      const right = parent.childForFieldName('right');
      // `a = query = "..."` chains and annotated names without a value are not followed.
      if (!right || right.type === 'assignment' || parent.parent?.type !== 'expression_statement') return undefined;
      plain.push(right);
      continue;
    }
    if (parent.type === 'augmented_assignment' && parent.childForFieldName('left')?.id === identifier.id) {
      if (parent.childForFieldName('operator')?.text !== '+=') return undefined;
      appended.push(parent.childForFieldName('right')!);
      continue;
    }
    // a name inside a binding target of another form: a loop or `with` target, a tuple, a walrus, a parameter.
    for (let node: SyntaxNode | null = parent, child: SyntaxNode = identifier; node && node.id !== fnNode.id; child = node, node = node.parent) {
      if (BINDERS.has(node.type) && bindsAt(node, child)) return undefined;
      if (node.type === 'assignment' || node.type === 'augmented_assignment') {
        if (node.childForFieldName('left')?.id === child.id) return undefined;
        break;
      }
      if (/statement$|^block$/.test(node.type)) break;
    }
  }
  return { plain, appended };
}

/** `child` sits where `binder` binds a name (its target), not in the value it reads. */
function bindsAt(binder: SyntaxNode, child: SyntaxNode): boolean {
  switch (binder.type) {
    case 'for_statement':
    case 'for_in_clause':
      return binder.childForFieldName('left')?.id === child.id;
    case 'named_expression':
      return binder.childForFieldName('name')?.id === child.id;
    case 'as_pattern':
      return binder.childForFieldName('alias')?.id === child.id;
    case 'except_clause':
      // `except E as name`: the name after `as`.
      return child.type === 'identifier' && child.previousSibling?.type === 'as';
    default:
      return true;
  }
}
