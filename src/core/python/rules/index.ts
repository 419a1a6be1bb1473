// The registry of crash-safety rules and the runner that applies them to one
// function:
//
//   runRules({ module, fn, effects, txStyle, resolveHelper? }, { rules? }) -> Finding[]
//
// The runner calls every rule's node listeners on the nodes of those types in
// the function's own body (nested functions and classes are their own
// units), in source order, then every `function:exit`. Each report becomes a
// Finding: the rule's message with `{{data}}` filled in, the rule's severity
// (or the message's own, see `messageSeverity`), the rule's hint, the node's
// range (or the report's), and a stable id: rule id + path + qualname + hash
// of the reported node's normalized code (whitespace and comments dropped),
// not the line number. Findings come back sorted by position, then rule id.
//
// The rules see the function's own effects only (a nested function is judged
// as itself), and no database call on a connection opened on ":memory:" (or a
// cursor or alias of one): such a database dies with the process, so a crash
// cannot leave it half-written.
//
// Decided: `commit-in-loop` still reports a loop whose re-run skips finished
// items (a filtered read drives or guards it and names a table the loop
// writes, or every write is INSERT OR IGNORE / ON CONFLICT), as
// `commitPerItemResumable` at `info`: the re-run resumes, but whether each
// item's writes and its mark share one transaction still wants a look. It is
// quiet when that is shown: each iteration runs BEGIN, its writes and the commit
// on one connection, with no continue, break, return or except in between. A loop
// whose only writes are DELETEs (diskcache's batched cull/clear) is not reported:
// a crash keeps what is gone and a re-run repeats nothing (issue 15).
import type { Effect, Finding, PyFunction, PyModule, SyntaxNode, TxStyleResult } from '../model.ts';
import { rangeOf } from '../source-range.ts';
import { findingId, normalizedCode } from './finding-id.ts';
import type { ReportDescriptor, Rule, RuleContext, RuleListener } from './rule.ts';
import { resolveSameModuleHelper, type HelperResolver } from '../effects.ts';
import { withoutInMemoryDatabase } from './memory-db.ts';
import { isOwnCode } from './syntax.ts';
import { commitInLoop } from './commit-in-loop.ts';
import { withConnOpensNoTransaction } from './with-conn-opens-no-transaction.ts';
import { writesRelyOnImplicitTransaction } from './writes-rely-on-implicit-transaction.ts';
import { ddlOutsideTransaction } from './ddl-outside-transaction.ts';
import { commitWithoutBegin } from './commit-without-begin.ts';
import { executescriptCommitsFirst } from './executescript-commits-first.ts';
import { sendBeforeRecord } from './send-before-record.ts';
import { inPlaceFileRewrite } from './in-place-file-rewrite.ts';
import { fileDeletedBeforeRecord } from './file-deleted-before-record.ts';
import { rollbackSwallowed } from './rollback-swallowed.ts';
import { permissionsAfterCreate } from './permissions-after-create.ts';
import { journalOff } from './journal-off.ts';

export type { Rule, RuleContext, RuleMeta, RuleListener, ReportDescriptor, RuleCategory } from './rule.ts';

export const rules: readonly Rule[] = [
  commitInLoop,
  withConnOpensNoTransaction,
  writesRelyOnImplicitTransaction,
  ddlOutsideTransaction,
  commitWithoutBegin,
  executescriptCommitsFirst,
  sendBeforeRecord,
  inPlaceFileRewrite,
  fileDeletedBeforeRecord,
  rollbackSwallowed,
  permissionsAfterCreate,
  journalOff,
];

export function ruleById(id: string): Rule | undefined {
  return rules.find((rule) => rule.meta.id === id);
}

export interface RuleInput {
  module: PyModule;
  fn: PyFunction;
  /** The function's effects as `findEffects` gives them (helpers' effects anchored at the call). */
  effects: readonly Effect[];
  txStyle: TxStyleResult;
  /**
   * The resolver the effects were found with. Optional: same-module helpers by
   * default; with the repository's (callgraph.ts) the rules also see, say, an
   * in-memory connection that a test utility in another file opens.
   */
  resolveHelper?: HelperResolver;
}

export interface RunRulesOptions {
  /** The rules to run; all of `rules` by default. */
  rules?: readonly Rule[];
}

export function runRules(input: RuleInput, options: RunRulesOptions = {}): Finding[] {
  const { module, fn } = input;
  // A nested function is its own unit: its effects are judged when it is.
  const ownEffects = input.effects.filter((effect) => isOwnCode(effect.node, fn.node));
  const effects = withoutInMemoryDatabase(ownEffects, fn, module, input.resolveHelper ?? resolveSameModuleHelper);
  const reports: { rule: Rule; descriptor: ReportDescriptor }[] = [];
  const listeners: { rule: Rule; listener: RuleListener }[] = [];
  for (const rule of options.rules ?? rules) {
    const context: RuleContext = {
      module,
      fn,
      effects,
      txStyle: input.txStyle,
      report: (descriptor) => reports.push({ rule, descriptor }),
    };
    listeners.push({ rule, listener: rule.create(context) });
  }
  // tree-sitter finds the listened-for node types natively, far faster than a walk in JS.
  const types = [...new Set(listeners.flatMap(({ listener }) => Object.keys(listener).filter((key) => key !== 'function:exit')))];
  const body = fn.node.childForFieldName('body');
  const nodes = body && types.length > 0 ? body.descendantsOfType(types).filter((node) => isOwnCode(node, fn.node)) : [];
  for (const node of nodes) {
    for (const { listener } of listeners) {
      const handler = listener[node.type];
      if (handler) (handler as (node: SyntaxNode) => void)(node);
    }
  }
  for (const { listener } of listeners) listener['function:exit']?.();
  return toFindings(reports, module, fn);
}

function toFindings(reports: { rule: Rule; descriptor: ReportDescriptor }[], module: PyModule, fn: PyFunction): Finding[] {
  const seen = new Set<string>();
  const occurrences = new Map<string, number>();
  const findings: Finding[] = [];
  const ordered = [...reports].sort((a, b) => a.descriptor.node.startIndex - b.descriptor.node.startIndex);
  for (const { rule, descriptor } of ordered) {
    const range = descriptor.range ?? rangeOf(descriptor.node);
    const duplicateKey = [rule.meta.id, descriptor.messageId, range.startLine, range.startColumn, range.endLine, range.endColumn].join(':');
    if (seen.has(duplicateKey)) continue;
    seen.add(duplicateKey);
    const code = normalizedCode(descriptor.node);
    const occurrenceKey = `${rule.meta.id}\0${code}`;
    const occurrence = occurrences.get(occurrenceKey) ?? 0;
    occurrences.set(occurrenceKey, occurrence + 1);
    const template = rule.meta.messages[descriptor.messageId];
    if (template === undefined) throw new Error(`rule ${rule.meta.id} reported unknown message id ${descriptor.messageId}`);
    findings.push({
      id: findingId(rule.meta.id, module.path, fn.qualname, code, occurrence),
      ruleId: rule.meta.id,
      messageId: descriptor.messageId,
      message: fillTemplate(template, descriptor.data ?? {}),
      severity: rule.meta.messageSeverity?.[descriptor.messageId] ?? rule.meta.severity,
      path: module.path,
      function: fn.qualname,
      range,
      hint: rule.meta.hint,
    });
  }
  return findings.sort((a, b) => a.range.startLine - b.range.startLine || a.range.startColumn - b.range.startColumn || a.ruleId.localeCompare(b.ruleId));
}

function fillTemplate(template: string, data: Record<string, string | number>): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (match, name: string) => (name in data ? String(data[name]) : match));
}
