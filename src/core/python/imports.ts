// Module names and import bindings: what each imported name refers to, as a
// dotted module path and, for `from m import x`, the name inside it.
import type { PyModule, SyntaxNode } from './model.ts';
import { moduleFacts } from './module-facts.ts';

export interface ImportBinding {
  /** The name the importing module uses: `d` in `from a.b import c as d`, `a` in `import a.b`. */
  localName: string;
  /** Absolute dotted module: `a.b`. Relative imports are made absolute against the importing file. */
  module: string;
  /** For `from m import name`: the imported name (may be a submodule, a function, a class). */
  name?: string;
  /** `from m import *`. */
  star?: boolean;
  line: number;
}

/** `app/orders.py` → `app.orders`; `app/__init__.py` → `app`. */
export function dottedModuleName(path: string): string {
  const parts = path.replace(/\.pyi?$/, '').split('/').filter(Boolean);
  if (parts[parts.length - 1] === '__init__') parts.pop();
  return parts.join('.');
}

/** The package relative imports start from: the module's parent, or the package itself for `__init__.py`. */
function packageOf(path: string): string[] {
  const dotted = dottedModuleName(path).split('.').filter(Boolean);
  return /(^|\/)__init__\.pyi?$/.test(path) ? dotted : dotted.slice(0, -1);
}

/** Every import in the module, function-local ones included (they bind in the function, close enough here). */
export function importBindings(module: PyModule): ImportBinding[] {
  return moduleFacts(module).imports.flatMap((node) => (node.type === 'import_statement' ? plainImport(node) : fromImport(node, module.path)));
}

function plainImport(node: SyntaxNode): ImportBinding[] {
  const line = node.startPosition.row + 1;
  return node.namedChildren.flatMap((item): ImportBinding[] => {
    if (item.type === 'dotted_name') return [{ localName: item.text.split('.')[0]!, module: item.text.split('.')[0]!, line }];
    if (item.type === 'aliased_import') {
      const name = item.childForFieldName('name')?.text;
      const alias = item.childForFieldName('alias')?.text;
      return name && alias ? [{ localName: alias, module: name, line }] : [];
    }
    return [];
  });
}

function fromImport(node: SyntaxNode, path: string): ImportBinding[] {
  const line = node.startPosition.row + 1;
  const source = node.childForFieldName('module_name');
  if (!source) return [];
  const module = absoluteModule(source, path);
  if (module === undefined) return [];
  const bindings: ImportBinding[] = [];
  for (const item of node.namedChildren) {
    if (item.id === source.id) continue;
    if (item.type === 'wildcard_import') bindings.push({ localName: '*', module, star: true, line });
    else if (item.type === 'dotted_name') bindings.push({ localName: item.text, module, name: item.text, line });
    else if (item.type === 'aliased_import') {
      const name = item.childForFieldName('name')?.text;
      const alias = item.childForFieldName('alias')?.text;
      if (name && alias) bindings.push({ localName: alias, module, name, line });
    }
  }
  return bindings;
}

/** `.x` in `app/a.py` → `app.x`; `..` from `app/sub/b.py` → `app`; undefined when it climbs above the root. */
function absoluteModule(source: SyntaxNode, path: string): string | undefined {
  if (source.type !== 'relative_import') return source.text;
  const prefix = source.namedChildren.find((child) => child.type === 'import_prefix')?.text ?? '.';
  const rest = source.namedChildren.find((child) => child.type === 'dotted_name')?.text;
  const base = packageOf(path);
  const up = prefix.length - 1;
  if (up > base.length) return undefined;
  return [...base.slice(0, base.length - up), ...(rest ? [rest] : [])].join('.');
}
