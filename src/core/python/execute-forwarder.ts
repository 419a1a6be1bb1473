// Methods that only pass their SQL on to execute, written in the same module
// as their calls: beets' `Transaction.mutate(self, statement, subvals)` runs
// `self.db._connection().execute(statement, subvals)`, and `tx.mutate("INSERT
// …")` is then read as that execute call, with the SQL the caller wrote.
// The receiver's type is not known: a same-module method of that name that
// forwards its first parameter is taken as the one called, as a reader would.
// Partial: calls from other modules (beets' library/migrations.py) are not seen.
import type { PyModule } from './model.ts';
import type { CallParts } from './body-walk.ts';
import { callParts } from './body-walk.ts';
import { listFunctions } from './functions.ts';
import { scopeFacts } from './module-facts.ts';
import { memoizePer } from './memo.ts';

const EXECUTE = /\.\s*(execute|executemany|executescript)\s*$/;

/** Method name → the execute method it forwards its first parameter to. */
const forwarders = memoizePer((module: PyModule): ReadonlyMap<string, string> => {
  const found = new Map<string, string>();
  if (!/\.\s*execute(many|script)?\s*\(/.test(module.source)) return found;
  for (const fn of listFunctions(module)) {
    if (fn.className === undefined || EXECUTE.test(`.${fn.name}`)) continue;
    const sqlParam = fn.params[1];
    if (!sqlParam || sqlParam.startsWith('*')) continue;
    for (const { node, callee } of scopeFacts(module, fn.node).calls) {
      const method = EXECUTE.exec(callee)?.[1];
      if (method && callParts(node).positional[0]?.text === sqlParam) {
        found.set(fn.name, method);
        break;
      }
    }
  }
  return found;
});

/** A cheap test on the callee's text: `x.name(...)` where the module defines a forwarding method `name`. */
export function mayBeForwarded(callee: string, module: PyModule): boolean {
  const name = /\.\s*([A-Za-z_]\w*)\s*$/.exec(callee)?.[1];
  return name !== undefined && forwarders(module).has(name);
}

/** `tx.mutate(sql, args)` read as `tx.execute(sql, args)`; undefined when the call is not of a forwarding method. */
export function forwardedParts(parts: CallParts, module: PyModule): CallParts | undefined {
  const method = parts.receiver ? forwarders(module).get(parts.method) : undefined;
  return method && parts.positional.length > 0 ? { ...parts, method } : undefined;
}
