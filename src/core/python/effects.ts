// The effects of one function, in source order: its own calls, plus the
// effects of same-repository helpers it calls, followed one level and marked
// with `via`. A helper's effect is anchored at the call in this function
// (so a finding lands in the function under review); `via` says where it
// really happens.
import type { Effect, PyFunction, PyModule, SyntaxNode } from './model.ts';
import { callParts } from './body-walk.ts';
import { calleeTextOf, scopeFacts } from './module-facts.ts';
import { callEffect, mayHaveEffect } from './call-effects.ts';
import { resolveLocalCall } from './local-resolve.ts';
import { rangeOf } from './source-range.ts';

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
  for (const { node, loopDepth } of scopeFacts(module, fn.node).calls) {
    const inLoop = loopDepth > 0;
    const helper = resolveHelper(node, fn, module);
    if (helper && helper.fn.node.id !== fn.node.id) {
      // `helper(..., commit=False)` / `delay_commit=True`: the call site asked the helper not to commit.
      const noCommit = callSkipsCommit(node);
      for (const inner of directEffects(helper.fn, helper.module)) {
        if (noCommit && inner.kind === 'db-commit') continue;
        effects.push({
          ...inner,
          range: rangeOf(node),
          node,
          inLoop: inLoop || inner.inLoop,
          via: { qualname: helper.fn.qualname, path: helper.module.path, line: inner.range.startLine },
        });
      }
      continue;
    }
    const own = effectOfCall(node, module, inLoop);
    if (own) effects.push(own);
  }
  return effects;
}

const SKIP_WHEN_TRUE = /^(delay|defer|skip|no|without)_?commit$/i;
const SKIP_WHEN_FALSE = /^(auto_?)?commit(_now)?$|^do_commit$/i;

/**
 * True when the call passes an argument that turns the callee's commit off:
 * `commit=False`, `autocommit=False`, `delay_commit=True`, `no_commit=True`.
 * Judged at the call site, whether the helper is in this repository or not.
 */
export function callSkipsCommit(call: SyntaxNode): boolean {
  for (const [name, value] of callParts(call).keywords) {
    if (SKIP_WHEN_TRUE.test(name) && value.text === 'True') return true;
    if (SKIP_WHEN_FALSE.test(name) && value.text === 'False') return true;
  }
  return false;
}

const directCache = new WeakMap<PyFunction, readonly Effect[]>();

/** Only the calls written in the function itself, no helper followed. Cached: a helper is asked for by every caller. */
export function directEffects(fn: PyFunction, module: PyModule): readonly Effect[] {
  let effects = directCache.get(fn);
  if (!effects) {
    effects = scopeFacts(module, fn.node).calls.flatMap(({ node, loopDepth }) => effectOfCall(node, module, loopDepth > 0) ?? []);
    directCache.set(fn, effects);
  }
  return effects;
}

function effectOfCall(node: SyntaxNode, module: PyModule, inLoop: boolean): Effect | undefined {
  if (!mayHaveEffect(calleeTextOf(node))) return undefined;
  const parts = callParts(node);
  const found = callEffect(parts, module);
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

