// Whether code of the module hands one path to both a writing function and a reading one:
// lib2to3's processed_file(new_text, filename) calls self._read_python_source(filename) and
// self.write_file(new_text, filename, ...), so write_file rewrites the file _read_python_source
// reads, whatever their names say. Followed up through callers that pass their own parameter on.
// The reading function may be that caller: store_option(path, ...) reads path, then hands it to
// write_settings(path, ...), a read-modify-write of one file.
import type { PyModule, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { enclosingFunctionNode } from '../functions.ts';
import { moduleFacts } from '../module-facts.ts';
import { memoizePer } from '../memo.ts';
import { compactText } from './syntax.ts';
import { parameterNames } from './exclusive-guards.ts';
import { parsesWhatItReads } from './role-pairs.ts';

/** How many callers up a path is followed from the writing function. */
const MAX_HOPS = 3;

/** Every call of the module, by the name of what it calls (`write_file` of `self.write_file(...)`). */
const callsByName = memoizePer((module: PyModule): Map<string, SyntaxNode[]> => {
  const byName = new Map<string, SyntaxNode[]>();
  for (const scope of moduleFacts(module).scopes.values()) {
    for (const { node } of scope.calls) {
      const name = callParts(node).method;
      const known = byName.get(name);
      if (known) known.push(node);
      else byName.set(name, [node]);
    }
  }
  return byName;
});

/** The argument a call passes for `fnNode`'s parameter `name`: by keyword, or by position (`self` left out of a method call). */
function argumentFor(call: SyntaxNode, fnNode: SyntaxNode, name: string): SyntaxNode | undefined {
  const parts = callParts(call);
  const keyword = parts.keywords.get(name);
  if (keyword) return keyword;
  const params = [...parameterNames(fnNode)];
  const bound = parts.receiver && (params[0] === 'self' || params[0] === 'cls') ? 1 : 0;
  const index = params.indexOf(name) - bound;
  return index >= 0 ? parts.positional[index] : undefined;
}

/**
 * `fnNode` (or a function it is called from, passing the path on) calls `reader` with the path's name as an
 * argument, or is `reader` itself handing on its parameter `parameter`, the one it reads.
 */
export function sharedCaller(writer: SyntaxNode, parameter: string, reader: string, module: PyModule): boolean {
  // Not a caller's question, asked here because read-back.ts consults only this and rolesDiffer(), which is
  // given names, not the reading function. It belongs beside rolesDiffer there: a reader that parses the file
  // loads it, whatever the names say (role-pairs.ts).
  if (parsesWhatItReads(reader, module)) return true;
  const calls = callsByName(module);
  const seen = new Set<string>();
  let frontier: { fnNode: SyntaxNode; name: string }[] = [{ fnNode: writer, name: parameter }];
  for (let hop = 0; hop <= MAX_HOPS && frontier.length > 0; hop++) {
    const next: typeof frontier = [];
    for (const { fnNode, name } of frontier) {
      const key = `${fnNode.id}:${name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const readsIt = (calls.get(reader) ?? []).some(
        (call) => enclosingFunctionNode(call)?.id === fnNode.id && [...callParts(call).positional, ...callParts(call).keywords.values()].some((argument) => compactText(argument) === name),
      );
      const own = fnNode.childForFieldName('name')?.text ?? '';
      // The reader read its own parameter of this name (a `param:` key is made only so) and passes it on here.
      if (readsIt || (hop > 0 && own === reader && name === parameter)) return true;
      for (const call of calls.get(own) ?? []) {
        const caller = enclosingFunctionNode(call);
        const passed = caller && argumentFor(call, fnNode, name);
        if (caller && passed?.type === 'identifier') next.push({ fnNode: caller, name: passed.text });
      }
    }
    frontier = next;
  }
  return false;
}
