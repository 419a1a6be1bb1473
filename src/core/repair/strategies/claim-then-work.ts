// Claim then work: a worker that marks its batch claimed (`UPDATE jobs SET
// status = 'running' WHERE status = 'pending'`) and commits before working
// strands the claimed jobs when it crashes: the re-run looks for 'pending'
// only. The repair keeps the claim in its own transaction and lets the re-run
// pick up what was claimed and never finished (`status IN ('pending',
// 'running')`); the transaction strategy then makes each unit of work commit
// together with its 'done' mark, so finishing a job twice is impossible.
// Assumes one worker at a time, as the code's single claim does; with several
// workers a claim wants a lease (claimed_at) before it is taken over.
import { findEffects } from '../../python/effects.ts';
import type { Effect } from '../../python/model.ts';
import { callParts } from '../../python/body-walk.ts';
import { applyEdits, type TextEdit } from '../source-edit.ts';
import type { RepairStrategy } from './strategy.ts';

const CLAIM = /^\s*update\s+(\w+)\s+set\s+(\w+)\s*=\s*'([^']+)'\s+where\s+(\w+)\s*=\s*'([^']+)'\s*$/i;

export const claimThenWork: RepairStrategy = {
  id: 'claim-then-work',
  answers: [],
  apply({ module, fn }) {
    const effects = findEffects(fn, module).filter((e) => !e.via);
    const edits: TextEdit[] = [];
    const said: string[] = [];
    effects.forEach((claim, index) => {
      const match = claim.kind === 'db-write' ? CLAIM.exec(claim.sql?.text ?? '') : null;
      if (!match) return;
      const [, table = '', column = '', claimed = '', where = '', pending = ''] = match;
      if (column.toLowerCase() !== where.toLowerCase() || claimed === pending) return;
      // The claim is committed before any work: a commit follows it before the next write.
      const after = effects.slice(index + 1);
      const commit = after.findIndex((e) => e.kind === 'db-commit');
      const nextWrite = after.findIndex((e) => e.kind === 'db-write');
      if (commit < 0 || (nextWrite >= 0 && nextWrite < commit)) return;
      // ... and the work after it marks each job finished (a later write to the same table).
      if (!after.slice(commit).some((e) => e.kind === 'db-write' && (e.sql?.tables ?? []).includes(table.toLowerCase()))) return;
      const read = effects.slice(0, index).reverse().find((e) => pickReads(e, table, column, pending));
      const literal = read && callParts(read.node).positional[0];
      if (!literal || literal.type !== 'string') return;
      const condition = new RegExp(`\\b${column}\\s*=\\s*'${escape(pending)}'`, 'i');
      const text = literal.text;
      const found = condition.exec(text);
      if (!found) return;
      const replaced = `${column} IN ('${pending}', '${claimed}')`;
      edits.push({ start: literal.startIndex + found.index, end: literal.startIndex + found.index + found[0].length, text: replaced });
      said.push(
        `the re-run also picks up the ${table} this function claimed ('${claimed}') and never finished (\`${replaced}\`); the claim commits on its own and each unit of work commits with its mark (one worker at a time, as the single claim assumes)`,
      );
    });
    if (edits.length === 0) return undefined;
    return { source: applyEdits(module.source, edits), summary: said.join('; ') };
  },
};

function pickReads(effect: Effect, table: string, column: string, pending: string): boolean {
  if (effect.kind !== 'db-read' || !(effect.sql?.tables ?? []).includes(table.toLowerCase())) return false;
  return new RegExp(`\\b${column}\\s*=\\s*'${escape(pending)}'`, 'i').test(effect.sql?.text ?? '');
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
