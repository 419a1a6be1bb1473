// Whether a sqlite3 constructor's `**kwargs` can carry a mode: gajim's `SqliteStorage._connect(self, **kwargs)`
// calls `sqlite3.connect(path, **kwargs)`, and every call of `_connect` (through `_create_storage(**kwargs)` and
// `init(**kwargs)`) passes only `detect_types=`. Proven when the dict is the enclosing function's own `**`
// parameter, used nowhere else in it; every call anywhere in the repository spelled with the function's name
// (overrides and namesakes too) passes no mode, no factory and no `*args`, and a `**y` only when `y` is in turn
// its caller's own `**` parameter, proven the same way; and the function's name is never used but to call it
// (`opener = self._connect` could be called with anything).
// Partial: the repository is taken as closed. A public forwarding function (gajim's `init`) may be called from
// outside with any keyword; `getattr(obj, name)` with a name held elsewhere is not seen.
import type { PyModule, SyntaxNode } from '../model.ts';
import type { RepoIndex } from '../callgraph.ts';
import { callParts } from '../body-walk.ts';
import { decoratorTexts, enclosingFunctionNode } from '../functions.ts';
import { getattrComputed, namedForGetattr, referencesTo } from './name-references.ts';
import { importBindings } from '../imports.ts';

const CARRY_MODE = new Set(['isolation_level', 'autocommit', 'factory']);
const MAX_DEPTH = 8;

/** Undefined when the call's `**` dicts cannot carry a mode; else why they may. */
export function forwardedKeywords(call: SyntaxNode, module: PyModule, index: RepoIndex): string | undefined {
  return refusal(call, module, index, 0, new Set());
}

function refusal(call: SyntaxNode, module: PyModule, index: RepoIndex, depth: number, seen: Set<string>): string | undefined {
  if (depth > MAX_DEPTH) return 'forwarded through too many functions';
  const parts = callParts(call);
  const where = `${module.path}:${call.startPosition.row + 1}`;
  if (parts.positional.some((argument) => argument.type === 'list_splat')) return `*args at ${where}`;
  for (const keyword of parts.keywords.keys()) if (CARRY_MODE.has(keyword)) return `${keyword}= at ${where}`;
  const splats = parts.positional.filter((argument) => argument.type === 'dictionary_splat');
  if (splats.length === 0) return undefined;
  const fnNode = enclosingFunctionNode(call);
  const fnName = fnNode?.childForFieldName('name')?.text;
  if (!fnNode || !fnName) return `**dict outside a function at ${where}`;
  // A dunder runs under no name of its own (`Database(path, **options)` runs __init__), a `__private` one under a mangled name.
  if (fnName.startsWith('__')) return `${fnName} is called under another name (${where})`;
  if (decoratorTexts(fnNode).length > 0) return `${fnName} is decorated: its decorator may add keywords (${where})`;
  for (const splat of splats) {
    const name = splat.namedChildren[0];
    if (name?.type !== 'identifier' || !ownKeywordsParameter(fnNode, name.text)) return `**${splat.namedChildren[0]?.text ?? ''} is not ${fnName}'s own ** parameter (${where})`;
    const body = fnNode.childForFieldName('body');
    if (body?.descendantsOfType('identifier').some((use) => use.text === name.text && use.parent?.type !== 'dictionary_splat')) return `**${name.text} is also used otherwise in ${fnName} (${where})`;
    const key = `${module.path}:${fnNode.startIndex}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const holder = fnNode.parent?.type === 'decorated_definition' ? fnNode.parent.parent : fnNode.parent;
    const method = holder?.type === 'block' && holder.parent?.type === 'class_definition';
    for (const each of index.modules.values()) {
      if (getattrComputed(each)) return `getattr with a computed name in ${each.path} may reach ${fnName}`;
      const alias = importBindings(each).find((binding) => binding.name === fnName && binding.localName !== fnName);
      if (alias) return `${fnName} imported as ${alias.localName} in ${each.path}`;
      for (const { use, call: caller } of referencesTo(each, fnName, method)) {
        if (!caller) return `${fnName} used as a value at ${each.path}:${use.startPosition.row + 1}`;
        const refused = refusal(caller, each, index, depth + 1, seen);
        if (refused) return refused;
      }
      if (namedForGetattr(each, fnName)) return `getattr names ${fnName} in ${each.path}`;
    }
  }
  return undefined;
}

function ownKeywordsParameter(fnNode: SyntaxNode, name: string): boolean {
  return (fnNode.childForFieldName('parameters')?.namedChildren ?? []).some((parameter) => {
    const pattern = parameter.type === 'typed_parameter' ? parameter.namedChildren[0] : parameter;
    return pattern?.type === 'dictionary_splat_pattern' && pattern.namedChildren[0]?.text === name;
  });
}
