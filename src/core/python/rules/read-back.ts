// Is a file the module writes its state, or output? A file some code of the module reads back
// (opens to read, loads, parses, connects to, copies, lists its folder or reads files from it,
// renames a file over it, or skips work when an `if` finds it exists) holds state: a crash
// mid-write loses what that reader needed. A file nothing here reads back (a report, an export,
// a pid file) is output: a torn one costs nothing a re-run does not rewrite. Which paths name the
// same file: path-keys.ts. Also state: a file whose name is made unique (kombu's uuid-named
// messages). A reader in another module counts only when the scan indexed the repository with its
// trees, and only through a literal file name or a module constant.
// Partial: a reader in another program, or in another module linked by anything else, is not seen.
import type { PyModule, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { enclosingFunctionNode } from '../functions.ts';
import { moduleFacts } from '../module-facts.ts';
import { memoizePer } from '../memo.ts';
import { repoIndexOf } from '../callgraph.ts';
import { reachingValues } from './reaching-values.ts';
import { compactText, isOwnCode, literalText, unparenthesized } from './syntax.ts';
import { MAX_DEPTH, classOf, folderKeys, namesOneFile, pathKeys, portable } from './path-keys.ts';
import { rolesDiffer } from './role-pairs.ts';
import { sharedCaller } from './shared-caller.ts';
import { readsArchiveMember } from './archive-members.ts';

/** Calls whose first argument is a path they read: open in a read mode, a loader, a parser, a copy's source, a database. */
const READING_CALL = /^(open|read\w*|load\w*|parse|iterparse|connect|ZipFile|TarFile|copy|copy2|copyfile|copytree|cmp)$/;
/** `connect` reads a file only as a database's: a socket's connect(path) reads nothing. */
const FILE_CONNECTS = new Set(['sqlite3.connect', 'apsw.Connection', 'duckdb.connect', 'sqlite3.Connection', 'dbm.open', 'shelve.open']);
const LISTING_CALLS = new Set(['os.listdir', 'os.scandir', 'os.walk', 'glob.glob', 'glob.iglob', 'listdir', 'scandir', 'glob', 'iglob']);
const LISTING_METHODS = new Set(['iterdir', 'glob', 'rglob']);
/** Tests of a file's existence: code that takes an existing file for a finished one (pooch's Decompress skips the work). */
const EXISTENCE_CALLS = new Set(['os.path.exists', 'os.path.isfile', 'os.path.lexists', 'path.exists', 'path.isfile', 'exists', 'isfile']);
const EXISTENCE_METHODS = new Set(['exists', 'is_file']);
/** A rename's or replace's target: a file the module takes care to swap in whole is state, whatever else writes it. */
const MOVES = new Set(['os.rename', 'os.replace', 'shutil.move', 'os.renames']);

/** Why a file counts as read back, for the message: where, and how. */
export interface ReadBack {
  line: number;
  /** Matched only through a parameter's name: the reader is another function's parameter of that name, maybe another file. */
  parameter?: { name?: string; fn: string };
  /** The module the reader is in, when it is not the writer's. */
  elsewhere?: string;
  /** The function the reading code is in: its name, and its node's id. */
  fn?: string;
  fnId?: number;
  /** The class the reading code is in: `self.path` of another class is another file. */
  cls?: string;
  /** The name of the call that reads the path, but open (`load` of `load(filename)`, `read_config`, `read` of `config.read(path)`). */
  call?: string;
  how: 'read' | 'listed' | 'readFrom' | 'renamed' | 'recorded' | 'queried' | 'unique' | 'checked';
}

/** Which reason a message names when several hold: a read of the file itself says the most. */
const STRENGTH: Readonly<Record<ReadBack['how'], number>> = { read: 7, readFrom: 6, listed: 5, renamed: 4, recorded: 3, queried: 3, unique: 2, checked: 1 };

interface ModuleReads {
  /** Keys of every path a call of the module reads, or swaps in whole by a rename (state either way): every reader of each. */
  read: Map<string, ReadBack[]>;
  /** Keys of every folder a call of the module lists, or reads a file from. */
  listed: Map<string, ReadBack[]>;
}

const moduleReads = memoizePer((module: PyModule): ModuleReads => {
  const read = new Map<string, ReadBack[]>();
  const listed = new Map<string, ReadBack[]>();
  const note = (index: Map<string, ReadBack[]>, keys: Iterable<string>, node: SyntaxNode, how: ReadBack['how']): void => {
    const fnNode = enclosingFunctionNode(node);
    const fn = fnNode?.childForFieldName('name')?.text;
    const cls = classOf(node, module);
    // What the reading call is named (`read_config`, `config.read`): the bare opener says nothing of what is read.
    const method = callParts(node).method;
    const call = method && method !== 'open' ? method : undefined;
    const reason: ReadBack = { line: node.startPosition.row + 1, how, ...(fn && fnNode ? { fn, fnId: fnNode.id } : {}), ...(cls ? { cls } : {}), ...(call ? { call } : {}) };
    for (const key of keys) {
      const known = index.get(key);
      if (known) known.push(reason);
      else index.set(key, [reason]);
    }
  };
  // A file read from a folder: the module reads what is in that folder (huey's enqueued_items).
  const noteRead = (path: SyntaxNode, node: SyntaxNode): void => {
    note(read, pathKeys(path, module), node, 'read');
    if (!namesOneFile(path)) note(listed, folderKeys(path, module), node, 'readFrom');
  };
  for (const scope of moduleFacts(module).scopes.values()) {
    for (const { node, callee } of scope.calls) {
      const method = callee.slice(callee.lastIndexOf('.') + 1);
      if (MOVES.has(callee) || ((method === 'replace' || method === 'rename') && !callee.includes('.path.'))) {
        const call = callParts(node);
        const target = MOVES.has(callee) ? call.positional[1] : call.receiver && call.positional.length === 1 ? call.positional[0] : undefined;
        if (target) note(read, pathKeys(target, module), node, 'renamed');
        continue;
      }
      if (EXISTENCE_CALLS.has(callee) || (EXISTENCE_METHODS.has(method) && !callee.includes('.path.'))) {
        const call = callParts(node);
        const tested = EXISTENCE_CALLS.has(callee) ? call.positional[0] : call.positional.length === 0 ? call.receiver : undefined;
        if (tested && decidesIf(node) && !setsItAside(node, tested)) note(read, pathKeys(tested, module), node, 'checked');
        continue;
      }
      if (method === 'connect' && !FILE_CONNECTS.has(callee)) continue;
      if (!READING_CALL.test(method) && !LISTING_CALLS.has(callee) && !LISTING_METHODS.has(method) && !['read_text', 'read_bytes'].includes(method)) continue;
      const call = callParts(node);
      const [first] = call.positional;
      // zf.open(name) of a ZipFile reads the member `name`, no file of that name on disk.
      if (call.receiver && readsArchiveMember(call.receiver, method, module)) continue;
      // os.open(p, os.O_WRONLY | ...) opens for writing only (Quod Libet's probe for a FIFO's reader): no read of p.
      if (callee === 'os.open' && writeOnlyFlags(call.positional[1])) continue;
      if ((LISTING_CALLS.has(callee) || LISTING_METHODS.has(method)) && onlyTestsEmptiness(node)) continue;
      if (LISTING_CALLS.has(callee) && first) {
        note(listed, pathKeys(first, module), node, 'listed');
        // glob.glob(os.path.join(D, '*.msg')) lists D.
        note(listed, folderKeys(first, module), node, 'listed');
      } else if (LISTING_METHODS.has(method) && call.receiver) {
        note(listed, pathKeys(call.receiver, module), node, 'listed');
      } else if ((method === 'read_text' || method === 'read_bytes' || (method === 'open' && call.positional.length <= 1 && !call.keywords.has('mode'))) && call.receiver && !first) {
        noteRead(call.receiver, node);
      } else if (first && !writingMode(call.keywords.get('mode') ?? (MODE_SECOND.has(method) ? call.positional[1] : undefined))) {
        noteRead(first, node);
        // Path(p).open('rb'): the receiver is the path, the argument its mode.
        if (method === 'open' && call.receiver && call.positional.length === 1 && !writingMode(first)) noteRead(call.receiver, node);
      }
    }
  }
  return { read, listed };
});

/** Flags spelled out as `os.O_WRONLY | os.O_NONBLOCK | ...` (constants only), O_WRONLY among them: the descriptor cannot read. */
function writeOnlyFlags(flags: SyntaxNode | undefined): boolean {
  const parts = flags ? compactText(flags).replace(/^\(|\)$/g, '').split('|').map((part) => part.replace(/^os\./, '')) : [];
  return parts.includes('O_WRONLY') && parts.every((part) => /^O_[A-Z]+$/.test(part) && part !== 'O_RDWR');
}

/**
 * The test is (part of) an `if`'s condition: the code does or skips work by it (pooch's `if ... or not
 * os.path.exists(decompressed):`). Not a `while` picking a free name, nor a helper's return value.
 */
function decidesIf(test: SyntaxNode): boolean {
  let node = test;
  while (node.parent && ['boolean_operator', 'not_operator', 'parenthesized_expression', 'comparison_operator'].includes(node.parent.type)) node = node.parent;
  const parent = node.parent;
  return (parent?.type === 'if_statement' || parent?.type === 'elif_clause') && parent.childForFieldName('condition')?.id === node.id;
}

const REMOVALS = new Set(['os.remove', 'os.unlink', 'shutil.rmtree']);
const LEAVING = new Set(['return_statement', 'raise_statement', 'break_statement', 'continue_statement']);

/**
 * `if os.path.isfile(p): os.remove(p)`, or `if isfile(p): os.rename(p, p + '~')` (IPython's logstart
 * rotating its log): the body sets the file aside, and since it never leaves and has no else, the code
 * after the `if` runs either way, on a p that is gone. The test skips nothing because p is there, so a
 * torn p passing it harms nothing. Every other use of p in the body rules it out (`apply(p)` before the
 * removal replays a torn journal); a name made from p and a literal (`p + '.001~'`) is another file.
 */
function setsItAside(test: SyntaxNode, tested: SyntaxNode): boolean {
  const statement = test.parent;
  if (statement?.type !== 'if_statement' || statement.childForFieldName('condition')?.id !== test.id) return false;
  if (statement.namedChildren.some((child) => child.type === 'elif_clause' || child.type === 'else_clause')) return false;
  const body = statement.childForFieldName('consequence');
  if (!body) return false;
  const own = (node: SyntaxNode): boolean => isOwnCode(node, body);
  if (body.descendantsOfType([...LEAVING]).some(own)) return false;
  const path = compactText(tested);
  const uses = body.descendantsOfType(['identifier', 'attribute']).filter((node) => compactText(node) === path && node.parent?.childForFieldName('attribute')?.id !== node.id);
  if (uses.some((use) => !own(use))) return false;
  let setAside = false;
  for (const use of uses) {
    const derived = use.parent?.type === 'binary_operator' && use.parent.namedChildren.some((side) => side.id !== use.id && side.type === 'string');
    if (derived) continue;
    const how = useInCall(use);
    if (how === 'aside') setAside = true;
    else if (how !== 'tested') return false;
  }
  return setAside;
}

/** What a call does with `use`: removes or moves it away, tests that it exists, or something else (undefined). */
function useInCall(use: SyntaxNode): 'aside' | 'tested' | undefined {
  const call = use.parent?.type === 'argument_list' ? use.parent.parent : use.parent?.type === 'attribute' && use.parent.parent?.type === 'call' ? use.parent.parent : undefined;
  if (call?.type !== 'call') return undefined;
  const parts = callParts(call);
  const first = parts.positional[0];
  if (first?.id === use.id && (REMOVALS.has(parts.callee) || MOVES.has(parts.callee))) return 'aside';
  if (first?.id === use.id && (EXISTENCE_CALLS.has(parts.callee) || EXISTENCE_CALLS.has(parts.method))) return 'tested';
  if (parts.receiver?.id === use.id && !parts.callee.includes('.path.')) {
    // Path.unlink(), Path.rename(target), Path.replace(target); str.replace takes two arguments.
    if ((parts.method === 'unlink' && parts.positional.length === 0) || ((parts.method === 'rename' || parts.method === 'replace') && parts.positional.length === 1)) return 'aside';
    if (EXISTENCE_METHODS.has(parts.method) && parts.positional.length === 0) return 'tested';
  }
  return undefined;
}

/** `if not os.listdir(d)`, `len(os.listdir(d))`: whether the folder is empty, not which files it holds. */
function onlyTestsEmptiness(listing: SyntaxNode): boolean {
  const parent = listing.parent;
  if (parent?.type === 'not_operator' || parent?.type === 'if_statement' || parent?.type === 'while_statement') return true;
  const call = parent?.type === 'argument_list' ? parent.parent : undefined;
  return call?.type === 'call' && ['len', 'bool', 'any'].includes(call.childForFieldName('function')?.text ?? '');
}

/** Openers whose second argument is a mode: any other reading call's second argument is not (`copyfile(src, 'backup.json')`). */
const MODE_SECOND = new Set(['open', 'ZipFile', 'TarFile']);

function writingMode(mode: SyntaxNode | undefined): boolean {
  const text = mode?.type === 'string' ? literalText(mode) : '';
  return /^[rwxabtU+]+$/.test(text) && /[wax]/.test(text);
}

/** Says so when the match is a parameter's name only, for the message to name the reading function. */
function throughParameter(key: string, reason: ReadBack | undefined, writer: SyntaxNode | undefined, module: PyModule): ReadBack | undefined {
  if (!reason || reason.fnId === writer?.id) return reason;
  if (/^(self|cls)\./.test(key) && writer && reason.cls !== classOf(writer, module)) return undefined;
  const fn = reason.fn ?? 'another function';
  if (key.startsWith('param:')) {
    const name = key.slice('param:'.length);
    // A parameter's name is no link between functions named for different jobs: buku's write_string_to_file() and
    // get_filehash() both take a "filepath", never one file. dump(value, filename) and load(filename) are a pair.
    // Unless the module itself hands one path to both (lib2to3's processed_file: _read_python_source, write_file).
    if (rolesDiffer(writer?.childForFieldName('name')?.text, reason.fn, reason.call) && !handedToBoth(writer, name, reason, module)) return undefined;
    return { ...reason, parameter: { name, fn } };
  }
  if (key.startsWith('param-of:')) return { ...reason, parameter: { fn } };
  return reason;
}

function handedToBoth(writer: SyntaxNode | undefined, parameter: string, reason: ReadBack, module: PyModule): boolean {
  return writer !== undefined && [reason.fn, reason.call].some((reader) => reader !== undefined && sharedCaller(writer, parameter, reader, module));
}

/**
 * The strongest reason of `reasons` that holds for this writer and key: of them all for a parameter's
 * name (each reading function is judged by its name and callers), else of the strongest alone.
 */
function strongest(key: string, reasons: readonly ReadBack[] | undefined, writer: SyntaxNode | undefined, module: PyModule): ReadBack[] {
  let best: ReadBack | undefined;
  for (const reason of reasons ?? []) {
    const held = key.startsWith('param:') ? throughParameter(key, reason, writer, module) : reason;
    if (held && (!best || STRENGTH[held.how] > STRENGTH[best.how])) best = held;
  }
  const held = best && !key.startsWith('param:') ? throughParameter(key, best, writer, module) : best;
  return held ? [held] : [];
}

/** A uuid or a secrets token in the file's name: a name no person picks, made for a program that lists the folder. */
const UNIQUE_NAME = /^(uuid\.)?uuid[1-5]$|^secrets\.token_(hex|urlsafe|bytes)$/;

function uniquelyNamed(path: SyntaxNode): SyntaxNode | undefined {
  let unique: SyntaxNode | undefined;
  const seen = new Set<number>();
  const visit = (node: SyntaxNode, depth: number): void => {
    if (unique || depth > MAX_DEPTH || seen.has(node.id)) return;
    seen.add(node.id);
    for (const call of node.type === 'call' ? [node, ...node.descendantsOfType('call')] : node.descendantsOfType('call')) {
      if (UNIQUE_NAME.test(call.childForFieldName('function')?.text ?? '')) return void (unique = call);
    }
    const fnNode = enclosingFunctionNode(node);
    const names = node.type === 'identifier' ? [node] : node.descendantsOfType('identifier');
    if (fnNode) for (const name of names) for (const value of reachingValues(name, fnNode)) visit(value, depth + 1);
  };
  visit(unparenthesized(path), 0);
  return unique;
}

/**
 * Where the module reads back the file `path` names: by the same path, by listing its folder or
 * reading files from it; or its name is made unique (kombu's message files, read by consumers
 * in other processes).
 */
export function readBackInModule(path: SyntaxNode, module: PyModule, besides?: SyntaxNode): ReadBack | undefined {
  const unique = uniquelyNamed(path);
  if (unique) return { line: unique.startPosition.row + 1, how: 'unique' };
  const reads = moduleReads(module);
  const writer = enclosingFunctionNode(path);
  const keys = pathKeys(path, module);
  // `besides`: the rename that replaces a removed file is no reader of it (in-place-file-rewrite's remove-then-rename).
  const counted = (reasons: readonly ReadBack[] | undefined): readonly ReadBack[] | undefined =>
    besides ? reasons?.filter((reason) => !(reason.how === 'renamed' && reason.fnId === writer?.id && reason.line === besides.startPosition.row + 1)) : reasons;
  const found = [
    ...[...keys].flatMap((key) => strongest(key, counted(reads.read.get(key)), writer, module)),
    ...[...folderKeys(path, module)].flatMap((key) => {
      const inFolder = [...(reads.listed.get(key) ?? []), ...(key.startsWith('param') ? [] : (reads.read.get(key) ?? []))];
      return strongest(key, counted(inFolder.filter((reason) => reason.how !== 'checked')) ?? [], writer, module);
    }),
  ];
  const here = found.reduce<ReadBack | undefined>((best, reason) => (!best || STRENGTH[reason.how] > STRENGTH[best.how] ? reason : best), undefined);
  return here ?? readBackElsewhere([...keys].filter(portable), module);
}

/**
 * A reader in another module of the repository, when the scan indexed it with its tree: matched only
 * by what two modules can share, a literal file name or a module constant (an imported CONFIG_PATH).
 */
function readBackElsewhere(keys: readonly string[], module: PyModule): ReadBack | undefined {
  const modules = keys.length > 0 ? repoIndexOf(module)?.modules : undefined;
  for (const other of modules?.values() ?? []) {
    if (other === module) continue;
    const reads = moduleReads(other);
    for (const key of keys) {
      const [found] = strongest(key, reads.read.get(key), undefined, other);
      if (found) return { ...found, elsewhere: other.path };
    }
  }
  return undefined;
}

