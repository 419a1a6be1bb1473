import type { Effect, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { recordedLater } from './facts.ts';
import { defineRule } from './rule.ts';
import { isTemporaryPath } from './syntax.ts';
import { recordsOnlyInRecreatedFile } from './recreated-database.ts';
import { deletesOnlyUnrecordedFiles } from './unrecorded-files.ts';

export const fileDeletedBeforeRecord = defineRule({
  meta: {
    id: 'file-deleted-before-record',
    description: 'A file is deleted before the database record that names it is deleted or committed.',
    category: 'file',
    severity: 'warning',
    messages: {
      deletedBeforeRecord:
        '{{call}} deletes the file before the database changes its record (line {{recordLine}}): a crash between them leaves a record naming a missing file',
      deletedBeforeCommit:
        '{{call}} deletes the file before commit() (line {{recordLine}}) saves the change to its record: a crash between them leaves a record naming a missing file',
    },
    hint: 'Delete or update the record and commit first, then delete the file: a crash then leaves at most an orphaned file, which a cleanup can remove.',
  },
  create(context) {
    return {
      'function:exit'() {
        const deletesData = (effect: Effect): boolean =>
          effect.kind === 'file-delete' &&
          !deletesTemporary(effect.node) &&
          !removesEmptyDirectory(effect.node) &&
          // Files no row the function read names: no record is left naming them.
          !deletesOnlyUnrecordedFiles(effect, context.fn.node, context.effects);
        for (const { effect, record, data } of recordedLater(context, deletesData)) {
          // The records go into a database opened on the deleted path afterwards: they live in the new file, naming nothing missing.
          if (recordsOnlyInRecreatedFile(effect, context.effects)) continue;
          context.report({ node: effect.node, messageId: record.kind === 'write' ? 'deletedBeforeRecord' : 'deletedBeforeCommit', data });
        }
      },
    };
  },
});

/** A temp file is no record's subject: deleting it early loses nothing. */
function deletesTemporary(node: SyntaxNode): boolean {
  const call = callParts(node);
  const target = call.positional[0] ?? call.receiver;
  return target !== undefined && isTemporaryPath(target);
}

/** `os.rmdir`, `os.removedirs`, `Path.rmdir()`: they remove only empty directories, so no data a record points to goes with them. */
function removesEmptyDirectory(node: SyntaxNode): boolean {
  const call = callParts(node);
  return call.callee === 'os.rmdir' || call.callee === 'os.removedirs' || (call.method === 'rmdir' && call.receiver !== undefined && call.positional.length === 0);
}
