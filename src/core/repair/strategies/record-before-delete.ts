// A file deleted before the row that names it: the delete moves after the commit
// that removes the row, so a crash leaves at most an orphaned file (which no row
// names), never a row pointing at a missing file. The own-transaction strategy
// then makes the row's removal one committed transaction.
import { findEffects } from '../../python/effects.ts';
import { applyEdits, lineEnd, lineStart } from '../source-edit.ts';
import { commitReceiver, statementsOf, type RepairStrategy } from './strategy.ts';

export const recordBeforeDelete: RepairStrategy = {
  id: 'record-before-delete',
  answers: ['file-deleted-before-record'],
  apply({ module, fn }) {
    const deletes = findEffects(fn, module).filter((e) => e.kind === 'file-delete' && !e.via);
    for (const effect of deletes) {
      let statement = effect.node;
      while (statement.parent && statement.parent.type !== 'block') statement = statement.parent;
      const block = statement.parent;
      if (!block || statement.type !== 'expression_statement') continue;
      const statements = statementsOf(block);
      const index = statements.findIndex((s) => s.id === statement.id);
      const commit = statements.slice(index + 1).find((s) => commitReceiver(s) !== undefined);
      if (!commit) continue;
      const { source } = module;
      const start = lineStart(source, statement.startIndex);
      const end = lineEnd(source, statement.endIndex - 1);
      const moved = source.slice(start, end);
      const after = lineEnd(source, commit.endIndex - 1);
      return {
        source: applyEdits(source, [
          { start, end, text: '' },
          { start: after, end: after, text: (source[after - 1] === '\n' ? '' : '\n') + moved },
        ]),
        summary: `the file is deleted after the commit that removes its row (line ${effect.range.startLine} moves below line ${commit.startPosition.row + 1})`,
      };
    }
    return undefined;
  },
};
