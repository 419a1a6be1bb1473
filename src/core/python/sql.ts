// What a SQL statement does to a sqlite3 database, and which tables it names.
// Best effort on text as resolved statically: f-string fields stay `{expr}`.
import type { PyModule, SqlInfo, SqlKind, SyntaxNode } from './model.ts';
import { resolveStringAlternatives } from './string-value.ts';

const KIND_BY_KEYWORD: Record<string, SqlKind> = {
  select: 'read', values: 'read', explain: 'read',
  insert: 'write', update: 'write', delete: 'write', replace: 'write', upsert: 'write',
  create: 'ddl', alter: 'ddl', drop: 'ddl', reindex: 'ddl', vacuum: 'ddl', analyze: 'ddl', attach: 'ddl', detach: 'ddl',
  begin: 'begin', savepoint: 'savepoint', release: 'release',
  commit: 'commit', end: 'commit', rollback: 'rollback',
  // PostgreSQL / MySQL session commands: they set up the connection and change no data, like a PRAGMA that sets.
  listen: 'pragma', unlisten: 'pragma', set: 'pragma', reset: 'pragma', discard: 'pragma', show: 'read',
};

/** PRAGMAs whose parenthesised argument names what to read, not a value to set. */
const QUERY_PRAGMAS = new Set([
  'table_info', 'table_xinfo', 'table_list', 'index_info', 'index_xinfo', 'index_list', 'foreign_key_list',
  'foreign_key_check', 'integrity_check', 'quick_check', 'pragma_list', 'function_list', 'module_list',
  'collation_list', 'database_list', 'compile_options',
]);

/** Strongest first: a script's kind is the strongest of its statements. */
const KIND_STRENGTH: SqlKind[] = ['write', 'ddl', 'pragma', 'begin', 'savepoint', 'rollback', 'commit', 'release', 'read', 'unknown'];

/** Classifies one statement or a script (`;`-separated); tables are the union over all statements. */
export function classifySql(text: string): SqlInfo {
  const statements = splitSqlStatements(text);
  const kinds = statements.map(statementKind);
  const tables = [...new Set(statements.flatMap(tablesOf))];
  const kind = kinds.length === 0 ? 'unknown' : kinds.length === 1 ? kinds[0]! : strongest(kinds);
  return { kind, tables, text };
}

function strongest(kinds: SqlKind[]): SqlKind {
  return KIND_STRENGTH.find((kind) => kinds.includes(kind)) ?? 'unknown';
}

/** Statements with comments removed, split at `;` outside quotes; empty ones dropped. */
export function splitSqlStatements(text: string): string[] {
  const statements: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote) {
      current += char;
      if (char === quote) quote = undefined;
      continue;
    }
    if (char === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end - 1;
      continue;
    }
    if (char === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
      current += ' ';
      continue;
    }
    if (char === "'" || char === '"' || char === '`') quote = char;
    if (char === '[') quote = ']';
    if (char === ';') {
      statements.push(current.trim());
      current = '';
      continue;
    }
    current += char;
  }
  statements.push(current.trim());
  return statements.filter((statement) => statement.length > 0);
}

/** The kind of one statement (no `;` inside). */
export function statementKind(statement: string): SqlKind {
  const keyword = /^\(?\s*([a-z]+)/i.exec(statement)?.[1]?.toLowerCase();
  if (!keyword) return 'unknown';
  if (keyword === 'pragma') return pragmaKind(statement);
  if (keyword === 'with') return /\b(insert|update|delete|replace)\b/i.test(withoutStrings(statement)) ? 'write' : 'read';
  return KIND_BY_KEYWORD[keyword] ?? 'unknown';
}

/** A PRAGMA that sets nothing reads, like a SELECT. */
function pragmaKind(statement: string): SqlKind {
  const match = /^pragma\s+(?:[\w"]+\.)?"?(\w+)"?\s*(=|\()?/i.exec(statement);
  if (!match) return 'unknown';
  const [, name = '', operator] = match;
  if (operator === '=') return 'pragma';
  if (operator === '(') return QUERY_PRAGMAS.has(name.toLowerCase()) ? 'read' : 'pragma';
  return 'read';
}

const IDENT = String.raw`(?:"[^"]+"|\x60[^\x60]+\x60|\[[^\]]+\]|[\w{}.]+)`;
const TABLE_PATTERNS: RegExp[] = [
  new RegExp(String.raw`\binsert\s+(?:or\s+\w+\s+)?into\s+(${IDENT})`, 'gi'),
  new RegExp(String.raw`\breplace\s+into\s+(${IDENT})`, 'gi'),
  new RegExp(String.raw`\bupdate\s+(?:or\s+\w+\s+)?(${IDENT})\s+set\b`, 'gi'),
  new RegExp(String.raw`\bdelete\s+from\s+(${IDENT})`, 'gi'),
  new RegExp(String.raw`\b(?:create|alter|drop)\s+(?:temp\s+|temporary\s+|virtual\s+)?table\s+(?:if\s+(?:not\s+)?exists\s+)?(${IDENT})`, 'gi'),
  new RegExp(String.raw`\bcreate\s+(?:unique\s+)?index\s+(?:if\s+not\s+exists\s+)?${IDENT}\s+on\s+(${IDENT})`, 'gi'),
  new RegExp(String.raw`\bjoin\s+(${IDENT})`, 'gi'),
];
const FROM_LIST = new RegExp(String.raw`\bfrom\s+(${IDENT}(?:\s+(?:as\s+)?(?!where\b|join\b|inner\b|left\b|cross\b|natural\b|order\b|group\b|limit\b|on\b)\w+)?(?:\s*,\s*${IDENT}(?:\s+(?:as\s+)?\w+)?)*)`, 'gi');

/** Table names, lower-cased, schema prefix and quotes removed; CTE names and `{placeholders}` left out. */
export function tablesOf(statement: string): string[] {
  const text = withoutStrings(statement);
  const cteNames = new Set([...text.matchAll(/(\w+)\s+as\s*\(/gi)].map((match) => match[1]!.toLowerCase()));
  const found: { at: number; name: string }[] = [];
  for (const pattern of TABLE_PATTERNS) {
    for (const match of text.matchAll(pattern)) found.push({ at: match.index, name: match[1]! });
  }
  for (const match of text.matchAll(FROM_LIST)) {
    for (const item of match[1]!.split(',')) found.push({ at: match.index, name: item.trim().split(/\s+/)[0]! });
  }
  const names = found.sort((a, b) => a.at - b.at).map((entry) => entry.name);
  const tables: string[] = [];
  for (const raw of names) {
    const name = cleanName(raw);
    if (name && !cteNames.has(name) && !tables.includes(name)) tables.push(name);
  }
  return tables;
}

function cleanName(raw: string): string | undefined {
  if (raw.includes('{') || raw.startsWith('(')) return undefined;
  const last = raw.split('.').pop() ?? raw;
  const name = last.replace(/^["`[]|["`\]]$/g, '').toLowerCase();
  return /^\w+$/.test(name) && name !== 'select' ? name : undefined;
}

/** Blanks quoted SQL string values so `'update me'` is not read as UPDATE; quoted identifiers are kept. */
function withoutStrings(statement: string): string {
  return statement.replace(/'(?:[^']|'')*'/g, "''");
}

/** The SQL an argument node evaluates to, classified; `unknown` with `resolvedFrom: 'unresolved'` when it cannot be told. */
export function resolveSql(argument: SyntaxNode | null | undefined, module: PyModule): SqlInfo {
  const values = resolveStringAlternatives(argument, module);
  const [first] = values;
  if (!first) return { kind: 'unknown', tables: [], resolvedFrom: 'unresolved' };
  const infos = values.map((value) => classifySql(value.text));
  // `"BEGIN" if own else "SAVEPOINT sp"`: the strongest alternative speaks for the statement.
  return {
    kind: strongest(infos.map((info) => info.kind)),
    tables: [...new Set(infos.flatMap((info) => info.tables))],
    text: first.text,
    resolvedFrom: first.from,
  };
}
