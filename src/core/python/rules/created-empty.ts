// An open in a writing mode that can only make an empty file: it is reached only while its path is absent
// (absent-target-guard.ts, reachedOnlyWhenAbsent: after a test that leaves when the file exists, or inside
// `if not os.path.exists(path):`), and nothing is written through its handle (a bare `open(path, 'w')`
// statement, `open(path, 'w').close()`, a `with` block or a local handle only flushed, fsynced or closed).
// No old contents exist to lose, and all a crash can leave is no file or the empty file the open means to
// make, which a re-run's existence test then rightly takes as made: ranger's Tags.__init__ and load_settings,
// deluge's create_auth_file, Quod Libet's RootPathFile.valid probe.
// Both halves are needed. Writing nothing alone is not enough: an existing file emptied that way and refilled
// by an append elsewhere loses its contents to a crash in between. Absence alone is not enough either: a new
// file written with contents and torn by a crash passes the re-run's existence test as if whole (Quod Libet's
// DownloadProgress skips a download whose file exists).
// And a third: what the re-run's existence test then skips (all of the `if not exists(path)` body or arm, the rest of
// the function after `if exists(path): return`, the loop body after a continue or break) does nothing but log, chmod,
// chown, test or remove the path and close the handle (skippedDoesNothing): a crash between making the empty file and
// filling it (a method, gpg, sqlite3, a header, the work a marker stands for) leaves an empty file the re-run's test
// takes as made, never filled (review 26b).
// Stop 27: (1) nothing written also covers `h.write('#\n')` into a .py file (writesCommentOnly: printable ASCII of
// blank and `#` lines, no `coding`, no escape but \n \r \t): any prefix a crash leaves is the same empty module
// (sqlobject's load_module_from_name, which makes a missing package __init__.py). (2) A raise in an except clause of a
// try holding only the open is not skipped work: the open failed, no file was made.
// Partial: a caller that fills the file after calling the function, itself behind an existence test, is not
// followed (deluge's create_localclient_account writes the auth file create_auth_file made, and __load_auth_file
// calls it only when the file is absent; deluge re-adds the missing account on load, so it heals). Nor is a
// property's work (an attribute read is not a call here). A handle handed to anything (a
// function, an attribute, a global, a return) counts as written; a write of the same path by a helper reached
// through another spelling is not seen, nor another function's write between the test and the open in another
// thread (a race, not a crash-safety question).
import type { Effect, PyModule, SyntaxNode } from '../model.ts';
import { repoIndexOf } from '../callgraph.ts';
import { callParts } from '../body-walk.ts';
import { PATH_OPENERS } from './file-reads.ts';
import { reachedOnlyWhenAbsent, samePath, type SkippedOnRerun } from './absent-target-guard.ts';
import { compactText, contains, literalText, rootOf, unparenthesized } from './syntax.ts';
import { localAssignmentBefore } from '../local-assignments.ts';

/** Openers that write a header or trailer of their own on close, with nothing written through them. */
const HEADER_WRITING_OPENERS = new Set(['gzip.open', 'bz2.open', 'lzma.open', 'tarfile.open']);

/** Calls on the handle that put no bytes in the file. */
const QUIET_METHODS = new Set(['close', 'flush']);

export function createsEmptyWhenAbsent(target: SyntaxNode, write: Effect, fnNode: SyntaxNode, effects: readonly Effect[], module?: PyModule): boolean {
  const openCall = write.node;
  if (openCall.type !== 'call' || !write.mode?.includes('w')) return false;
  const call = callParts(openCall);
  const opened = PATH_OPENERS.has(call.callee) ? call.positional[0] : call.method === 'open' ? call.receiver : undefined;
  if (!opened || opened.id !== target.id || HEADER_WRITING_OPENERS.has(call.callee)) return false;
  const handle = writesNothingThrough(openCall, target, fnNode);
  if (handle === false) return false;
  // Another write of the same path in the function (an append after the open, say) may put contents in it.
  const path = compactText(target);
  if (effects.some((effect) => effect.kind === 'file-write' && effect.node.id !== openCall.id && namesPath(effect.node, path))) return false;
  // Comment text written: only while no other code reads, compares, appends to or writes that file (commentFileLeftAlone).
  if (handle !== undefined && writesThroughHandle(handle, fnNode) && !commentFileLeftAlone(target, openCall, fnNode, module)) return false;
  return reachedOnlyWhenAbsent(target, openCall, fnNode, effects, (skipped) => skippedDoesNothing(skipped, { openCall, target, handle, fnNode }));
}

/**
 * Nothing is written through what `open(...)` returns: the call is a statement of its own, is closed at once, is
 * the unnamed item of a `with`, or is bound (by `with ... as h` or `h = open(...)`) to a plain name whose every
 * other mention in the function is `h.close()`, `h.flush()` or `os.fsync(h.fileno())` as a statement. Gives the
 * handle's name (undefined when unnamed), or false.
 */
function writesNothingThrough(openCall: SyntaxNode, target: SyntaxNode, fnNode: SyntaxNode): string | undefined | false {
  const parent = openCall.parent;
  if (!parent) return false;
  if (parent.type === 'expression_statement') return undefined;
  if (parent.type === 'attribute' && parent.childForFieldName('attribute')?.text === 'close') {
    const closing = parent.parent;
    return closing?.type === 'call' && noArguments(closing) && closing.parent?.type === 'expression_statement' ? undefined : false;
  }
  if (parent.type === 'with_item') return undefined;
  let handle: SyntaxNode | null = null;
  if (parent.type === 'as_pattern' && parent.parent?.type === 'with_item') {
    const alias = parent.childForFieldName('alias');
    handle = alias?.type === 'as_pattern_target' ? (alias.namedChildren[0] ?? null) : alias;
  } else if (parent.type === 'assignment' && parent.childForFieldName('right')?.id === openCall.id) {
    handle = parent.childForFieldName('left');
  }
  if (handle?.type !== 'identifier') return false;
  const name = handle.text;
  const body = fnNode.childForFieldName('body');
  if (!body) return false;
  return body.descendantsOfType('identifier').every((mention) => mention.text !== name || mention.id === handle.id || quietUse(mention) || writesCommentOnly(mention, target)) ? name : false;
}

/**
 * `h.write('#\n')` as a statement, into a .py file (sqlobject's load_module_from_name makes a missing package
 * __init__.py so): text of only blank and `#` comment lines, so any prefix a crash leaves is the same empty module.
 * Not a comment naming an encoding (`# -*- coding: latin-1 -*-` cut to `coding: lat` is a SyntaxError), nor any
 * other file type, nor text with code in it.
 */
function writesCommentOnly(mention: SyntaxNode, target: SyntaxNode): boolean {
  const attribute = mention.parent;
  if (attribute?.type !== 'attribute' || attribute.childForFieldName('object')?.id !== mention.id || attribute.childForFieldName('attribute')?.text !== 'write') return false;
  const call = attribute.parent;
  if (call?.type !== 'call' || call.parent?.type !== 'expression_statement') return false;
  return commentOnlyWrite(call, target);
}

function commentOnlyWrite(call: SyntaxNode, target: SyntaxNode): boolean {
  const parts = callParts(call);
  const [text] = parts.positional;
  if (parts.positional.length !== 1 || parts.keywords.size > 0 || text?.type !== 'string' || text.namedChildren.some((child) => child.type === 'interpolation')) return false;
  const value = decodedText(text);
  // Not a shebang: a cut `#!/usr/bin/en` makes every exec of the file fail, where an empty file would not.
  if (value === undefined || /^\s*#!/.test(value)) return false;
  return pythonSourceLiteral(target) !== undefined && !/coding/i.test(value) && value.split(/\r?\n|\r/).every((line) => /^[ \t]*(#.*)?$/.test(line));
}

function writesThroughHandle(handle: string, fnNode: SyntaxNode): boolean {
  return fnNode.descendantsOfType('call').some((call) => {
    const parts = callParts(call);
    return parts.receiver?.type === 'identifier' && parts.receiver.text === handle && /^write/.test(parts.method);
  });
}

const EXISTENCE_TESTS = new Set(['os.path.exists', 'os.path.isfile', 'os.path.lexists', 'exists', 'isfile']);
const PATH_KEEPING = new Set([...EXISTENCE_TESTS, 'os.chmod', 'os.chown']);

/**
 * The comment is the same empty module to an import, not to code that reads the text (a schema stamp parsed back, a
 * marker compared before a delete) nor to a writer that appends after it (a caller that creates the file and then
 * adds imports, skipped by its own existence test on a re-run): no such code may reach the file. In the function, the
 * path's name is only bound, tested for existence, chmodded or opened by this open; in the repository's modules (the
 * writer's own when the scan gave none), the file's name (the '.py' literal of its path) appears in no other string
 * but a docstring, a message (a raise's or a log call's), a name compared as such (`fname != '__init__.py'` in a
 * listing), and this function's own binding, open and existence tests of the path. Partial: a reader that finds the
 * file by listing its folder or globbing '*.py' is not seen.
 */
function commentFileLeftAlone(target: SyntaxNode, openCall: SyntaxNode, fnNode: SyntaxNode, module?: PyModule): boolean {
  const literal = pythonSourceLiteral(target);
  if (!literal) return false;
  const fileName = literalText(literal).split(/[\\/]/).at(-1) ?? '';
  if (fileName === '') return false;
  // Nodes of the function that may name the path: its open, the existence tests, chmod and chown of it, its binding.
  const kept: SyntaxNode[] = [openCall];
  for (const call of fnNode.descendantsOfType('call')) if (PATH_KEEPING.has(callParts(call).callee)) kept.push(call);
  const binding = target.type === 'identifier' ? localAssignmentBefore(target) : undefined;
  if (binding) kept.push(binding);
  const keptHere = (node: SyntaxNode): boolean => contains(fnNode, node) && kept.some((outer) => contains(outer, node));
  if (target.type === 'identifier') {
    const body = fnNode.childForFieldName('body');
    const used = body?.descendantsOfType('identifier').every((mention) => {
      if (mention.text !== target.text || keptHere(mention)) return true;
      const assignment = mention.parent;
      return assignment?.type === 'assignment' && assignment.childForFieldName('left')?.id === mention.id;
    });
    if (!used) return false;
  }
  const modules = module ? [module, ...(repoIndexOf(module)?.modules.values() ?? [])] : [];
  const roots = modules.length > 0 ? modules.map((each) => each.tree.rootNode) : [rootOf(fnNode)];
  return roots.every((root) => root.descendantsOfType('string').every((string) => !string.text.includes(fileName) || keptHere(string) || onlyNamesTheFile(string)));
}

/** A docstring, a message (a raise's, a log call's), or a file name compared as a name. */
function onlyNamesTheFile(string: SyntaxNode): boolean {
  const parent = string.parent;
  if (parent?.type === 'expression_statement') return true;
  if (parent?.type === 'comparison_operator') return true;
  for (let up = string.parent; up; up = up.parent) {
    if (up.type === 'raise_statement') return true;
    if (up.type === 'call') {
      const parts = callParts(up);
      if (LOG_METHODS.has(parts.method) && parts.receiver && LOGGER_NAME.test(compactText(parts.receiver).split('.').at(-1) ?? '')) return true;
      // Only an error's constructor between the string and the raise: not `raise E(open(p).read())`.
      if (!/^[A-Z]\w*$/.test(parts.callee)) return false;
    }
    if (up.type === 'expression_statement' || up.type === 'block' || up.type === 'function_definition') return false;
  }
  return false;
}

/**
 * A plain or bytes literal's text with \\n, \\r and \\t decoded; undefined for another escape, a raw or f-string,
 * or anything but printable ASCII (a cut inside a multi-byte character is a SyntaxError).
 */
function decodedText(literal: SyntaxNode): string | undefined {
  const prefix = /^[a-zA-Z]*/.exec(literal.text)?.[0] ?? '';
  if (/[rRfF]/.test(prefix)) return undefined;
  const raw = literalText(literal);
  if (/\\[^nrt]/.test(raw) || /\\$/.test(raw)) return undefined;
  const value = raw.replace(/\\n/g, '\n').replace(/\\r/g, '\r').replace(/\\t/g, '\t');
  return /^[\t\n\r -~]*$/.test(value) ? value : undefined;
}

/**
 * The '.py' literal ending a path that names a .py file: a literal, `x + '.py'`, `os.path.join(..., 'name.py')`, or
 * a local bound once to one (`'__init__.py'` of `os.path.join(d, '__init__.py')`).
 */
function pythonSourceLiteral(path: SyntaxNode): SyntaxNode | undefined {
  const value = path.type === 'identifier' ? localAssignmentBefore(path) : unparenthesized(path);
  if (!value) return undefined;
  const last = value.type === 'call' && callParts(value).callee === 'os.path.join' ? callParts(value).positional.at(-1) : value.type === 'binary_operator' ? value.childForFieldName('right') : value;
  return last?.type === 'string' && !last.namedChildren.some((child) => child.type === 'interpolation') && /\.py$/.test(literalText(last)) ? last : undefined;
}

/** `h.close()` or `h.flush()` as a statement, or `os.fsync(h.fileno())` as one. */
function quietUse(mention: SyntaxNode): boolean {
  const attribute = mention.parent;
  if (attribute?.type !== 'attribute' || attribute.childForFieldName('object')?.id !== mention.id) return false;
  const method = attribute.childForFieldName('attribute')?.text ?? '';
  const call = attribute.parent;
  if (call?.type !== 'call' || call.childForFieldName('function')?.id !== attribute.id || !noArguments(call)) return false;
  if (QUIET_METHODS.has(method)) return call.parent?.type === 'expression_statement';
  if (method !== 'fileno') return false;
  const argumentList = call.parent;
  const sync = argumentList?.parent;
  return (
    argumentList?.type === 'argument_list' &&
    argumentList.namedChildren.length === 1 &&
    sync?.type === 'call' &&
    callParts(sync).callee === 'os.fsync' &&
    sync.parent?.type === 'expression_statement'
  );
}

function noArguments(call: SyntaxNode): boolean {
  return (call.childForFieldName('arguments')?.namedChildren.filter((child) => child.type !== 'comment').length ?? 1) === 0;
}

/** A write call (or a helper's call carrying one) that is handed the path or called on it. */
function namesPath(node: SyntaxNode, path: string): boolean {
  const call = callParts(node);
  return [call.receiver, ...call.positional, ...call.keywords.values()].some((argument) => argument !== undefined && compactText(unparenthesized(argument)) === path);
}

/** Logging calls: `LOG.debug(...)`, `logger.info(...)`, `logging.warning(...)`, `self._log.error(...)`. */
const LOG_METHODS = new Set(['debug', 'info', 'warning', 'warn', 'error', 'exception', 'critical', 'log']);
const LOGGER_NAME = /^_*(log|logger|logging)$/i;
/** Calls that put nothing in the file nor anywhere a later run relies on, with the path as their first argument. */
const PATH_ONLY_CALLS = new Set(['os.chmod', 'os.chown', 'os.remove', 'os.unlink']);
const LITERALS = new Set(['true', 'false', 'none', 'integer', 'float', 'string']);

interface Opened {
  openCall: SyntaxNode;
  target: SyntaxNode;
  handle: string | undefined;
  fnNode: SyntaxNode;
}

/**
 * What the re-run's existence test skips does nothing a crash right after the open would leave undone for good: its
 * calls are only os.chmod/os.chown/os.remove/os.unlink of the path, the existence test again, logging, and closing,
 * flushing or fsyncing the handle (the call's path argument is not looked into); no other call (a method that fills
 * the file, a subprocess, a library writing into it), no `with` of anything but the open, no raise, yield, del, global
 * or assignment (but `h = open(...)` and a plain name set in an except clause, where the open failed); a return gives back what the re-run returns instead (the same name, not assigned
 * after the test but in an except clause, or the same literal; a bare return or None only where the function returns
 * nothing else anywhere): a caller told "created" may go on to fill the file.
 */
function skippedDoesNothing(skipped: SkippedOnRerun, opened: Opened): boolean {
  const { container, from } = skipped;
  const inside = (node: SyntaxNode): boolean => node.startIndex >= from && node.endIndex <= container.endIndex;
  // The open itself, an existence test of the path, and the path handed to os.chmod and the like are not looked into.
  const exempt: SyntaxNode[] = [opened.openCall];
  const pathOnly = new Set<number>();
  const calls = container.descendantsOfType('call').filter(inside);
  for (const call of calls) {
    const parts = callParts(call);
    if (PATH_ONLY_CALLS.has(parts.callee) && parts.positional[0] && samePath(unparenthesized(parts.positional[0]), opened.target)) {
      exempt.push(parts.positional[0]);
      pathOnly.add(call.id);
    } else if (skipped.testsPresence(call)) exempt.push(call);
  }
  // A raise where the open itself failed (an except clause of a try holding only the open): no file was made.
  for (const raise of container.descendantsOfType('raise_statement').filter(inside)) if (raisedWhereOpenFailed(raise, opened.openCall)) exempt.push(raise);
  const isExempt = (node: SyntaxNode): boolean => exempt.some((range) => node.startIndex >= range.startIndex && node.endIndex <= range.endIndex);
  for (const call of calls) {
    if (isExempt(call) || pathOnly.has(call.id) || allowedCall(call, opened)) continue;
    return false;
  }
  const statements = container
    .descendantsOfType(['raise_statement', 'yield', 'await', 'delete_statement', 'with_statement', 'assignment', 'augmented_assignment', 'named_expression', 'return_statement', 'global_statement', 'nonlocal_statement'])
    .filter(inside);
  for (const statement of statements) {
    if (isExempt(statement)) continue;
    if (statement.type === 'with_statement') {
      if (statement.startIndex <= opened.openCall.startIndex && statement.endIndex >= opened.openCall.endIndex && withOnlyOpens(statement, opened.openCall)) continue;
      return false;
    }
    // `h = open(...)`, or a name given a value where the open failed; no flag a later step may fill the file on.
    if (statement.type === 'assignment' && statement.childForFieldName('left')?.type === 'identifier') {
      if (statement.childForFieldName('right')?.id === opened.openCall.id || withinExcept(statement, container)) continue;
    }
    if (statement.type === 'return_statement') {
      if (returnsWhatRerunReturns(statement, skipped, opened.fnNode)) continue;
      return false;
    }
    return false;
  }
  return true;
}

function allowedCall(call: SyntaxNode, opened: Opened): boolean {
  const parts = callParts(call);
  if (LOG_METHODS.has(parts.method) && parts.receiver && LOGGER_NAME.test(compactText(parts.receiver).split('.').at(-1) ?? '')) return true;
  if (opened.handle === undefined) return false;
  const onHandle = parts.receiver?.type === 'identifier' && parts.receiver.text === opened.handle;
  if (onHandle && ['close', 'flush', 'fileno'].includes(parts.method) && parts.positional.length === 0) return true;
  if (onHandle && parts.method === 'write' && call.parent?.type === 'expression_statement' && commentOnlyWrite(call, opened.target)) return true;
  if (parts.callee === 'os.fsync' && parts.positional.length === 1) {
    const argument = callParts(unparenthesized(parts.positional[0]!));
    return argument.method === 'fileno' && argument.receiver?.type === 'identifier' && argument.receiver.text === opened.handle;
  }
  return false;
}

/** A `with` whose only item is the open (perhaps `as` a name). */
function withOnlyOpens(statement: SyntaxNode, openCall: SyntaxNode): boolean {
  const items = statement.descendantsOfType('with_item').filter((item) => item.parent?.parent?.id === statement.id || item.parent?.id === statement.id);
  return items.length === 1 && items[0]!.startIndex <= openCall.startIndex && items[0]!.endIndex >= openCall.endIndex;
}

/** A return in what the re-run skips gives back what the re-run returns instead. */
function returnsWhatRerunReturns(statement: SyntaxNode, skipped: SkippedOnRerun, fnNode: SyntaxNode): boolean {
  const valueText = (ret: SyntaxNode): string => {
    const value = ret.namedChildren.find((child) => child.type !== 'comment');
    return value === undefined || value.type === 'none' ? '' : compactText(value);
  };
  const value = statement.namedChildren.find((child) => child.type !== 'comment');
  const text = valueText(statement);
  if (text === '') {
    if (skipped.presentReturns.length > 0) return skipped.presentReturns.every((ret) => valueText(ret) === '');
    return fnNode.descendantsOfType('return_statement').every((ret) => valueText(ret) === '');
  }
  if (skipped.presentReturns.length === 0 || !skipped.presentReturns.every((ret) => valueText(ret) === text)) return false;
  if (value && LITERALS.has(value.type)) return true;
  if (value?.type !== 'identifier') return false;
  // The same name, not given another value after the test but where the open failed (an except clause).
  return fnNode.descendantsOfType(['assignment', 'augmented_assignment']).every((assignment) => {
    const left = assignment.childForFieldName('left');
    if (assignment.startIndex < skipped.after || !left?.descendantsOfType('identifier').some((name) => name.text === value.text) && left?.text !== value.text) return true;
    for (let up = assignment.parent; up && up.id !== fnNode.id; up = up.parent) if (up.type === 'except_clause') return true;
    return false;
  });
}

function withinExcept(node: SyntaxNode, container: SyntaxNode): boolean {
  for (let up = node.parent; up && up.id !== container.id; up = up.parent) if (up.type === 'except_clause') return true;
  return false;
}

/**
 * `raise Error('cannot write %s' % os.path.dirname(p))` in an except clause of a try whose body is only the open's
 * statement: the open failed, so no file exists to be skipped. Its calls may only build the error (a capitalised
 * class) or format a path (os.path.*, str).
 */
function raisedWhereOpenFailed(raise: SyntaxNode, openCall: SyntaxNode): boolean {
  let clause: SyntaxNode | null = raise.parent;
  while (clause && clause.type !== 'except_clause' && clause.type !== 'function_definition') clause = clause.parent;
  const tryStatement = clause?.type === 'except_clause' ? clause.parent : undefined;
  const body = tryStatement?.type === 'try_statement' ? tryStatement.childForFieldName('body') : undefined;
  const statements = body?.namedChildren.filter((child) => child.type !== 'comment') ?? [];
  if (statements.length !== 1 || !(statements[0]!.startIndex <= openCall.startIndex && statements[0]!.endIndex >= openCall.endIndex)) return false;
  if (statements[0]!.type !== 'expression_statement' || statements[0]!.namedChildren[0]?.type !== 'assignment') return false;
  return raise.descendantsOfType('call').every((call) => {
    const callee = callParts(call).callee;
    return /^[A-Z]\w*$/.test(callee) || callee.startsWith('os.path.') || callee === 'str';
  });
}
