import type { Effect, SyntaxNode } from '../model.ts';
import { callParts, walkFunctionBody } from '../body-walk.ts';
import { defineRule } from './rule.ts';
import { compactText, isTemporaryPath, mutuallyExclusive } from './syntax.ts';
import { PATH_OPENERS, readsPath } from './file-reads.ts';
import { rebuiltFromIntactSource } from './rebuilt-from-source.ts';
import { targetKnownAbsent } from './absent-target-guard.ts';

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
      updatedInPlace: '{{path}} is opened \'{{mode}}\' and changed in place: a crash mid-write leaves it part old, part new',
      truncatesInPlace: '{{path}} is truncated and written in place ({{how}}): a crash mid-write leaves it empty or torn',
      rewrittenFromStart:
        '{{path}} is rewritten from its start through a file kept open (seek(0), then write()): a crash mid-write leaves it part new, part old or cut short',
      removedBeforeRename:
        '{{path}} is removed before the new file is renamed over it (line {{renameLine}}): a crash between them leaves no file at all',
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
      context.report({ node: removal.node, messageId: 'removedBeforeRename', data: { path: shorten(removed.text), renameLine: rename.range.startLine } });
    };
    return {
      'function:exit'() {
        const moves = context.effects.filter((effect) => (effect.kind === 'file-replace' || effect.kind === 'file-rename') && !effect.via);
        for (const effect of context.effects) {
          if (effect.kind === 'file-delete' && !effect.via) reportRemovedBeforeRename(effect, moves);
          if (effect.kind !== 'file-write' || effect.via) continue;
          const target = writeTarget(effect);
          if (!target || isTemporaryPath(target.path) || closedAtOnce(effect.node)) continue;
          const path = compactText(target.path);
          // Written, then moved over its target: the temp-file pattern, whatever the name.
          if (moves.some((move) => move.node.startIndex > effect.node.startIndex && movedPaths(move.node).source === path)) continue;
          if (rebuiltFromIntactSource(target.path, effect, fnNode, context.effects)) continue;
          // The function goes on only when the target is absent: the write creates a new file, no old contents to tear.
          if (!target.rewound && targetKnownAbsent(target.path, effect, fnNode, context.effects)) continue;
          const data = { path: shorten(target.path.text), how: target.how, mode: target.mode };
          if (target.rewound) {
            context.report({ node: effect.node, messageId: 'rewrittenFromStart', data });
          } else if (target.mode.includes('+') && !target.mode.includes('w')) {
            // 'r+' is also how a file is opened to lock it: only a write through it changes anything.
            if (writesThrough(effect.node, fnNode)) context.report({ node: effect.node, messageId: 'updatedInPlace', data });
          } else if (readsPath(fnNode, new Set([path]))) {
            context.report({ node: effect.node, messageId: 'rewritesReadFile', data });
          } else {
            context.report({ node: effect.node, messageId: 'truncatesInPlace', data });
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

/** Source and target of `os.replace(src, dst)`, `os.rename`, `shutil.move` or `src.replace(dst)`, as compact text. */
function movedPaths(node: SyntaxNode): { source?: string; target?: string } {
  const call = callParts(node);
  const moduleCall = call.callee.startsWith('os.') || call.callee.startsWith('shutil.');
  const source = moduleCall ? call.positional[0] : call.receiver;
  const target = moduleCall ? call.positional[1] : call.positional[0];
  return { source: source && compactText(source), target: target && compactText(target) };
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 40 ? `${flat.slice(0, 37)}...` : flat;
}

/** `open(path, 'w+').close()` (beets' config_edit): creates or empties the file and writes nothing that a crash could tear. */
function closedAtOnce(openCall: SyntaxNode): boolean {
  const attribute = openCall.parent;
  return attribute?.type === 'attribute' && attribute.childForFieldName('attribute')?.text === 'close' && attribute.parent?.type === 'call';
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
    written = WRITE_METHODS.has(call.method) && call.receiver !== undefined && compactText(call.receiver) === name;
  });
  return written;
}
