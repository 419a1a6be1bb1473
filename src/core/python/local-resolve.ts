// Resolves a call to a function defined in the same module, by name:
// `helper()` to a sibling nested def or a top-level def, `self.m()` and
// `cls.m()` to a method of the enclosing class, `Class.m()` to that method.
import type { PyFunction, PyModule, SyntaxNode } from './model.ts';
import { listFunctions } from './functions.ts';
import { calleeTextOf } from './module-facts.ts';
import { memoizePer } from './memo.ts';

/** The module's functions by qualname; the first definition wins, as for a reader scanning down. */
export const functionsByQualname: (module: PyModule) => Map<string, PyFunction> = memoizePer((module: PyModule) => {
  const index = new Map<string, PyFunction>();
  for (const fn of listFunctions(module)) if (!index.has(fn.qualname)) index.set(fn.qualname, fn);
  return index;
});

export function resolveLocalCall(call: SyntaxNode, module: PyModule, caller?: PyFunction): PyFunction | undefined {
  // Read off the callee's text: a plain name or `x.name` is all this resolves, and text is cheaper than nodes.
  const match = /^(?:([A-Za-z_]\w*)\s*\.\s*)?([A-Za-z_]\w*)$/.exec(calleeTextOf(call));
  if (!match) return undefined;
  const [, receiver, name = ''] = match;
  const index = functionsByQualname(module);
  if (receiver === undefined) {
    // Innermost scope first: a def nested in the caller, then in its parents, then the module.
    for (const scope of caller ? enclosingScopes(caller.qualname) : ['']) {
      const found = index.get(scope ? `${scope}.${name}` : name);
      if (found && found.className === undefined) return found;
    }
    return undefined;
  }
  if ((receiver === 'self' || receiver === 'cls') && caller?.className) {
    return index.get(`${classQualname(caller)}.${name}`);
  }
  const found = index.get(`${receiver}.${name}`);
  return found?.className === receiver ? found : undefined;
}

/** `Outer.Inner` for a method `Outer.Inner.m`. */
export function classQualname(method: Pick<PyFunction, 'qualname' | 'name'>): string {
  return method.qualname.slice(0, method.qualname.length - method.name.length - 1);
}

/** `a.b.c` → [`a.b.c`, `a.b`, `a`, ``]: where a name used inside `a.b.c` may be defined. */
export function enclosingScopes(qualname: string): string[] {
  const parts = qualname.split('.');
  const scopes: string[] = [];
  for (let length = parts.length; length >= 0; length--) scopes.push(parts.slice(0, length).join('.'));
  return scopes;
}
