import type { Effect, SyntaxNode } from '../model.ts';
import { callParts, walkFunctionBody } from '../body-walk.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { defineRule } from './rule.ts';
import { PATH_OPENERS } from './file-reads.ts';
import { callsItself, caughtClasses, compactText, enclosingLoop, isBefore, mutuallyExclusive, shortText, unparenthesized } from './syntax.ts';

/** `stat` names that grant nothing to the group or to others. */
const OWNER_ONLY_STAT = /^stat\.S_I(RUSR|WUSR|XUSR|RWXU|READ|WRITE|EXEC)$/;

/**
 * A file created with the process's default mode and narrowed by chmod afterwards (keyrings.alt 4.2
 * `Keyring._ensure_file_path`: `with open(path, 'w'): pass`, then `os.chmod(path, 0o600)`): a crash between
 * the two leaves the file readable by other users, and what is written to it later (passwords, keys) with it.
 * Only a chmod that takes group and other bits away is a narrowing; widening after create is harmless.
 * Not paired: a chmod that runs only after the open raised, in an except clause catching only OSError of the try
 * whose only statement the open is (bleachbit's wipe_write makes an existing file writable after EACCES): that
 * open created nothing (see onlyAfterOpenFailed).
 * Partial: a chmod in a helper, a path spelled two ways, and a file created by an earlier call of the function
 * are not followed.
 */
export const permissionsAfterCreate = defineRule({
  meta: {
    id: 'permissions-after-create',
    description: 'A file is created with the default permissions and only then restricted with chmod.',
    category: 'file',
    severity: 'warning',
    messages: {
      narrowedAfterCreate:
        '{{path}} is created with the default permissions and only restricted to {{mode}} at line {{chmodLine}}: a crash between them leaves it readable by other users, with whatever is written to it later',
    },
    hint: 'Create it with its final mode: os.open(path, os.O_WRONLY | os.O_CREAT, 0o600) and os.fdopen(), or narrow os.umask() before creating it.',
  },
  create(context) {
    const fnNode = context.fn.node;
    // Most code never calls chmod: spare it the walks below (they cost most of a standard-library scan).
    if (!context.module.source.includes('chmod') || !fnNode.text.includes('chmod')) return {};
    return {
      'function:exit'() {
        const { chmods, umask } = chmodCalls(fnNode);
        if (chmods.length === 0 || umask) return;
        for (const effect of context.effects) {
          if (effect.kind !== 'file-write' || effect.via) continue;
          const created = createdPath(effect);
          if (!created) continue;
          const chmod = chmods.find(
            (candidate) =>
              candidate.path === compactText(created) &&
              isBefore(effect.node, candidate.node) &&
              !mutuallyExclusive(effect.node, candidate.node, fnNode) &&
              !onlyAfterOpenFailed(effect.node, candidate.node, fnNode),
          );
          if (!chmod) continue;
          context.report({
            node: effect.node,
            messageId: 'narrowedAfterCreate',
            data: { path: shortText(created.text), mode: shortText(chmod.mode), chmodLine: chmod.node.startPosition.row + 1 },
          });
        }
      },
    };
  },
});

interface NarrowingChmod {
  node: SyntaxNode;
  /** The chmod'ed path as compact text. */
  path: string;
  mode: string;
}

/** Exceptions an open raises when it fails at the system call: OSError and its aliases and subclasses. */
const OS_ERRORS = new Set([
  'OSError', 'IOError', 'EnvironmentError', 'PermissionError', 'FileNotFoundError', 'FileExistsError', 'IsADirectoryError',
  'NotADirectoryError', 'InterruptedError', 'BlockingIOError', 'os.error', 'socket.error',
]);

/**
 * The chmod runs only after the open raised (bleachbit 4.4 wipe_contents.wipe_write: `try: f = open(path, 'wb')`,
 * `except IOError as e:` EACCES, `os.chmod(path, 0o200)` to reopen it). What qualifies:
 * - the open is the builtin open, io.open or an object's .open() (not os.open; gzip/codecs/tarfile's included, none
 *   raises an OSError once it has made the file: their headers stay buffered), with no opener= (a callable that may
 *   make the file and then raise); not write_text/write_bytes, whose write may raise OSError after the file is made;
 * - it is a plain `name = open(...)` or bare `open(...)` statement, the only statement of a try body (one before it
 *   may have made the file: `shutil.copyfile(t, p)`, `touch`);
 * - the chmod sits in an except clause of that try catching only OSError and its kin (not bare, not Exception:
 *   text-mode opens raise LookupError for an unknown encoding after the file is made).
 * That clause is reached only when the open raised an OSError, and a failed open system call creates no file, so
 * this open created nothing for the chmod to narrow. Not when a loop of the function holds the try (an earlier
 * pass's open may have made the file), nor in a function that calls itself. Other opens of the path before the try
 * are paired with the chmod as usual. Partial: CPython's open can in principle raise an OSError after the descriptor
 * exists (an fstat failing while the buffer is set up): not told apart; nor a file made by an earlier call of the
 * function.
 */
function onlyAfterOpenFailed(openCall: SyntaxNode, chmod: SyntaxNode, fnNode: SyntaxNode): boolean {
  // Only an open that makes the file and writes nothing: `write_text`/`write_bytes` make it and then write, and the
  // write can raise OSError (ENOSPC, EFBIG) with the file there; an opener= callable may make it and then raise.
  const call = callParts(openCall);
  if (!(['open', 'io.open'].includes(call.callee) || (call.method === 'open' && call.receiver !== undefined && call.callee !== 'os.open')) || call.keywords.has('opener')) return false;
  const statement = openCall.parent?.type === 'expression_statement'
    ? openCall.parent
    : openCall.parent?.type === 'assignment' && openCall.parent.childForFieldName('right')?.id === openCall.id && openCall.parent.childForFieldName('left')?.type === 'identifier'
      ? openCall.parent.parent
      : undefined;
  if (statement?.type !== 'expression_statement' || statement.namedChildren.length !== 1) return false;
  const body = statement.parent;
  const tryStatement = body?.parent;
  if (body?.type !== 'block' || tryStatement?.type !== 'try_statement' || tryStatement.childForFieldName('body')?.id !== body.id) return false;
  // The open is the try body's only statement: one before it may have made the file (`shutil.copyfile(t, p)`, `touch`).
  if (body.namedChildren.filter((child) => child.type !== 'comment').length !== 1) return false;
  const clause = tryStatement.namedChildren.find((child) => child.type === 'except_clause' && child.startIndex <= chmod.startIndex && chmod.endIndex <= child.endIndex);
  if (!clause || !catchesOnlyOsErrors(clause)) return false;
  if (enclosingLoop(tryStatement, fnNode) || callsItself(fnNode)) return false;
  return true;
}

/** `except OSError:`, `except IOError as e:`, `except (OSError, IOError):`: nothing but OSError and its kin. */
function catchesOnlyOsErrors(clause: SyntaxNode): boolean {
  return caughtClasses(clause)?.every((type) => (type.type === 'identifier' || type.type === 'attribute') && OS_ERRORS.has(type.text)) ?? false;
}

/** In one walk of the function's own body: `os.chmod(p, 0o600)` and `p.chmod(0o600)` whose mode leaves group and others nothing, and whether it calls `os.umask`. */
function chmodCalls(fnNode: SyntaxNode): { chmods: NarrowingChmod[]; umask: boolean } {
  const chmods: NarrowingChmod[] = [];
  // `os.umask(...)` anywhere in the function: the creation mode is then the function's own choice.
  let umask = false;
  walkFunctionBody(fnNode, (node) => {
    if (node.type !== 'call') return;
    const call = callParts(node);
    if (call.callee === 'os.umask') umask = true;
    const [path, mode] = call.callee === 'os.chmod' ? [call.positional[0], call.positional[1] ?? call.keywords.get('mode')] : call.method === 'chmod' && call.receiver && call.callee !== 'os.chmod' ? [call.receiver, call.positional[0] ?? call.keywords.get('mode')] : [];
    if (path && mode && ownerOnly(mode, 0)) chmods.push({ node, path: compactText(path), mode: mode.text });
  });
  return { chmods, umask };
}

/** An octal or decimal literal with no group/other bit, `stat.S_IRUSR | stat.S_IWUSR`, or a local name bound to either. */
function ownerOnly(mode: SyntaxNode, depth: number): boolean {
  const value = unparenthesized(mode);
  if (value.type === 'integer') {
    const bits = Number(value.text.replace(/_/g, '').replace(/^0o/i, '0o'));
    return Number.isInteger(bits) && (bits & 0o077) === 0;
  }
  if (value.type === 'attribute') return OWNER_ONLY_STAT.test(value.text);
  if (value.type === 'binary_operator' && value.childForFieldName('operator')?.text === '|') {
    const left = value.childForFieldName('left');
    const right = value.childForFieldName('right');
    return left !== null && right !== null && ownerOnly(left, depth) && ownerOnly(right, depth);
  }
  if (value.type === 'identifier' && depth < 3) {
    const assigned = localAssignmentBefore(value);
    return assigned !== undefined && ownerOnly(assigned, depth + 1);
  }
  return false;
}

/** The path a write can create: `open(p, 'w' | 'a' | 'x' ...)`, `p.open('w')`, `p.write_text()`; not 'r+', which needs the file. */
function createdPath(effect: Effect): SyntaxNode | undefined {
  const call = callParts(effect.node);
  if ((call.method === 'write_text' || call.method === 'write_bytes') && call.receiver) return call.receiver;
  if (effect.mode === undefined || !/[wax]/.test(effect.mode)) return undefined;
  if (PATH_OPENERS.has(call.callee)) return call.positional[0];
  return call.method === 'open' && !call.callee.startsWith('os.') ? call.receiver : undefined;
}
