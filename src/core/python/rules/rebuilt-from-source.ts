// A file written under a name derived from a source file's (`src.with_suffix('.mp3')`),
// from data read out of that source earlier in the function, with nothing deleted before
// the write: a crash mid-write tears only the new file while the source is still whole,
// so a re-run rebuilds it and nothing is lost. beets' remux_mpeglayer3_wav writes the
// .mp3 beside the .wav it read and removes the .wav only after the write.
// Partial: only pathlib's with_suffix/with_name/with_stem derivations are recognised.
import type { Effect, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { localAssignmentBefore } from '../local-assignments.ts';
import { readsPath } from './file-reads.ts';
import { compactText } from './syntax.ts';

const DERIVATIONS = new Set(['with_suffix', 'with_name', 'with_stem']);

export function rebuiltFromIntactSource(target: SyntaxNode, write: Effect, fnNode: SyntaxNode, effects: readonly Effect[]): boolean {
  const source = derivedFrom(target);
  if (!source) return false;
  const deletedBefore = effects.some((effect) => effect.kind === 'file-delete' && effect.node.endIndex <= write.node.startIndex);
  return !deletedBefore && readsPath(fnNode, namesOf(source), write.node.startIndex);
}

/** The source path `target` is derived from by a constant new suffix, name or stem; undefined otherwise. */
function derivedFrom(target: SyntaxNode): SyntaxNode | undefined {
  const expression = target.type === 'identifier' ? localAssignmentBefore(target) : target;
  if (expression?.type !== 'call') return undefined;
  const call = callParts(expression);
  const constant = call.positional[0]?.type === 'string' && call.positional.length === 1;
  return DERIVATIONS.has(call.method) && constant ? call.receiver : undefined;
}

/** The source as written and, for a local name, every sub-expression of what it was assigned: `Path(util.syspath(path))` names `util.syspath(path)` and `path`. */
function namesOf(source: SyntaxNode): Set<string> {
  const names = new Set([compactText(source)]);
  const assigned = source.type === 'identifier' ? localAssignmentBefore(source) : undefined;
  if (assigned) {
    names.add(compactText(assigned));
    for (const node of assigned.descendantsOfType(['call', 'identifier', 'attribute'])) names.add(compactText(node));
  }
  return names;
}
