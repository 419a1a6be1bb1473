import { fileDeletedBeforeRecord } from '../../../../src/core/python/rules/file-deleted-before-record.ts';
import { testRule } from './rule-tester.ts';

testRule(fileDeletedBeforeRecord, {
  valid: [
    {
      name: 'record deleted and committed, then the file',
      code: `
        def delete_attachment(conn, att_id):
            (path,) = conn.execute("SELECT path FROM attachments WHERE id = ?", (att_id,)).fetchone()
            conn.execute("DELETE FROM attachments WHERE id = ?", (att_id,))
            conn.commit()
            os.remove(path)
      `,
    },
    {
      name: 'a temp file removed before the insert',
      code: `
        def store(conn, data, tmp_path):
            os.remove(tmp_path)
            conn.execute("INSERT INTO uploads (size) VALUES (?)", (len(data),))
      `,
    },
    {
      name: 'a write only on the error path',
      code: `
        def purge(conn, path, att_id):
            try:
                Path(path).unlink()
            except OSError:
                conn.execute("UPDATE attachments SET broken = 1 WHERE id = ?", (att_id,))
      `,
    },
    {
      name: 'no database at all',
      code: `
        def clean(paths):
            for path in paths:
                os.remove(path)
      `,
    },
  ],
  invalid: [
    {
      name: 'file first, then the record',
      code: `
        def delete_attachment(conn, att_id):
            (path,) = conn.execute("SELECT path FROM attachments WHERE id = ?", (att_id,)).fetchone()
            os.remove(path)
            conn.execute("DELETE FROM attachments WHERE id = ?", (att_id,))
            conn.commit()
      `,
      errors: [{ messageId: 'deletedBeforeRecord', line: 3 }],
    },
    {
      name: 'Path.unlink before an f-string delete',
      code: `
        def drop_upload(conn, table, upload):
            Path(upload.path).unlink()
            conn.execute(f"DELETE FROM {table} WHERE id = ?", (upload.id,))
      `,
      errors: [{ messageId: 'deletedBeforeRecord', line: 2 }],
    },
    {
      name: 'record deleted first but committed after the file',
      code: `
        def delete_attachment(conn, att_id, path):
            conn.execute("DELETE FROM attachments WHERE id = ?", (att_id,))
            os.unlink(path)
            conn.commit()
      `,
      errors: [{ messageId: 'deletedBeforeCommit', line: 3 }],
    },
  ],
});
