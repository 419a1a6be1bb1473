// The effects of one function, in source order: its own calls, plus the
// effects of same-repository helpers it calls, followed one level and marked
// with `via`. A helper's effect is anchored at the call in this function
// (so a finding lands in the function under review); `via` says where it
// really happens. Also read as database calls: aliases of execute
// (execute-alias.ts), same-module methods that pass SQL on to execute
// (execute-forwarder.ts), a decorated helper's wrapper (decorator-effects.ts),
// and transaction blocks opened by `with` managers (with-blocks.ts).
import type { Effect, PyFunction, PyModule, SyntaxNode } from './model.ts';
import { callParts } from './body-walk.ts';
import { calleeTextOf, scopeFacts } from './module-facts.ts';
import { callEffect, mayHaveEffect } from './call-effects.ts';
import { resolveLocalCall } from './local-resolve.ts';
import { executeAliasParts, mayBeExecuteAlias } from './execute-alias.ts';
import { decoratorEffects } from './decorator-effects.ts';
import { forwardedParts, mayBeForwarded } from './execute-forwarder.ts';
import { rangeOf } from './source-range.ts';
import { inBlockOrder, managedBlock, transactionManagerBlock } from './with-blocks.ts';
import { callSkipsCommit } from './commit-arguments.ts';

export interface HelperTarget {
  fn: PyFunction;
  module: PyModule;
}

/** Resolves a call to a function of the same repository, or undefined when it is not one (or not known exactly). */
export type HelperResolver = (call: SyntaxNode, caller: PyFunction, module: PyModule) => HelperTarget | undefined;

export interface EffectOptions {
  /** Defaults to same-module resolution by name; the call graph supplies a cross-file one. */
  resolveHelper?: HelperResolver;
}

/** Remembers each call's answer: effects and transaction style both ask about every call. */
export function memoizeResolver(resolve: HelperResolver): HelperResolver {
  const answers = new WeakMap<SyntaxNode, HelperTarget | null>();
  return (call, caller, module) => {
    let answer = answers.get(call);
    if (answer === undefined) {
      answer = resolve(call, caller, module) ?? null;
      answers.set(call, answer);
    }
    return answer ?? undefined;
  };
}

export const resolveSameModuleHelper: HelperResolver = (call, caller, module) => {
  const fn = resolveLocalCall(call, module, caller);
  return fn && { fn, module };
};

/** The function's effects, its own and its helpers' (one level), nested functions' own effects left out. */
export function findEffects(fn: PyFunction, module: PyModule, options: EffectOptions = {}): Effect[] {
  const resolveHelper = options.resolveHelper ?? resolveSameModuleHelper;
  const effects: Effect[] = [];
  // Where a `with` block's manager commits or rolls back: at the block's end, after the writes in it.
  const endsAt = new Map<Effect, number>();
  const scope = scopeFacts(module, fn.node);
  for (const { node, loopDepth } of scope.calls) {
    const inLoop = loopDepth > 0;
    const helper = resolveHelper(node, fn, module);
    if (helper && helper.fn.node.id !== fn.node.id) {
      // `helper(..., commit=False)` / `delay_commit=True`, by keyword, position or default (commit-arguments.ts).
      const noCommit = callSkipsCommit(node, helper.fn, { caller: fn, module, resolve: resolveHelper });
      const block = managedBlock(node, scope.withItems);
      for (const inner of helperEffects(helper, resolveHelper)) {
        if (noCommit && inner.kind === 'db-commit') continue;
        const effect: Effect = {
          ...inner,
          range: rangeOf(node),
          node,
          inLoop: inLoop || inner.inLoop,
          via: { qualname: helper.fn.qualname, path: helper.module.path, line: inner.range.startLine },
          viaNode: inner.node,
        };
        if (block && (inner.kind === 'db-commit' || inner.kind === 'db-rollback')) endsAt.set(effect, block.endIndex);
        effects.push(effect);
      }
      continue;
    }
    effects.push(...ownEffectsOfCall(node, module, inLoop, endsAt, scope.withItems));
  }
  return inBlockOrder(effects, endsAt);
}

/** The call's own effect; for a transaction manager in a `with`, a BEGIN at the block's start and a COMMIT at its end. */
function ownEffectsOfCall(node: SyntaxNode, module: PyModule, inLoop: boolean, endsAt: Map<Effect, number>, withItems: readonly SyntaxNode[]): Effect[] {
  const block = transactionManagerBlock(node, calleeTextOf(node), withItems);
  if (!block) {
    const own = effectOfCall(node, module, inLoop);
    return own ? [own] : [];
  }
  const base = { call: callParts(node).callee, range: rangeOf(node), node, inLoop };
  const commit: Effect = { ...base, kind: 'db-commit' };
  endsAt.set(commit, block.endIndex);
  return [{ ...base, kind: 'db-begin' }, commit];
}

const BOUNDARY_KINDS = new Set<Effect['kind']>(['db-begin', 'db-commit', 'db-rollback']);

/**
 * A helper's own effects, with the transaction it opens through a context manager of its own
 * (`with self._transact() as (sql, cleanup):`, diskcache): the manager's BEGIN where the block
 * starts, its COMMIT/ROLLBACK where it ends. Without them a caller sees the helper's writes as
 * bare. One level further only for `with` managers, and only their transaction boundaries.
 */
function helperEffects(helper: HelperTarget, resolveHelper: HelperResolver): readonly Effect[] {
  // Cached per resolver: a helper is asked for by every caller.
  let cache = helperCache.get(resolveHelper);
  if (!cache) helperCache.set(resolveHelper, (cache = new WeakMap()));
  let effects = cache.get(helper.fn);
  if (!effects) cache.set(helper.fn, (effects = computeHelperEffects(helper, resolveHelper)));
  return effects;
}

const helperCache = new WeakMap<HelperResolver, WeakMap<PyFunction, readonly Effect[]>>();

function computeHelperEffects(helper: HelperTarget, resolveHelper: HelperResolver): readonly Effect[] {
  const own = directEffects(helper.fn, helper.module);
  const keyed: { at: number; effect: Effect }[] = own.map((effect) => ({ at: effect.node.startIndex, effect }));
  const scope = scopeFacts(helper.module, helper.fn.node);
  for (const { node } of scope.withItems.length > 0 ? scope.calls : []) {
    const block = managedBlock(node, scope.withItems);
    if (!block) continue;
    const manager = resolveHelper(node, helper.fn, helper.module);
    if (!manager || manager.fn.node.id === helper.fn.node.id) continue;
    for (const bound of directEffects(manager.fn, manager.module)) {
      if (!BOUNDARY_KINDS.has(bound.kind)) continue;
      const at = bound.kind === 'db-begin' ? block.startIndex : block.endIndex;
      keyed.push({ at, effect: { ...bound, range: rangeOf(node), node, via: { qualname: manager.fn.qualname, path: manager.module.path, line: bound.range.startLine } } });
    }
  }
  const ordered = keyed.length === own.length ? own : keyed.sort((a, b) => a.at - b.at).map(({ effect }) => effect);
  // `@with_conditional_transaction def _delete(...)`: what the decorator's wrapper runs around it.
  const wrapped = decoratorEffects(helper.fn, helper.module, directEffects);
  return wrapped.length === 0 ? ordered : [...ordered, ...wrapped];
}

const directCache = new WeakMap<PyFunction, readonly Effect[]>();

/** Only the calls written in the function itself, no helper followed. Cached: a helper is asked for by every caller. */
export function directEffects(fn: PyFunction, module: PyModule): readonly Effect[] {
  let effects = directCache.get(fn);
  if (!effects) {
    const endsAt = new Map<Effect, number>();
    const scope = scopeFacts(module, fn.node);
    effects = inBlockOrder(scope.calls.flatMap(({ node, loopDepth }) => ownEffectsOfCall(node, module, loopDepth > 0, endsAt, scope.withItems)), endsAt);
    directCache.set(fn, effects);
  }
  return effects;
}

function effectOfCall(node: SyntaxNode, module: PyModule, inLoop: boolean): Effect | undefined {
  const callee = calleeTextOf(node);
  // `sql = conn.execute; sql(...)`: read as the execute call it is.
  const alias = mayBeExecuteAlias(callee, module) ? executeAliasParts(node, module) : undefined;
  // `tx.mutate(sql, args)` where this module's `mutate` passes its SQL on to execute (beets).
  const forwarded = !alias && mayBeForwarded(callee, module) ? forwardedParts(callParts(node), module) : undefined;
  if (!alias && !forwarded && !mayHaveEffect(callee)) return undefined;
  const parts = alias ?? forwarded ?? callParts(node);
  const found = callEffect(parts, module, node);
  if (!found) return undefined;
  const effect: Effect = { kind: found.kind, call: parts.callee, range: rangeOf(node), node, inLoop };
  if (found.sql) effect.sql = found.sql;
  if (found.mode !== undefined) effect.mode = found.mode;
  if (found.kind === 'send') effect.idempotencyKey = found.idempotencyKey ?? false;
  return effect;
}

const WRITING_KINDS = new Set<Effect['kind']>([
  'db-write', 'db-ddl', 'db-script', 'db-commit', 'file-write', 'file-rename', 'file-replace', 'file-delete', 'send',
]);

/** True when some effect changes the outside world (db write/ddl/script/commit, file, send). */
export function writesOutside(effects: readonly Effect[]): boolean {
  return effects.some((effect) => WRITING_KINDS.has(effect.kind));
}

