// What a function writes into a file it opens for writing: the arguments of
// `f.write(...)` (and writelines, a csv writer's writerow, a Pickler's dump on
// a wrapper made from the handle), of `json.dump(data, f)` or `print(x, file=f)`,
// of `path.write_text(data)`. Undefined when the handle goes somewhere whose
// writes cannot be seen: returned, stored, or handed to a function of the
// project (`self._dump(f)`, `_export(rows, f)`), or a method not known as a
// read, write or housekeeping call is called on it.
import type { Effect, PyModule, SyntaxNode } from '../model.ts';
import { callParts, walkFunctionBody } from '../body-walk.ts';
import { importBindings } from '../imports.ts';

const WRITES = /^(write|dump$)/;
const HOUSEKEEPING = new Set([
  'close', 'flush', 'fileno', 'seek', 'tell', 'truncate', 'readable', 'writable', 'seekable', 'isatty', 'getvalue',
  'read', 'readline', 'readlines', '__enter__', '__exit__',
]);
/** Wrappers of wrappers of the handle are followed this deep. */
const MAX_WRAPPERS = 2;

export function writtenData(write: Effect, fnNode: SyntaxNode, module: PyModule): SyntaxNode[] | undefined {
  const call = callParts(write.node);
  if (call.method === 'write_text' || call.method === 'write_bytes') return call.positional[0] ? [call.positional[0]] : undefined;
  const imported = new Set(importBindings(module).map((binding) => binding.localName));
  return dataThrough(write.node, { fnNode, imported }, 0);
}

interface Scope {
  fnNode: SyntaxNode;
  imported: ReadonlySet<string>;
}

/** The data written through `handle` (an opener's or a wrapper's call): through the name it is bound to, or where it stands. */
function dataThrough(handle: SyntaxNode, scope: Scope, depth: number): SyntaxNode[] | undefined {
  const parent = handle.parent;
  const boundTo =
    parent?.type === 'as_pattern' && parent.namedChildren[0]?.id === handle.id
      ? parent.childForFieldName('alias')?.namedChildren[0]
      : parent?.type === 'assignment' && parent.childForFieldName('right')?.id === handle.id
        ? parent.childForFieldName('left')
        : undefined;
  if (parent?.type === 'as_pattern' || parent?.type === 'assignment') {
    if (boundTo?.type !== 'identifier') return undefined;
    const data: SyntaxNode[] = [];
    for (const use of usesAfter(boundTo, scope.fnNode)) {
      const written = dataOfUse(use, scope, depth);
      if (!written) return undefined;
      data.push(...written);
    }
    return data;
  }
  return dataOfUse(handle, scope, depth);
}

/** Mentions of the name `bound` binds, after it is bound, outside nested functions. */
function usesAfter(bound: SyntaxNode, fnNode: SyntaxNode): SyntaxNode[] {
  const uses: SyntaxNode[] = [];
  walkFunctionBody(fnNode, (node) => {
    if (node.type === 'identifier' && node.text === bound.text && node.startIndex > bound.endIndex && !isMemberName(node)) uses.push(node);
  });
  return uses;
}

/** `csv.writer`'s `writer`, `f(name=...)`'s `name`: a name spelled the same, not a mention of the variable. */
function isMemberName(node: SyntaxNode): boolean {
  const parent = node.parent;
  if (parent?.type === 'attribute') return parent.childForFieldName('attribute')?.id === node.id;
  return parent?.type === 'keyword_argument' && parent.childForFieldName('name')?.id === node.id;
}

/** What one mention of the handle writes: [] when it writes nothing, undefined when that cannot be seen. */
function dataOfUse(use: SyntaxNode, scope: Scope, depth: number): SyntaxNode[] | undefined {
  const parent = use.parent;
  if (!parent) return undefined;
  if (parent.type === 'attribute' && parent.childForFieldName('object')?.id === use.id) {
    const call = parent.parent;
    if (call?.type !== 'call' || call.childForFieldName('function')?.id !== parent.id) return []; // `f.name`, `f.closed`
    const parts = callParts(call);
    if (WRITES.test(parts.method)) return [...parts.positional, ...parts.keywords.values()];
    return HOUSEKEEPING.has(parts.method) ? [] : undefined;
  }
  const argumentList = parent.type === 'keyword_argument' ? parent.parent : parent;
  if (argumentList?.type === 'argument_list' && argumentList.parent?.type === 'call') {
    const call = argumentList.parent;
    // `w = csv.writer(f)`, `with zipfile.ZipFile(f, 'w') as z`: what goes through the wrapper.
    const wrapped = call.parent?.type === 'assignment' || call.parent?.type === 'as_pattern';
    if (wrapped) return depth < MAX_WRAPPERS ? dataThrough(call, scope, depth + 1) : undefined;
    return dataOfCallTaking(call, parent.type === 'keyword_argument' ? parent : use, scope);
  }
  // `with f:`, a bare `f`, the target of a later rebinding.
  if (parent.type === 'with_item' || parent.type === 'expression_statement') return [];
  if (parent.type === 'assignment' && parent.childForFieldName('left')?.id === use.id) return [];
  return undefined;
}

/** `json.dump(rows, f)`, `print(line, file=f)`, `rows.to_csv(f)`: everything but the handle; a project function's writes are not seen. */
function dataOfCallTaking(call: SyntaxNode, handleArgument: SyntaxNode, scope: Scope): SyntaxNode[] | undefined {
  const fn = call.childForFieldName('function');
  const library = fn?.type === 'identifier' && (fn.text === 'print' || scope.imported.has(fn.text));
  if (fn?.type !== 'attribute' && !library) return undefined;
  const calledOn = fn?.type === 'attribute' ? [fn.childForFieldName('object')!] : [];
  const others = (call.childForFieldName('arguments')?.namedChildren ?? []).filter((argument) => argument.id !== handleArgument.id && argument.type !== 'comment');
  return [...calledOn, ...others];
}
