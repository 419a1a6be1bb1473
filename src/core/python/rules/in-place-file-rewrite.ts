import type { Effect, SyntaxNode } from '../model.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { callParts, walkFunctionBody } from '../body-walk.ts';
import { defineRule } from './rule.ts';
import { compactText, enclosingLoop, isTemporaryPath, literalText, mutuallyExclusive, shortText } from './syntax.ts';
import { PATH_OPENERS, readsPath } from './file-reads.ts';
import { rebuiltFromIntactSource } from './rebuilt-from-source.ts';
import { exportOfDatabaseReads } from './database-export.ts';
import { targetKnownAbsent } from './absent-target-guard.ts';
import { createsEmptyWhenAbsent } from './created-empty.ts';
import { isStreamDescriptor } from './stream-descriptor.ts';
import { isKernelPseudoFile } from './kernel-files.ts';
import { bindingSites } from './exclusive-guards.ts';
import { keptAsideBefore } from './kept-aside.ts';
import { writesIntoFreshDirectory } from './fresh-directory.ts';
import { readBackInModule, type ReadBack } from './read-back.ts';
import { namedByRecord } from './named-by-record.ts';
import { smallFixedRecord } from './fixed-record.ts';
import { windowsOnlyQuiet } from './windows-only.ts';

/** Who meets the torn file: what made read-back.ts count it as state. */
const READER_WORDS: Readonly<Record<ReadBack['how'], (line: number) => string>> = {
  read: (line) => `the read of it at line ${line}`,
  listed: (line) => `the listing of its folder at line ${line}`,
  readFrom: (line) => `the read of the files in its folder at line ${line}`,
  renamed: (line) => `whatever reads the file that line ${line} renames over it`,
  recorded: (line) => `the database row that names it (line ${line})`,
  queried: (line) => `the database row it is named by (line ${line})`,
  checked: (line) => `the existence test at line ${line} (a torn file passes it)`,
  unique: (line) => `whatever lists its folder for it (its name is made unique at line ${line})`,
};

function readerWords(reader: ReadBack): string {
  if (reader.elsewhere) return `${READER_WORDS[reader.how](reader.line)} of ${reader.elsewhere}`;
  // Only a parameter's name links the two: say which, so the reader of the message can judge.
  const { parameter } = reader;
  if (parameter && reader.how !== 'read') {
    const what = reader.how === 'listed' || reader.how === 'readFrom' ? "this file's folder" : 'this file';
    return `${parameter.fn}() (${READER_WORDS[reader.how](reader.line)}), if ${parameter.name ? `its ${parameter.name}` : 'what is passed to it'} is ${what}`;
  }
  if (parameter) return `${parameter.fn}() at line ${reader.line}, which reads ${parameter.name ? `a file passed as ${parameter.name}` : 'the file passed to it'}`;
  return READER_WORDS[reader.how](reader.line);
}

/** `module.open(...)`: not a Path's own open(). */
const MODULE_OPEN = /^(os|io|codecs|builtins|gzip|bz2|lzma|tarfile|zipfile|dbm|shelve|webbrowser|tokenize)\./;

export const inPlaceFileRewrite = defineRule({
  meta: {
    id: 'in-place-file-rewrite',
    description: 'A file is truncated or changed in place instead of written to a temp file and moved over it with os.replace.',
    category: 'file',
    severity: 'warning',
    messages: {
      rewritesReadFile:
        '{{path}} is read and then rewritten in place ({{how}}): a crash mid-write leaves it empty or torn, and the old contents are lost',
      rewritesReadFileKeptAside:
        '{{path}} is read and then rewritten in place ({{how}}) after its old contents were put aside as {{aside}} (line {{asideLine}}): a crash mid-write leaves it missing, empty or torn for the next read, the old contents only under the other name',
      updatedInPlace: '{{path}} is opened \'{{mode}}\' and changed in place: a crash mid-write leaves it part old, part new',
      truncatesInPlace: '{{path}} is truncated and written in place ({{how}}): a crash mid-write leaves it empty or torn for {{reader}}',
      rewrittenFromStart:
        '{{path}} is rewritten from its start through a file kept open (seek(0), then write()): a crash mid-write leaves it part new, part old or cut short',
      // Not "no file at all": the new contents are still under the rename's source.
      removedBeforeRename:
        '{{path}} is removed before {{source}} is renamed over it (line {{renameLine}}): a crash between them leaves {{path}} missing, its new contents only under {{source}}',
    },
    messageSeverity: { truncatesInPlace: 'info' },
    hint: 'Write to a temp file in the same directory, flush and fsync it, then os.replace() it over the target.',
  },
  create(context) {
    const fnNode = context.fn.node;
    const reportRemovedBeforeRename = (removal: Effect, moves: readonly Effect[]): void => {
      const removed = callParts(removal.node).positional[0] ?? callParts(removal.node).receiver;
      const rename = removed && moves.find((move) => move.node.startIndex > removal.node.startIndex && movedPaths(move.node).target === compactText(removed));
      if (!removed || !rename || mutuallyExclusive(removal.node, rename.node, fnNode)) return;
      // A scratch name (dulwich's _fancy_rename removes the empty file mkstemp just made for its name): no one's record.
      if (isTemporaryPath(removed)) return;
      // A backup rotated out and replaced (IPython's logstart: logfname + '~'), when nothing reads it back (read-back.ts,
      // the rename that replaces it aside). Any other name stays reported: a reader may reach it in ways not followed here.
      const read = readsPath(fnNode, new Set([compactText(removed)])) || (readBackInModule(removed, context.module, rename.node) ?? namedByRecord(removed, fnNode, context.effects)) !== undefined;
      if (backupName(removed) && !read) return;
      // The live file rotated into its own backup's place, and the new contents then renamed onto the live name
      // (deluge's _save_state: remove state.bak, rename state to state.bak, rename state.tmp to state): a crash
      // between the first two leaves the live file, always written whole, intact and only the previous backup gone.
      // Partial: a reader that trusts only the backup name (never the live one) loses its copy; not told apart.
      const source = movedSource(rename.node);
      const refilled = source !== undefined && moves.some((move) => move.node.startIndex > rename.node.startIndex && movedPaths(move.node).target === compactText(source));
      if (source && refilled && backupOf(removed, source)) return;
      context.report({
        node: removal.node,
        messageId: 'removedBeforeRename',
        data: { path: shortText(removed.text), source: shortText(movedSource(rename.node)?.text ?? 'the new file'), renameLine: rename.range.startLine },
      });
    };
    return {
      'function:exit'() {
        const moves = context.effects.filter((effect) => (effect.kind === 'file-replace' || effect.kind === 'file-rename') && !effect.via);
        for (const effect of context.effects) {
          // A remove-then-rename stays reported under a Windows test too: os.replace closes its window there as well.
          if (effect.kind === 'file-delete' && !effect.via) reportRemovedBeforeRename(effect, moves);
          if (effect.kind !== 'file-write' || effect.via) continue;
          // A write reached only on native Windows (windows-only.ts): POSIX semantics are judged, unless the config keeps them.
          if (windowsOnlyQuiet(effect.node, context.module)) continue;
          const target = writeTarget(effect);
          if (!target || isTemporaryPath(target.path) || closedAtOnce(effect.node, context.effects)) continue;
          // A pipe's or a socket's descriptor: no file to truncate, nothing persists.
          if (isStreamDescriptor(target.path)) continue;
          if (isKernelPseudoFile(target.path)) continue;
          const path = compactText(target.path);
          // Written, then moved over its target: the temp-file pattern, whatever the name.
          if (moves.some((move) => move.node.startIndex > effect.node.startIndex && movedPaths(move.node).source === path)) continue;
          if (rebuiltFromIntactSource(target.path, effect, fnNode, context.effects)) continue;
          if (exportOfDatabaseReads(effect, context)) continue;
          // Reached only while the target is absent, and nothing written through it: it can only make an empty file (created-empty.ts).
          if (!target.rewound && createsEmptyWhenAbsent(target.path, effect, fnNode, context.effects, context.module)) continue;
          // The function goes on only when the target is absent: the write creates a new file, no old contents to tear.
          if (!target.rewound && targetKnownAbsent(target.path, effect, fnNode, context.effects)) continue;
          if (!target.rewound && writesIntoFreshDirectory(target.path, effect, fnNode, context.effects)) continue;
          // The old contents copied or moved to another name first: a crash tears T, but they survive there (kept-aside.ts).
          const kept = target.rewound ? undefined : keptAsideBefore(target.path, effect, fnNode, context.effects);
          const data = { path: shortText(target.path.text), how: target.how, mode: target.mode };
          if (target.rewound) {
            if (!smallFixedRecord(effect.node, fnNode, context.module)) context.report({ node: effect.node, messageId: 'rewrittenFromStart', data });
          } else if (target.mode.includes('+') && !target.mode.includes('w')) {
            // 'r+' is also how a file is opened to lock it: only a write through it changes anything.
            if (writesThrough(effect.node, fnNode)) context.report({ node: effect.node, messageId: 'updatedInPlace', data });
          } else if (readsPath(fnNode, new Set([path]))) {
            // Read back by this function: a backup nobody reads back does not spare the next read the torn file.
            if (kept) {
              const keptData = { ...data, aside: shortText(kept.aside.text), asideLine: kept.copy.range.startLine };
              context.report({ node: effect.node, messageId: 'rewritesReadFileKeptAside', data: keptData });
            } else {
              context.report({ node: effect.node, messageId: 'rewritesReadFile', data });
            }
          } else if (!kept) {
            // Output nothing here reads back (a report, an export, a pid file) is left alone (read-back.ts).
            const reader = readBackInModule(target.path, context.module) ?? namedByRecord(target.path, fnNode, context.effects);
            if (reader) context.report({ node: effect.node, messageId: 'truncatesInPlace', data: { ...data, reader: readerWords(reader) } });
          }
        }
      },
    };
  },
});

interface WriteTarget {
  path: SyntaxNode;
  mode: string;
  /** `open(..., 'w')` or `write_text()`, for the message. */
  how: string;
  /** `handle.seek(0)` then `handle.write(...)` on a handle opened elsewhere. */
  rewound?: boolean;
}

/** The path a write truncates or updates; undefined for appends, exclusive creation, descriptors and unknown modes. */
function writeTarget(effect: Effect): WriteTarget | undefined {
  const call = callParts(effect.node);
  if ((call.method === 'write_text' || call.method === 'write_bytes') && call.receiver) {
    return { path: call.receiver, mode: 'w', how: `${call.method}()` };
  }
  // Only a rewound handle's write() is a file-write effect of its own (see rewind-write.ts).
  if (call.method === 'write' && call.callee !== 'os.write' && call.receiver) {
    return { path: call.receiver, mode: 'r+', how: 'seek(0), then write()', rewound: true };
  }
  const mode = effect.mode;
  // Appending never truncates, and 'x' only ever creates a new file.
  if (mode === undefined || /[ax]/.test(mode) || !/[w+]/.test(mode)) return undefined;
  const path = PATH_OPENERS.has(call.callee) ? call.positional[0] : call.method === 'open' && !MODULE_OPEN.test(call.callee) ? call.receiver : undefined;
  return path ? { path, mode, how: `open(..., '${mode}')` } : undefined;
}

const BACKUP_SUFFIX = /(~|\.bak|\.old|\.orig|\.backup)$/;

/**
 * `path + '~'`, `f'{name}.bak'`, `p.with_suffix('.old')`, or a local assigned one: a name made for the
 * previous version of a file by appending a backup suffix (not `backup.removesuffix('.bak')`, nor a
 * conditional that may give the live name).
 */
function backupName(path: SyntaxNode): boolean {
  const value = path.type === 'identifier' ? (localAssignmentBefore(path) ?? path) : path;
  if (value.type === 'binary_operator') {
    const right = value.childForFieldName('right');
    return value.childForFieldName('operator')?.text === '+' && right?.type === 'string' && BACKUP_SUFFIX.test(literalText(right));
  }
  if (value.type === 'string') return BACKUP_SUFFIX.test(literalText(value));
  if (value.type === 'call') {
    const parts = callParts(value);
    const [suffix] = parts.positional;
    return parts.method === 'with_suffix' && parts.positional.length === 1 && suffix?.type === 'string' && BACKUP_SUFFIX.test(literalText(suffix));
  }
  return false;
}

/**
 * `removed` is a backup name made from `source` (`source + '.bak'`, directly or through a local), and `source`
 * is a plain name bound only once in the function, so both texts name the same file at the rename.
 */
function backupOf(removed: SyntaxNode, source: SyntaxNode): boolean {
  if (!backupName(removed)) return false;
  const value = removed.type === 'identifier' ? localAssignmentBefore(removed) : removed;
  const base = value?.type === 'binary_operator' ? value.childForFieldName('left') : value?.type === 'call' ? callParts(value).receiver : undefined;
  if (!base || compactText(base) !== compactText(source)) return false;
  if (removed.type === 'identifier' && bindingSites(removed) !== 1) return false;
  return source.type === 'identifier' && bindingSites(source) === 1;
}


/** The node a rename or move takes its file from: `src` of `os.rename(src, dst)` or `src.rename(dst)`. */
function movedSource(node: SyntaxNode): SyntaxNode | undefined {
  const call = callParts(node);
  return call.callee.startsWith('os.') || call.callee.startsWith('shutil.') ? call.positional[0] : call.receiver;
}

/** Source and target of `os.replace(src, dst)`, `os.rename`, `shutil.move` or `src.replace(dst)`, as compact text. */
function movedPaths(node: SyntaxNode): { source?: string; target?: string } {
  const call = callParts(node);
  const moduleCall = call.callee.startsWith('os.') || call.callee.startsWith('shutil.');
  const source = moduleCall ? call.positional[0] : call.receiver;
  const target = moduleCall ? call.positional[1] : call.positional[0];
  return { source: source && compactText(source), target: target && compactText(target) };
}

const HEADER_WRITING_OPENERS = new Set(['gzip.open', 'bz2.open', 'lzma.open', 'tarfile.open']);

/**
 * `open(path, 'w+').close()` (beets' config_edit) or an empty `with` block: creates or empties the file and writes
 * nothing that a crash could tear, unless the function writes the same path otherwise too (emptied, then appended
 * to through another handle: a second reading's near-miss). Not gzip/bz2/lzma/tarfile.open, which write a header
 * and trailer on close. Partial: a write of the same file under another spelling, or by a caller after this
 * function, is not seen.
 */
function closedAtOnce(openCall: SyntaxNode, effects: readonly Effect[]): boolean {
  // A compressing or archive opener writes its header and trailer on close, with nothing written through it.
  if (HEADER_WRITING_OPENERS.has(callParts(openCall).callee)) return false;
  const attribute = openCall.parent;
  const closed = attribute?.type === 'attribute' && attribute.childForFieldName('attribute')?.text === 'close' && attribute.parent?.type === 'call';
  if (!closed && !emptyWithBlock(openCall)) return false;
  const path = openedPath(openCall);
  return path !== undefined && !effects.some((effect) => effect.kind === 'file-write' && effect.node.id !== openCall.id && namesPath(effect.node, path));
}

/** The compact text of the path an opener names: `open(P, ...)` or `P.open(...)`. */
function openedPath(openCall: SyntaxNode): string | undefined {
  const call = callParts(openCall);
  const path = PATH_OPENERS.has(call.callee) ? call.positional[0] : call.receiver;
  return path && compactText(path);
}

/** A write call (or a helper's call carrying one) that is handed the path or called on it. */
function namesPath(node: SyntaxNode, path: string): boolean {
  const call = callParts(node);
  return [call.receiver, ...call.positional, ...call.keywords.values()].some((argument) => argument !== undefined && compactText(argument) === path);
}

/**
 * `with open(path, 'w'): pass` (keyrings.alt's `_ensure_file_path`) or `with open(path, 'w') as h: h.write('')`
 * (configobj's `create_empty`): the block writes nothing, so an empty file is all the open means to leave.
 */
function emptyWithBlock(openCall: SyntaxNode): boolean {
  const item = openCall.parent?.type === 'as_pattern' ? openCall.parent.parent : openCall.parent;
  const statement = item?.type === 'with_item' ? item.parent?.parent : undefined;
  if (statement?.type !== 'with_statement' || statement.descendantsOfType('with_item').length !== 1) return false;
  const handle = openCall.parent?.type === 'as_pattern' ? openCall.parent.childForFieldName('alias') : null;
  const body = statement.childForFieldName('body')?.namedChildren.filter((child) => child.type !== 'comment') ?? [];
  return body.length > 0 && body.every((child) => child.type === 'pass_statement' || (handle !== null && writesEmptyString(child, compactText(handle))));
}

/** `handle.write('')` or `handle.write(b"")` as a statement of its own. */
function writesEmptyString(statement: SyntaxNode, handle: string): boolean {
  const expression = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
  if (expression?.type !== 'call') return false;
  const call = callParts(expression);
  const [argument] = call.positional;
  return call.method === 'write' && call.receiver !== undefined && compactText(call.receiver) === handle && call.positional.length === 1 && argument?.type === 'string' && /^[bBrRuU]*(''|"")$/.test(argument.text);
}

const WRITE_METHODS = new Set(['write', 'writelines', 'truncate']);

/** The file object `open(...)` returns is written to in the function; true when it is not bound to a name we can follow. */
function writesThrough(openCall: SyntaxNode, fnNode: SyntaxNode): boolean {
  const parent = openCall.parent;
  const bound =
    parent?.type === 'as_pattern' ? parent.childForFieldName('alias') : parent?.type === 'assignment' ? parent.childForFieldName('left') : null;
  if (!bound) return true;
  const name = compactText(bound);
  let written = false;
  walkFunctionBody(fnNode, (node) => {
    if (written || node.type !== 'call') return;
    const call = callParts(node);
    // A write on the other arm of the open's `if` goes to another file opened there (queuelib's LifoDiskQueue.__init__).
    // Unless a loop carries the handle from one pass to the next (opened under `if f is None:`, written in the else).
    const otherArm = !enclosingLoop(openCall, fnNode) && mutuallyExclusive(openCall, node, fnNode);
    written = WRITE_METHODS.has(call.method) && call.receiver !== undefined && compactText(call.receiver) === name && !otherArm;
  });
  return written;
}
