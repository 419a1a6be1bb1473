// Which outside-world effect a single call has: database, file or send.
// Judged from the call as written; the receiver's type is unknown to a
// static reader, so method names carry the weight, as a reviewer's eye does.
import type { EffectKind, PyModule, SqlInfo, SqlKind, SyntaxNode } from './model.ts';
import type { CallParts } from './body-walk.ts';
import { resolveSql } from './sql.ts';
import { localAssignmentBefore } from './local-assignments.ts';
import { resolveString } from './string-value.ts';
import { rewindsThenWrites } from './rewind-write.ts';

export interface CallEffect {
  kind: EffectKind;
  sql?: SqlInfo;
  mode?: string;
  idempotencyKey?: boolean;
}

const DB_KIND_BY_SQL: Record<SqlKind, EffectKind> = {
  read: 'db-read',
  write: 'db-write',
  ddl: 'db-ddl',
  // A PRAGMA that sets something changes the database or the connection: treat it like DDL.
  pragma: 'db-ddl',
  begin: 'db-begin',
  savepoint: 'db-begin',
  release: 'db-commit',
  commit: 'db-commit',
  rollback: 'db-rollback',
  // SQL that cannot be resolved statically may write; a crash test is the cheaper mistake.
  unknown: 'db-write',
};

const FILE_OPENERS = new Set(['open', 'io.open', 'codecs.open', 'builtins.open', 'gzip.open', 'bz2.open', 'lzma.open', 'tarfile.open', 'os.fdopen']);
const RENAMES = new Set(['os.rename', 'os.renames', 'shutil.move']);
const REPLACES = new Set(['os.replace']);
const DELETES = new Set(['os.remove', 'os.unlink', 'os.rmdir', 'os.removedirs', 'shutil.rmtree']);
const COPIES = new Set(['shutil.copy', 'shutil.copy2', 'shutil.copyfile', 'shutil.copytree']);
const TEMP_FILES = new Set(['tempfile.NamedTemporaryFile', 'NamedTemporaryFile', 'tempfile.mkstemp', 'mkstemp']);
const SEND_METHODS = new Set(['send', 'send_email', 'send_mail', 'sendmail', 'send_message']);
const HTTP_WRITE_METHODS = new Set(['post', 'put', 'patch', 'delete']);
const HTTP_RECEIVER = /(^|\.)(requests|httpx|session|client|http|api)$|session$|client$/i;
const OS_WRITE_FLAGS = /O_(WRONLY|RDWR|CREAT|APPEND|TRUNC)/;

/** Every last name of a callee that callEffect can judge an effect: a cheap test that spares most calls the full look. */
const EFFECT_NAMES = new Set([
  'execute', 'executemany', 'executescript', 'commit', 'rollback',
  'open', 'write_text', 'write_bytes', 'write', 'fdopen', 'rename', 'renames', 'replace', 'move',
  'remove', 'unlink', 'rmdir', 'removedirs', 'rmtree', 'copy', 'copy2', 'copyfile', 'copytree',
  'NamedTemporaryFile', 'mkstemp', 'request', 'urlopen',
  ...SEND_METHODS, ...HTTP_WRITE_METHODS,
]);

/** The effect kind of a database call running this SQL. */
export function dbKindOf(sql: SqlInfo): EffectKind {
  return DB_KIND_BY_SQL[sql.kind];
}

export function mayHaveEffect(callee: string): boolean {
  const name = /(\w+)\s*$/.exec(callee)?.[1];
  return name !== undefined && EFFECT_NAMES.has(name);
}

export function callEffect(call: CallParts, module: PyModule, node?: SyntaxNode): CallEffect | undefined {
  const { method, positional, keywords, receiver } = call;
  const hasReceiver = receiver !== undefined;

  if (hasReceiver && (method === 'execute' || method === 'executemany') && positional.length > 0) {
    const sql = resolveSql(positional[0], module);
    return { kind: DB_KIND_BY_SQL[sql.kind], sql };
  }
  if (hasReceiver && method === 'executescript') {
    return { kind: 'db-script', sql: resolveSql(positional[0] ?? keywords.get('sql_script'), module) };
  }
  if (hasReceiver && method === 'commit' && positional.length === 0) return { kind: 'db-commit' };
  if (hasReceiver && method === 'rollback' && positional.length === 0) return { kind: 'db-rollback' };

  // The whole file rewritten through a handle opened elsewhere (tinydb's JSONStorage.write).
  if (node && rewindsThenWrites(call, node)) return { kind: 'file-write' };
  return fileEffect(call, module) ?? sendEffect(call, module);
}

function fileEffect(call: CallParts, module: PyModule): CallEffect | undefined {
  const { callee, method, positional, keywords, receiver } = call;
  if (FILE_OPENERS.has(callee)) {
    // `tarfile.open(None, 'w:gz', buf)`: no name, the archive goes to the file object it is handed.
    const pathNode = positional[0] ?? keywords.get('name') ?? keywords.get('file') ?? keywords.get('filename');
    if (pathNode?.type === 'none') return undefined;
    const modeNode = keywords.get('mode') ?? positional[1];
    if (!modeNode) return undefined;
    const mode = resolveString(modeNode, module)?.text;
    if (mode === undefined) return { kind: 'file-write' };
    return isWriteMode(mode) ? { kind: 'file-write', mode } : undefined;
  }
  if (callee === 'os.open') {
    const flags = positional[1]?.text ?? keywords.get('flags')?.text ?? '';
    return OS_WRITE_FLAGS.test(flags) ? { kind: 'file-write', mode: flags.replace(/\s+/g, ' ') } : undefined;
  }
  if (receiver && method === 'open') {
    // Path.open(mode): the mode is the first argument.
    const modeNode = keywords.get('mode') ?? positional[0];
    const mode = modeNode ? resolveString(modeNode, module)?.text : undefined;
    return mode !== undefined && /^[rwxabtU+]+$/.test(mode) && isWriteMode(mode) ? { kind: 'file-write', mode } : undefined;
  }
  if (receiver && (method === 'write_text' || method === 'write_bytes')) return { kind: 'file-write' };
  if (callee === 'os.write') return { kind: 'file-write' };
  if (COPIES.has(callee)) return { kind: 'file-write' };
  if (TEMP_FILES.has(callee)) {
    const mode = resolveString(keywords.get('mode') ?? positional[0], module)?.text ?? 'w+b';
    return { kind: 'file-write', mode };
  }
  if (RENAMES.has(callee)) return { kind: 'file-rename' };
  if (REPLACES.has(callee)) return { kind: 'file-replace' };
  if (DELETES.has(callee)) return { kind: 'file-delete' };
  // Path.rename/replace take exactly one target; str.replace takes two, datetime.replace keywords only.
  const singleTarget = positional.length === 1 && keywords.size === 0 && receiver?.type !== 'string';
  if (receiver && method === 'rename' && singleTarget) return { kind: 'file-rename' };
  if (receiver && method === 'replace' && singleTarget) return { kind: 'file-replace' };
  if (receiver && (method === 'unlink' || method === 'rmdir') && positional.length === 0) return { kind: 'file-delete' };
  return undefined;
}

function sendEffect(call: CallParts, module: PyModule): CallEffect | undefined {
  const { callee, method, positional, keywords, receiver } = call;
  const idempotencyKey = passesIdempotencyKey(call);
  if (SEND_METHODS.has(method) && (receiver !== undefined || method !== 'send') && positional.length + keywords.size > 0) {
    return { kind: 'send', idempotencyKey };
  }
  if (receiver && HTTP_WRITE_METHODS.has(method) && HTTP_RECEIVER.test(callee.slice(0, -(method.length + 1)))) {
    return { kind: 'send', idempotencyKey };
  }
  if (/^(requests|httpx)\.request$/.test(callee) || /(session|client)\.request$/i.test(callee)) {
    const verb = resolveString(positional[0] ?? keywords.get('method'), module)?.text.toUpperCase();
    return verb === undefined || ['POST', 'PUT', 'PATCH', 'DELETE'].includes(verb) ? { kind: 'send', idempotencyKey } : undefined;
  }
  if (callee === 'urlopen' || callee.endsWith('request.urlopen')) {
    const target = positional[0];
    const sendsData = positional.length > 1 || keywords.has('data') || (target?.type === 'call' && requestHasBody(target, module));
    return sendsData ? { kind: 'send', idempotencyKey } : undefined;
  }
  return undefined;
}

/** `Request(url, data=...)` or `Request(url, method="POST")` built inline. */
function requestHasBody(request: SyntaxNode, module: PyModule): boolean {
  const args = request.childForFieldName('arguments')?.namedChildren ?? [];
  return args.some((argument) => {
    if (argument.type !== 'keyword_argument') return args.indexOf(argument) === 1;
    const name = argument.childForFieldName('name')?.text;
    if (name === 'data') return true;
    const verb = name === 'method' ? resolveString(argument.childForFieldName('value'), module)?.text.toUpperCase() : undefined;
    return verb !== undefined && verb !== 'GET' && verb !== 'HEAD';
  });
}

/** `idempotency_key=...` or an `Idempotency-Key` header written in the call. */
function passesIdempotencyKey(call: CallParts): boolean {
  if ([...call.keywords.keys()].some((name) => /idempotency[_-]?key/i.test(name))) return true;
  if (/idempotency[_-]?key/i.test(call.argumentList?.text ?? '')) return true;
  const headers = call.keywords.get('headers');
  const headersValue = headers?.type === 'identifier' ? localAssignmentBefore(headers) : undefined;
  return headersValue !== undefined && /idempotency[_-]?key/i.test(headersValue.text);
}

export function isWriteMode(mode: string): boolean {
  return /[wax+]/.test(mode);
}
