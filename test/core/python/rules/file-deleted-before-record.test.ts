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
      // sqlitedict's SqliteDict.__init__ (Debian's python3-sqlitedict 2.1.0-1, sqlitedict.py:148-232): flag 'n' deletes the
      // database file itself, flag 'w' clears the table; one call takes at most one of the two.
      name: 'delete and record under tests of one unchanged name against different constants (sqlitedict)',
      code: `
        class SqliteDict:
            def __init__(self, filename, tablename, flag='c'):
                self.flag = flag
                if flag == 'n':
                    if os.path.exists(filename):
                        os.remove(filename)
                self.filename = filename
                self.conn = sqlite3.connect(filename)
                if self.flag == 'r':
                    raise RuntimeError("read-only")
                else:
                    self.conn.execute('CREATE TABLE IF NOT EXISTS "%s" (key TEXT PRIMARY KEY, value BLOB)' % tablename)
                    self.conn.commit()
                if flag == 'w':
                    self.clear()

            def clear(self):
                self.conn.commit()
                self.conn.execute('DELETE FROM "%s";' % self.tablename)
                self.conn.commit()
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
    {
      name: 'diskcache Cache.check: os.rmdir removes only empty directories, no data goes with them',
      code: `
        def check(self, fix=False):
            for dirpath, dirs, files in os.walk(self._directory):
                if not (dirs or files):
                    if fix:
                        os.rmdir(dirpath)
            self._con.execute('UPDATE Settings SET value = ? WHERE key = ?', (self.count, 'count'))
      `,
    },
    {
      name: 'buku exportdb: an old .db export removed, then the records written into a new database opened on that path',
      code: `
        def exportdb(self, filepath, resultset):
            if os.path.exists(filepath):
                os.remove(filepath)
            outdb = BukuDb(dbfile=filepath)
            for row in resultset:
                outdb.cur.execute("INSERT INTO bookmarks(URL) VALUES (?)", (row[1],))
            outdb.conn.commit()
            outdb.close()
      `,
    },
    {
      name: 'the database file removed and rebuilt through sqlite3.connect on the same path',
      code: `
        def rebuild(path, rows):
            os.remove(path)
            conn = sqlite3.connect(path)
            conn.execute("CREATE TABLE t (x)")
            conn.executemany("INSERT INTO t VALUES (?)", rows)
            conn.commit()
      `,
    },
    {
      name: 'diskcache Cache.check: removes the files no Cache row names (found - names read from the rows), then updates a count',
      code: `
        def check(self, fix=False):
            filenames = set()
            rows = self._con.execute('SELECT rowid, size, filename FROM Cache WHERE filename IS NOT NULL').fetchall()
            for rowid, size, filename in rows:
                full_path = op.join(self._directory, filename)
                filenames.add(full_path)
            for dirpath, _, files in os.walk(self._directory):
                paths = [op.join(dirpath, filename) for filename in files]
                error = set(paths) - filenames
                for full_path in error:
                    if fix:
                        os.remove(full_path)
            self._con.execute('UPDATE Settings SET value = ? WHERE key = ?', (self.count, 'count'))
      `,
    },
    {
      name: 'the known names taken by a comprehension over the query rows',
      code: `
        def sweep(conn, folder):
            known = {row[0] for row in conn.execute("SELECT path FROM files")}
            for path in set(list_files(folder)) - known:
                os.remove(path)
            conn.execute("UPDATE stats SET swept = swept + 1")
            conn.commit()
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
      name: 'the tested name is rebound between the two ifs: both can run',
      code: `
        def purge(conn, path, att_id, mode):
            if mode == 'files':
                os.remove(path)
            mode = 'rows'
            if mode == 'rows':
                conn.execute("DELETE FROM attachments WHERE id = ?", (att_id,))
      `,
      errors: [{ messageId: 'deletedBeforeRecord', line: 3 }],
    },
    {
      name: 'a module global tested twice: a call between the two ifs may change it',
      code: `
        MODE = 'files'

        def purge(conn, path, att_id):
            if MODE == 'files':
                os.remove(path)
            reload_settings()
            if MODE == 'rows':
                conn.execute("DELETE FROM attachments WHERE id = ?", (att_id,))
      `,
      errors: [{ messageId: 'deletedBeforeRecord', line: 5 }],
    },
    {
      name: 'two ifs testing one name against the same constant: both run',
      code: `
        def purge(conn, path, att_id, mode):
            if mode == 'all':
                os.remove(path)
            if mode == "all":
                conn.execute("DELETE FROM attachments WHERE id = ?", (att_id,))
      `,
      errors: [{ messageId: 'deletedBeforeRecord', line: 3 }],
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
    {
      name: 'a new database on the deleted path, but the record also written through another connection',
      code: `
        def move_out(self, path, rows):
            os.remove(path)
            outdb = Store(path)
            outdb.cur.executemany("INSERT INTO t VALUES (?)", rows)
            outdb.conn.commit()
            self.conn.execute("DELETE FROM files WHERE path = ?", (path,))
            self.conn.commit()
      `,
      errors: [{ messageId: 'deletedBeforeRecord', line: 2 }],
    },
    {
      name: 'the database opened on another path than the deleted one',
      code: `
        def archive(path, archive_path, rows):
            os.remove(path)
            conn = sqlite3.connect(archive_path)
            conn.executemany("INSERT INTO t VALUES (?)", rows)
            conn.commit()
      `,
      errors: [{ messageId: 'deletedBeforeRecord', line: 2 }],
    },
    {
      name: 'the database opened before the deletion: its records outlive the removed file',
      code: `
        def drop(path, name):
            conn = sqlite3.connect(path)
            os.remove(path)
            conn.execute("DELETE FROM files WHERE name = ?", (name,))
            conn.commit()
      `,
      errors: [{ messageId: 'deletedBeforeRecord', line: 3 }],
    },
    {
      name: 'the path name rebound between the deletion and the open',
      code: `
        def swap(path, other, rows):
            os.remove(path)
            path = other
            conn = sqlite3.connect(path)
            conn.executemany("INSERT INTO t VALUES (?)", rows)
            conn.commit()
      `,
      errors: [{ messageId: 'deletedBeforeRecord', line: 2 }],
    },
    {
      name: 'the known set is also filled from something else than the rows',
      code: `
        def sweep(conn, folder, keep):
            known = set()
            for (path,) in conn.execute("SELECT path FROM files"):
                known.add(path)
            known.add(keep)
            for path in set(list_files(folder)) - known:
                os.remove(path)
            conn.execute("UPDATE stats SET swept = swept + 1")
      `,
      errors: [{ messageId: 'deletedBeforeRecord', line: 7 }],
    },
    {
      name: 'the subtracted set does not come from the database: the files deleted may have records',
      code: `
        def sweep(conn, folder, keep):
            for path in set(list_files(folder)) - keep:
                os.remove(path)
                conn.execute("DELETE FROM files WHERE path = ?", (path,))
      `,
      errors: [{ messageId: 'deletedBeforeRecord', line: 3 }],
    },
    {
      name: 'the loop name rebound before the deletion',
      code: `
        def sweep(conn, folder):
            known = {row[0] for row in conn.execute("SELECT path FROM files")}
            for path in set(list_files(folder)) - known:
                path = backing_file(path)
                os.remove(path)
                conn.execute("DELETE FROM files WHERE path = ?", (path,))
      `,
      errors: [{ messageId: 'deletedBeforeRecord', line: 5 }],
    },
    {
      name: 'a set union, not a difference',
      code: `
        def sweep(conn, folder):
            known = {row[0] for row in conn.execute("SELECT path FROM files")}
            for path in set(list_files(folder)) | known:
                os.remove(path)
                conn.execute("DELETE FROM files WHERE path = ?", (path,))
      `,
      errors: [{ messageId: 'deletedBeforeRecord', line: 4 }],
    },
  ],
});
