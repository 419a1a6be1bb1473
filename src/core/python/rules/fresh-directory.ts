// A write into a directory the function has just created: os.mkdir(D), os.makedirs(D),
// D.mkdir() or Path(D).mkdir() without exist_ok raise when D already exists, so past
// them D is new and empty. A write to os.path.join(D, name) or D / name then creates
// a new file: a crash tears only that new file, no old contents are lost, provided
// the function writes no name twice (one write, or a loop over a mapping's keys).
// sqlobject's CommandRecord.command writes each table's definition into the version
// directory it has just made, mkdir and write each under its own `if not sim:`.
// Partial: D must be a plain name, the name written the loop key itself (not a name
// built from it) and the target written inline (not through a variable); a key that is
// absolute or holds '..' would leave D, and a mapping whose items() repeat a key (an
// email Message) would write a name twice: neither is checked. A mkdir in a try or a
// with block is not trusted (a handler or suppress() may let an existing D through).
import type { Effect, SyntaxNode } from '../model.ts';
import { callParts, walkFunctionBody } from '../body-walk.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { precedingStatements } from './absent-target-guard.ts';
import { binds, parameterNames } from './exclusive-guards.ts';
import { ancestorsWithin, compactText, contains, unparenthesized } from './syntax.ts';

const DIRECTORY_MAKERS = new Set(['os.mkdir', 'os.makedirs']);
const PATH_CONSTRUCTORS = /^(pathlib\.)?(Path|PosixPath|WindowsPath)$/;
const LOOPS = new Set(['for_statement', 'while_statement', 'list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);
/** Effects that put contents under a name: a second one into D could meet a file this function already wrote. */
const WRITING_KINDS = new Set(['file-write', 'file-rename', 'file-replace']);
/** Pure wrappers that keep a mapping's keys unique. */
const ORDERING_WRAPPERS = new Set(['sorted', 'list', 'tuple', 'reversed']);

interface JoinedPath {
  directory: SyntaxNode;
  name: SyntaxNode;
}

export function writesIntoFreshDirectory(target: SyntaxNode, write: Effect, fnNode: SyntaxNode, effects: readonly Effect[]): boolean {
  const joined = joinedPath(target);
  if (!joined) return false;
  const creation = creationBefore(joined.directory, write.node, fnNode);
  if (!creation || rebound(joined.directory.text, creation, write.node, fnNode)) return false;
  if (refilledBetween(joined.directory.text, creation, write, fnNode, effects)) return false;
  return writtenOnce(joined, write, creation, fnNode, effects);
}

/** `os.path.join(D, name)` or `D / name`, D a plain name. */
function joinedPath(path: SyntaxNode): JoinedPath | undefined {
  const node = unparenthesized(path);
  let directory: SyntaxNode | undefined;
  let name: SyntaxNode | undefined;
  if (node.type === 'call') {
    const call = callParts(node);
    if (call.callee !== 'os.path.join' || call.positional.length !== 2 || call.keywords.size > 0) return undefined;
    [directory, name] = call.positional;
  } else if (node.type === 'binary_operator' && node.childForFieldName('operator')?.type === '/') {
    directory = node.childForFieldName('left') ?? undefined;
    name = node.childForFieldName('right') ?? undefined;
  }
  if (!directory || !name) return undefined;
  directory = unparenthesized(directory);
  return directory.type === 'identifier' ? { directory, name: unparenthesized(name) } : undefined;
}

/** A call creating `directory` that fails if it exists, run before `write` on every path that reaches it. */
function creationBefore(directory: SyntaxNode, write: SyntaxNode, fnNode: SyntaxNode): SyntaxNode | undefined {
  const preceding = new Set(precedingStatements(write, fnNode).map((statement) => statement.id));
  let found: SyntaxNode | undefined;
  walkFunctionBody(fnNode, (node) => {
    if (found || node.type !== 'call' || node.endIndex > write.startIndex) return;
    if (createsExclusively(node, directory.text) && runsWhenever(node, write, preceding, fnNode)) found = node;
  });
  return found;
}

/** `os.mkdir(D)`, `os.makedirs(D)`, `D.mkdir()`, `Path(D).mkdir()`, exist_ok absent or False. */
function createsExclusively(call: SyntaxNode, directory: string): boolean {
  const parts = callParts(call);
  const made = DIRECTORY_MAKERS.has(parts.callee) ? parts.positional[0] : parts.method === 'mkdir' ? parts.receiver : undefined;
  // os.makedirs(name, mode, exist_ok) and Path.mkdir(mode, parents, exist_ok)
  const existOk = parts.keywords.get('exist_ok') ?? parts.positional[2];
  return made !== undefined && isFalse(existOk) && namesDirectory(made, directory);
}

function isFalse(node: SyntaxNode | undefined): boolean {
  return node === undefined || node.type === 'false';
}

/**
 * The creation is a statement of its own that runs before the write on every path:
 * an earlier sibling of one of the write's enclosing statements, or nested in `if C:`
 * arms whose every condition also guards the write, unchanged in between.
 */
function runsWhenever(creation: SyntaxNode, write: SyntaxNode, preceding: Set<number>, fnNode: SyntaxNode): boolean {
  if (creation.parent?.type !== 'expression_statement') return false;
  let statement: SyntaxNode = creation.parent;
  const conditions: SyntaxNode[] = [];
  while (!preceding.has(statement.id)) {
    const block = statement.parent;
    const ifStatement = block?.type === 'block' ? block.parent : null;
    const condition = ifStatement?.type === 'if_statement' ? ifStatement.childForFieldName('condition') : null;
    if (!ifStatement || !condition || ifStatement.childForFieldName('consequence')?.id !== block!.id) return false;
    conditions.push(condition);
    statement = ifStatement;
  }
  return conditions.every((condition) => alsoGuards(condition, write, fnNode));
}

/** The write sits in the consequence of a later `if` with the same test, and the test cannot have changed between. */
function alsoGuards(condition: SyntaxNode, write: SyntaxNode, fnNode: SyntaxNode): boolean {
  if (!stableTest(condition, fnNode)) return false;
  const text = compactText(condition);
  return ancestorsWithin(write, fnNode).some((ancestor) => {
    if (ancestor.type !== 'if_statement' || ancestor.startIndex < condition.endIndex) return false;
    const again = ancestor.childForFieldName('condition');
    const consequence = ancestor.childForFieldName('consequence');
    if (!again || !consequence || !contains(consequence, write) || compactText(again) !== text) return false;
    return !again.descendantsOfType('identifier').some((name) => rebound(name.text, condition, again, fnNode));
  });
}

const STABLE_TEST_NODES = new Set(['identifier', 'not_operator', 'boolean_operator', 'comparison_operator', 'parenthesized_expression', 'true', 'false', 'none', 'integer', 'float']);
const STABLE_TEST_TOKENS = new Set(['not', 'and', 'or', '==', '!=', '<', '<=', '>', '>=', 'is', 'is not', 'in', 'not in', '(', ')']);

/** A test of the function's own names and constants: no call, attribute, f-string or global that could change between two tests. */
function stableTest(condition: SyntaxNode, fnNode: SyntaxNode): boolean {
  const parameters = parameterNames(fnNode);
  const stable = (node: SyntaxNode): boolean => {
    if (!node.isNamed) return STABLE_TEST_TOKENS.has(node.type);
    if (node.type === 'string') return plainString(node) !== undefined;
    if (!STABLE_TEST_NODES.has(node.type)) return false;
    if (node.type === 'identifier') return parameters.has(node.text) || localAssignmentBefore(node) !== undefined;
    return node.children.every(stable);
  };
  return stable(condition);
}

/** The value of a plain string literal (`'a'` and `"a"` agree); undefined for f-strings, escapes and anything else. */
function plainString(node: SyntaxNode): string | undefined {
  const plain = node.type === 'string' ? /^([rRuU]?)(['"])([^'"\\{}]*)\2$/.exec(node.text) : null;
  return plain ? plain[3] : undefined;
}

/**
 * `name` may be bound again after `from` and before `to` runs: a binding between them in
 * the text, a binding in a loop around `to` but not `from`, or a global/nonlocal declaration.
 */
function rebound(name: string, from: SyntaxNode, to: SyntaxNode, fnNode: SyntaxNode): boolean {
  const body = fnNode.childForFieldName('body');
  if (!body) return true;
  const between = runsBetween(from, to, fnNode);
  return body.descendantsOfType('identifier').some((identifier) => {
    if (identifier.text !== name || !binds(identifier)) return false;
    if (identifier.parent?.type === 'global_statement' || identifier.parent?.type === 'nonlocal_statement') return true;
    return between(identifier);
  });
}

/** A node that may run after `from` and before `to`: between them in the text, or in a loop around `to` but not `from`. */
function runsBetween(from: SyntaxNode, to: SyntaxNode, fnNode: SyntaxNode): (node: SyntaxNode) => boolean {
  const loopsAroundTo = ancestorsWithin(to, fnNode).filter((ancestor) => LOOPS.has(ancestor.type) && !contains(ancestor, from));
  return (node) => (node.startIndex >= from.endIndex && node.startIndex < to.startIndex) || loopsAroundTo.some((loop) => contains(loop, node));
}

/** D itself handed to a file operation after its creation (shutil.copytree(old, D, dirs_exist_ok=True), a helper): it may hold old files again. */
function refilledBetween(directory: string, creation: SyntaxNode, write: Effect, fnNode: SyntaxNode, effects: readonly Effect[]): boolean {
  const between = runsBetween(creation, write.node, fnNode);
  return effects.some((effect) => {
    if (effect === write || !effect.kind.startsWith('file-') || !between(effect.node)) return false;
    const call = callParts(effect.node);
    return [call.receiver, ...call.positional, ...call.keywords.values()].some((argument) => argument && namesDirectory(argument, directory));
  });
}

/** `D` or `Path(D)`. */
function namesDirectory(node: SyntaxNode, directory: string): boolean {
  const bare = unparenthesized(node);
  if (bare.type === 'identifier') return bare.text === directory;
  if (bare.type !== 'call' || !PATH_CONSTRUCTORS.test(callParts(bare).callee)) return false;
  const argument = callParts(bare).positional[0];
  return argument !== undefined && unparenthesized(argument).text === directory;
}

/** No name in D is written twice: the write runs once, or once per key of a mapping; no other write into D may meet it. */
function writtenOnce(joined: JoinedPath, write: Effect, creation: SyntaxNode, fnNode: SyntaxNode, effects: readonly Effect[]): boolean {
  const repeatingLoops = ancestorsWithin(write.node, fnNode).filter((ancestor) => LOOPS.has(ancestor.type) && !contains(ancestor, creation));
  if (repeatingLoops.length > 1) return false;
  const [loop] = repeatingLoops;
  if (loop && !onceForEachKey(loop, joined.name, write.node, fnNode)) return false;
  // A helper handed a path in D (other.via) counts too: it may write there.
  return !effects.some((other) => other !== write && WRITING_KINDS.has(other.kind) && mayMeet(other.node, joined));
}

/** `for key in m.keys()` / `for key, value in m.items()` (maybe sorted, or via a name), the write's name being the key, not rebound in the body. */
function onceForEachKey(loop: SyntaxNode, name: SyntaxNode, write: SyntaxNode, fnNode: SyntaxNode): boolean {
  const left = loop.type === 'for_statement' ? loop.childForFieldName('left') : null;
  const body = loop.childForFieldName('body');
  if (!left || !body || !contains(body, write) || name.type !== 'identifier') return false;
  const pair = left.type === 'pattern_list' || left.type === 'tuple_pattern';
  const key = pair ? left.namedChildren[0] : left;
  if (key?.type !== 'identifier' || key.text !== name.text || (pair && left.namedChildren.length !== 2)) return false;
  if (rebound(key.text, left, write, fnNode)) return false;
  const right = loop.childForFieldName('right');
  return right !== null && iteratesKeys(right, pair ? 'items' : 'keys');
}

function iteratesKeys(iterable: SyntaxNode, method: 'items' | 'keys'): boolean {
  let node = unparenthesized(iterable);
  if (node.type === 'identifier') {
    const assigned = localAssignmentBefore(node);
    // Used again before the loop (items.append(...), items += ...), the list may have gained a repeated key.
    if (!assigned || mentionedBetween(node.text, assigned, node)) return false;
    node = unparenthesized(assigned);
  }
  if (node.type !== 'call') return false;
  const call = callParts(node);
  if (ORDERING_WRAPPERS.has(call.callee) && call.positional.length === 1 && call.keywords.size <= 1 && !call.keywords.has('iterable')) {
    return iteratesKeys(call.positional[0]!, method);
  }
  return call.method === method && call.receiver !== undefined && call.positional.length === 0 && call.keywords.size === 0;
}

/** Any mention of `name` after the statement that assigned `value` and before `use`. */
function mentionedBetween(name: string, value: SyntaxNode, use: SyntaxNode): boolean {
  const scope = value.tree.rootNode;
  return scope.descendantsOfType('identifier', value.endPosition, use.startPosition).some(
    (identifier) => identifier.text === name && identifier.startIndex >= value.endIndex && identifier.startIndex < use.startIndex,
  );
}

/** Another effect whose target may be the same file in D (written inline, or through a name assigned one): any name but a different string literal. */
function mayMeet(node: SyntaxNode, joined: JoinedPath): boolean {
  const call = callParts(node);
  return [call.receiver, ...call.positional].some((argument) => {
    const path = argument && unparenthesized(argument).type === 'identifier' ? localAssignmentBefore(unparenthesized(argument)) : argument;
    const other = path && joinedPath(path);
    if (!other || other.directory.text !== joined.directory.text) return false;
    const [a, b] = [plainString(other.name), plainString(joined.name)];
    return a === undefined || b === undefined || a === b;
  });
}
