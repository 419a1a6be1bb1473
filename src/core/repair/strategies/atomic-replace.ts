// A file rewritten in place (`with open(path, "w") as f:`): the new content goes to
// a temporary file in the same folder, is flushed and fsynced, and os.replace()
// swaps it in, so a crash leaves the old file or the new one, never a cut-off one.
import { callParts } from '../../python/body-walk.ts';
import type { PyModule, SyntaxNode } from '../../python/model.ts';
import { resolveString } from '../../python/string-value.ts';
import { applyEdits, descendantsOfType, ensureImport, freshName, indentOf, indentUnit, lineEnd, lineStart, namesUsed, type TextEdit } from '../source-edit.ts';
import type { RepairStrategy } from './strategy.ts';

export const atomicReplace: RepairStrategy = {
  id: 'atomic-replace',
  answers: ['in-place-file-rewrite'],
  apply({ module, fn }) {
    const { source } = module;
    const unit = indentUnit(module.tree.rootNode, source);
    const taken = namesUsed(fn.node);
    const edits: TextEdit[] = [];
    const rewritten: string[] = [];
    for (const statement of descendantsOfType(fn.node, ['with_statement'])) {
      const found = inPlaceOpen(statement, module);
      if (!found) continue;
      const { call, pathNode, handle } = found;
      // A temporary file that the function itself swaps in afterwards is already the atomic pattern.
      if (swappedInLater(fn.node, statement, pathNode.text)) continue;
      const indent = indentOf(source, statement);
      const inner = indent + unit;
      const block = statement.childForFieldName('body');
      if (!block) continue;
      const simple = /^[\w.]+$/.test(pathNode.text);
      const target = simple ? pathNode.text : freshName(taken, 'target_path');
      const tmp = freshName(taken, 'tmp_path');
      const before = [
        ...(simple ? [] : [`${indent}${target} = ${pathNode.text}`]),
        `${indent}${tmp} = f"{${target}}.tmp"`,
      ].join('\n');
      const head = source.slice(lineStart(source, statement.startIndex), pathNode.startIndex) + tmp + source.slice(pathNode.endIndex, block.startIndex);
      const bodyText = source.slice(block.startIndex, lineEnd(source, block.endIndex - 1)).replace(/\n?$/, '\n');
      const text = `${before}\n${head}${bodyText}${inner}${handle}.flush()\n${inner}os.fsync(${handle}.fileno())\n${indent}os.replace(${tmp}, ${target})\n`;
      edits.push({ start: lineStart(source, statement.startIndex), end: lineEnd(source, statement.endIndex - 1), text });
      rewritten.push(call.text.split('\n')[0]!);
    }
    if (edits.length === 0) return undefined;
    const importOs = ensureImport(source, module.tree.rootNode, 'os');
    return {
      source: applyEdits(source, importOs ? [importOs, ...edits] : edits),
      summary: `\`${rewritten.join('`, `')}\` writes a temporary file in the same folder, flushes and fsyncs it, then os.replace() swaps it in`,
    };
  },
};

function swappedInLater(fnNode: SyntaxNode, after: SyntaxNode, path: string): boolean {
  return descendantsOfType(fnNode, ['call']).some((c) => {
    if (c.startIndex < after.endIndex) return false;
    const parts = callParts(c);
    return ['os.replace', 'os.rename', 'shutil.move'].includes(parts.callee) && parts.positional[0]?.text === path;
  });
}

/** `with open(PATH, "w"...) as f:` (one item, a write mode that truncates): the call, the path and the handle's name. */
function inPlaceOpen(statement: SyntaxNode, module: PyModule): { call: SyntaxNode; pathNode: SyntaxNode; handle: string } | undefined {
  const items = statement.namedChildren.find((n) => n.type === 'with_clause')?.namedChildren ?? [];
  if (items.length !== 1) return undefined;
  const asPattern = items[0]!.childForFieldName('value');
  if (asPattern?.type !== 'as_pattern') return undefined;
  const call = asPattern.namedChildren[0];
  const handle = asPattern.childForFieldName('alias')?.text ?? asPattern.namedChildren[1]?.text;
  if (call?.type !== 'call' || !handle || !/^\w+$/.test(handle)) return undefined;
  const parts = callParts(call);
  if (parts.callee !== 'open' && parts.callee !== 'io.open') return undefined;
  const modeNode = parts.positional[1] ?? parts.keywords.get('mode');
  const mode = modeNode ? resolveString(modeNode, module)?.text : undefined;
  const pathNode = parts.positional[0] ?? parts.keywords.get('file');
  if (!pathNode || mode === undefined || !/^w[bt+]*$/.test(mode)) return undefined;
  return { call, pathNode, handle };
}
