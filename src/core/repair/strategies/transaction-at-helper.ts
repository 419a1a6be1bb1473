// Writes that reach the function only through a helper that commits them itself:
// the helper is the unit of work, so the transaction goes there (where it also
// serves the helper's other callers), not around the call. The choice follows the
// call graph the effects were found through: a helper that leaves the commit to
// its caller is repaired at the caller instead (begin-commit.ts counts its writes
// as the caller's), and a function with writes of its own around the call is left
// to the caller-side strategies. A helper in another module is not rewritten (a
// candidate is one module's text): no repair from this strategy then.
import { findEffects } from '../../python/effects.ts';
import type { Effect } from '../../python/model.ts';
import { parseModule } from '../../python/parse.ts';
import { beginCommit } from './begin-commit.ts';
import { findFunction, ownTransaction } from './own-transaction.ts';
import type { RepairStrategy } from './strategy.ts';

const WRITES = new Set<Effect['kind']>(['db-write', 'db-ddl']);

/** `inner` (the BEGIN lines, or the helper-class wrap as fallback) applied to each same-module helper that commits the function's writes. */
function atHelper(id: string, inner: RepairStrategy): RepairStrategy {
  return {
    id,
    answers: inner.answers,
    apply({ module, fn, resumable }) {
      const effects = findEffects(fn, module);
      if (effects.some((e) => !e.via && (WRITES.has(e.kind) || e.kind === 'db-begin'))) return undefined;
      const helperWrites = effects.filter((e) => e.via && WRITES.has(e.kind));
      const committed = new Set(effects.filter((e) => e.via && e.kind === 'db-commit').map((e) => e.node.id));
      if (helperWrites.length === 0 || !helperWrites.every((w) => committed.has(w.node.id))) return undefined;
      const helpers = [...new Set(helperWrites.map((w) => w.via!))].filter((v, i, all) => all.findIndex((o) => o.qualname === v.qualname) === i);
      if (helpers.some((h) => h.path !== module.path)) return undefined;
      let current = module;
      const said: string[] = [];
      for (const { qualname } of helpers) {
        const helper = findFunction(current, qualname);
        const out = helper && inner.apply({ module: current, fn: helper, resumable });
        if (!out) continue;
        current = parseModule(module.path, out.source);
        said.push(`in \`${qualname}\`, which commits the writes itself (for every caller): ${out.summary}`);
      }
      return said.length ? { source: current.source, summary: said.join('; ') } : undefined;
    },
  };
}

export const beginCommitAtHelper = atHelper('begin-commit-at-helper', beginCommit);
export const ownTransactionAtHelper = atHelper('own-transaction-at-helper', ownTransaction);
