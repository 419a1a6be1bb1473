import { inPlaceFileRewrite } from '../../../../src/core/python/rules/in-place-file-rewrite.ts';
import { describe, expect, it } from 'vitest';
import { lint, testRule } from './rule-tester.ts';

/** buku 4.7's BukuDb.exportdb (2215-2242): `fill` gets `resultset` before the .db branch and the text export. */
function bukuExportdb(signature: string, fill: string[]): string {
  return `
        class BukuDb:
            def get_rec_all(self):
                self.cur.execute('SELECT * FROM bookmarks')
                return self.cur.fetchall()

            def exportdb(${signature}):
                count = 0
${fill.map((line) => `                ${line}`).join('\n')}
                if filepath.endswith('.db'):
                    outdb = BukuDb(dbfile=filepath)
                    for row in resultset:
                        outdb.cur.execute('INSERT INTO bookmarks(URL) VALUES (?)', (row[1],))
                    outdb.conn.commit()
                    return True
                with open(filepath, mode='w', encoding='utf-8') as outfp:
                    res = {}
                    if filepath.endswith('.md'):
                        res = convert_bookmark_set(resultset, 'markdown')
                        outfp.write(res['data'])
                    else:
                        res = convert_bookmark_set(resultset, 'html')
                        outfp.write(res['data'])
`;
}

testRule(inPlaceFileRewrite, {
  valid: [
    {
      name: "created with `with open(path, 'w'): pass` (keyrings.alt 4.2 _ensure_file_path): nothing is written",
      code: `
        class Keyring:
            def _ensure_file_path(self):
                if not os.path.isfile(self.file_path):
                    with open(self.file_path, 'w'):
                        pass
                    os.chmod(self.file_path, 0o600)
      `,
    },
    {
      name: "created empty with h.write('') (configobj 5.0 ConfigObj._load, create_empty): nothing a crash could tear",
      code: `
        class ConfigObj:
            def _load(self, infile):
                if os.path.isfile(infile):
                    with open(infile, 'rb') as h:
                        content = h.readlines() or []
                elif self.file_error:
                    raise IOError('Config file not found')
                else:
                    if self.create_empty:
                        with open(infile, 'w') as h:
                            h.write('')
                    content = []
      `,
    },
    {
      name: 'temp file, then os.replace',
      code: `
        def save_setting(path, key, value):
            with open(path) as f:
                settings = json.load(f)
            settings[key] = value
            tmp = path + ".tmp"
            with open(tmp, "w") as f:
                json.dump(settings, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
      `,
    },
    {
      name: 'NamedTemporaryFile in the same directory, then replace',
      code: `
        def save(path, text):
            with tempfile.NamedTemporaryFile("w", dir=os.path.dirname(path), delete=False) as f:
                f.write(text)
            os.replace(f.name, path)
      `,
    },
    {
      name: 'a staging path that is moved over the target with Path.replace',
      code: `
        def save(target, text):
            staging = target.with_name(target.name + ".new")
            staging.write_text(text)
            staging.replace(target)
      `,
    },
    {
      name: 'os.replace alone is atomic: no removal first',
      code: `
        def set_option(path, text):
            tmp_path = path + ".tmp"
            with open(tmp_path, "w") as f:
                f.write(text)
            os.replace(tmp_path, path)
      `,
    },
    {
      name: 'removing a stale temp file in another branch than the rename',
      code: `
        def publish(path, staged):
            if staged is None:
                os.remove(path)
            else:
                os.rename(staged, path)
      `,
    },
    {
      name: "'rb+' opened only to lock the file (stdlib mailbox.py)",
      code: `
        def lock(self, path):
            f = open(path, 'rb+')
            _lock_file(f)
            self._file = f
      `,
    },
    {
      name: 'appending never truncates',
      code: `
        def append_ledger(path, line):
            with open(path, "a") as f:
                f.write(line + "\\n")
      `,
    },
    {
      name: "exclusive creation ('x') never touches an existing file",
      code: `
        def create(path, text):
            with open(path, "x") as f:
                f.write(text)
      `,
    },
    {
      name: 'reading only',
      code: `
        def load(path):
            with open(path, "rb") as f:
                return f.read()
      `,
    },
    {
      name: 'a handle kept open and appended to at its end (tinydb JSONStorage.read seeks to the end, then to 0 to read)',
      code: `
        class JSONStorage:
            def read(self):
                self._handle.seek(0, os.SEEK_END)
                size = self._handle.tell()
                self._handle.seek(0)
                return json.load(self._handle)

            def log(self, line):
                self._log.seek(0, 2)
                self._log.write(line)
      `,
    },
    {
      name: 'beets config_edit: open(path, "w+").close() creates an empty file and writes nothing',
      code: `
        def config_edit(path, editor):
            if not os.path.isfile(path):
                open(path, "w+").close()
            interactive_open([path], editor)
      `,
    },
    {
      name: 'beets remux_mpeglayer3_wav: a new .mp3 beside the .wav it was read from, the .wav removed only after the write',
      code: `
        def remux_mpeglayer3_wav(path):
            with open(util.syspath(path), "rb") as wav_file:
                data = wav_file.read()
            mp3_data = data[data.find(b"data") + 8 :]
            syspath = Path(util.syspath(path))
            mp3_path = syspath.with_suffix(".mp3")
            mp3_path.write_bytes(mp3_data)
            util.remove(path)
            return mp3_path
      `,
    },
    {
      name: 'buku encrypt_file: exits unless the target is absent (existence bound to a name, if/elif/else), so the write creates a new file',
      code: `
        def encrypt_file(dbfile):
            encfile = dbfile + '.enc'
            db_exists = os.path.exists(dbfile)
            enc_exists = os.path.exists(encfile)
            if db_exists and not enc_exists:
                pass
            elif not db_exists:
                sys.exit(1)
            else:
                sys.exit(1)
            with open(dbfile, 'rb') as infp, open(encfile, 'wb') as outfp:
                outfp.write(encrypt(infp.read()))
            os.remove(dbfile)
      `,
    },
    {
      name: 'raises when os.path.isfile(T) and the write names T through the expression it was assigned',
      code: `
        def create(base, text):
            if os.path.isfile(base + ".out"):
                raise FileExistsError(base)
            out = base + ".out"
            with open(out, "w") as f:
                f.write(text)
      `,
    },
    {
      name: 'joblib loky Popen.__init__: the write end of os.pipe() opened with wb is no file, nothing is truncated',
      code: `
        def __init__(self, process_obj):
            rfd, wfd = os.pipe()
            rhandle = duplicate(msvcrt.get_osfhandle(rfd), inheritable=True)
            os.close(rfd)
            try:
                with open(wfd, 'wb') as to_child:
                    reduction.dump(prep_data, to_child)
            except IOError:
                pass
      `,
    },
    {
      name: 'a pipe kept as a pair and indexed: open(fds[1], "wb")',
      code: `
        def send(payload):
            fds = os.pipe()
            with open(fds[1], "wb") as f:
                f.write(payload)
      `,
    },
    {
      name: "a socket's descriptor (socket.create_connection) opened for writing",
      code: `
        def send(address, payload):
            sock = socket.create_connection(address)
            with open(sock.fileno(), "wb", closefd=False) as f:
                f.write(payload)
      `,
    },
    {
      name: "an accepted connection's descriptor",
      code: `
        def serve(server, payload):
            conn, peer = server.accept()
            out = open(conn.fileno(), "w")
            out.write(payload)
      `,
    },
    {
      name: 'joblib PrintTime.__init__: the log rotated and copied to logfile + ".1" when it exists, then reopened "w"',
      code: `
        def __init__(self, logfile=None, logdir=None):
            if logdir is not None:
                logfile = os.path.join(logdir, 'joblib.log')
            self.logfile = logfile
            if logfile is not None:
                mkdirp(os.path.dirname(logfile))
                if os.path.exists(logfile):
                    for i in range(1, 9):
                        try:
                            shutil.move(logfile + '.%i' % i, logfile + '.%i' % (i + 1))
                        except:
                            "No reason failing here"
                    try:
                        shutil.copy(logfile, logfile + '.1')
                    except:
                        "No reason failing here"
                try:
                    with open(logfile, 'w') as logfile:
                        logfile.write('Logging joblib python script')
                except:
                    pass
      `,
    },
    {
      name: 'the old contents copied to a backup on every path before the write',
      code: `
        def save(path, text):
            shutil.copy2(path, path + ".bak")
            with open(path, "w") as f:
                f.write(text)
      `,
    },
    {
      name: 'the old file moved aside (Path.rename) before the write, and not read back here',
      code: `
        def save(path, text):
            path.rename(path.with_suffix(".old"))
            path.write_text(text)
      `,
    },
    {
      name: 'fresh directory: each table written as a new file into a directory just made by os.mkdir, both under if not sim (sqlobject 3.10 CommandRecord.command)',
      code: `
        class CommandRecord:
            def command(self):
                sim = self.options.simulate
                output_dir = self.find_output_dir()
                files = {}
                for cls in self.classes():
                    files[cls.__name__ + '.sql'] = cls.createTableSQL()
                if not sim:
                    os.mkdir(output_dir)
                files = sorted(files.items())
                for fn, content in files:
                    if not sim:
                        f = open(os.path.join(output_dir, fn), 'w')
                        f.write(content)
                        f.close()
      `,
    },
    {
      name: 'fresh directory: Path.mkdir() without exist_ok, then one file written as out / name',
      code: `
        def export(out, text):
            out.mkdir(parents=True)
            (out / "report.txt").write_text(text)
      `,
    },
    {
      name: 'fresh directory: os.makedirs without exist_ok, one file per key of a dict',
      code: `
        def dump(root, tables):
            os.makedirs(root)
            for name in tables.keys():
                with open(os.path.join(root, name), "w") as f:
                    f.write(tables[name])
      `,
    },
    {
      name: 'export of rows a same-module helper SELECTs (buku 4.7 BukuDb.exportdb, without its caller\'s resultset): the .db branch INSERTs and commits, then returns before the text export',
      code: bukuExportdb('self, filepath', ['resultset = self.get_rec_all()', 'if not resultset:', '    return False']),
    },
    {
      name: 'a report of fetched rows written straight to its final path: the rows stay in the database, a re-run rewrites it',
      code: `
        def export_report(conn, path):
            rows = conn.execute("SELECT * FROM sales").fetchall()
            with open(path, "w") as f:
                f.write(render(rows))
      `,
    },
    {
      name: 'rows iterated off a cursor into a csv writer made from the handle, with a constant header',
      code: `
        import csv

        def dump_users(conn, path):
            cur = conn.cursor()
            cur.execute("SELECT id, name FROM users")
            with open(path, "w", newline="") as f:
                writer = csv.writer(f)
                writer.writerow(["id", "name"])
                for row in cur:
                    writer.writerow(row)
      `,
    },
    {
      name: 'fetched rows dumped with json.dump(rows, f): the handle is where the library call writes, the rows what it writes',
      code: `
        import json

        def snapshot(conn, path):
            cur = conn.execute("SELECT id, title FROM notes")
            rows = [dict(id=row[0], title=row[1]) for row in cur.fetchall()]
            with open(path, "w") as f:
                json.dump(rows, f, indent=2)
      `,
    },
    {
      name: 'lines built from rows by append, then joined into Path.write_text',
      code: `
        def export_titles(conn, out):
            lines = []
            for title, year in conn.execute("SELECT title, year FROM films ORDER BY year"):
                lines.append(f"{year}: {title}")
            out.write_text("\\n".join(lines))
      `,
    },
  ],
  invalid: [
    {
      name: 'a pipe descriptor name rebound by a for loop: the write goes to a real file',
      code: `
        def save_all(paths, data):
            r, w = os.pipe()
            for w in paths:
                with open(w, 'wb') as f:
                    f.write(data)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'buku 4.7 BukuDb.exportdb as it is: resultset is a parameter, filled from the database only when the caller passes none (a caller\'s value may be anything)',
      code: bukuExportdb('self, filepath, resultset=None', ['if not resultset:', '    resultset = self.get_rec_all()', '    if not resultset:', '        return False']),
      errors: [{ messageId: 'truncatesInPlace', line: 18 }],
    },
    {
      name: 'rows from the database beside what a module function hands back (stdin): outside data',
      code: `
        def export(conn, path):
            rows = conn.execute("SELECT url FROM bookmarks").fetchall()
            with open(path, "w") as f:
                f.write(str(rows) + sys.stdin.read())
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 3 }],
    },
    {
      name: 'rows from the database beside a download: outside data',
      code: `
        import urllib.request

        def export(conn, path, url):
            rows = conn.execute("SELECT url FROM bookmarks").fetchall()
            with open(path, "w") as f:
                f.write(str(rows) + urllib.request.urlopen("https://example.org/").read().decode())
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 5 }],
    },
    {
      name: 'three thousand terms after the rows (generated code): not followed so far, reported, and no crash',
      code: `
        def export(conn, path):
            rows = conn.execute("SELECT url FROM bookmarks").fetchall()
            with open(path, "w") as f:
                f.write(str(rows)${" + 'x'".repeat(3000)})
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 3 }],
    },
    {
      name: 'returns False when the target exists (Path(T).exists()), then writes it inside a try: after a crash the re-run returns and the torn file stays',
      code: `
        def create(path, text):
            if Path(path).exists():
                return False
            try:
                with open(path, "w") as f:
                    f.write(text)
            except OSError:
                return False
            return True
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 5 }],
    },
    {
      name: 'written only inside if not os.path.exists(T) (sqlobject 3.10 load_module_from_name): new, but a crash can leave it empty and the re-run keeps it',
      code: `
        def load_module_from_name(filename, module_name):
            init_filename = os.path.join(os.path.dirname(filename), '__init__.py')
            if not os.path.exists(init_filename):
                try:
                    f = open(init_filename, 'w')
                except (OSError, IOError) as e:
                    raise IOError('Cannot write __init__.py')
                f.write('#\\n')
                f.close()
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 5 }],
    },
    {
      name: 'a non-empty write inside if not exists(T) (a don\'t-overwrite upload): a torn file is kept by the re-run, which skips it',
      code: `
        def store_upload(upload_dir, name, data):
            dest = os.path.join(upload_dir, name)
            if not os.path.exists(dest):
                with open(dest, "wb") as out:
                    out.write(data)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'an earlier if exists(T): return, then the write: the re-run returns and keeps the torn file',
      code: `
        def store_upload(dest, data):
            if os.path.exists(dest):
                return
            with open(dest, "wb") as out:
                out.write(data)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: "with open(T, 'w') as h: h.write(' '): not empty",
      code: `
        def touch(path):
            with open(path, 'w') as h:
                h.write(' ')
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 2 }],
    },
    {
      name: 'inside if not exists(T), but in a loop that writes the file it created again',
      code: `
        def fill(path, parts):
            if not os.path.exists(path):
                for part in parts:
                    with open(path, 'w') as f:
                        f.write(part)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'inside if not exists(other): the guard is on another path',
      code: `
        def save(path, other, text):
            if not os.path.exists(other):
                with open(path, 'w') as f:
                    f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 3 }],
    },
    {
      name: 'the else of if exists(T) and flag: T may be present there',
      code: `
        def save(path, flag, text):
            if os.path.exists(path) and flag:
                return
            else:
                with open(path, 'w') as f:
                    f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 5 }],
    },
    {
      name: 'inside if not exists(T), with T rebound before the write',
      code: `
        def save(path, text):
            if not os.path.exists(path):
                path = path + '.cfg'
                with open(path, 'w') as f:
                    f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'tinydb JSONStorage.write: the whole database rewritten through the handle opened in __init__',
      code: `
        class JSONStorage:
            def __init__(self, path):
                self._handle = open(path, mode='r+')

            def write(self, data):
                self._handle.seek(0)
                serialized = json.dumps(data)
                self._handle.write(serialized)
                self._handle.flush()
                os.fsync(self._handle.fileno())
                self._handle.truncate()
      `,
      errors: [{ messageId: 'rewrittenFromStart', line: 8 }],
    },
    {
      name: 'read, change, and rewrite the same file',
      code: `
        def save_setting(path, key, value):
            with open(path) as f:
                settings = json.load(f)
            settings[key] = value
            with open(path, "w") as f:
                json.dump(settings, f)
      `,
      errors: [{ messageId: 'rewritesReadFile', line: 5 }],
    },
    {
      name: 'Path.read_text then write_text',
      code: `
        def bump(counter_path):
            count = int(counter_path.read_text())
            counter_path.write_text(str(count + 1))
      `,
      errors: [{ messageId: 'rewritesReadFile', line: 3 }],
    },
    {
      name: 'the old file moved away as a backup, then the path read before rewritten (reference save_user_setting/backup_then_write): the next read meets the torn file',
      code: `
        def save_setting(path, key, value):
            with open(path) as f:
                settings = json.load(f)
            settings[key] = value
            os.replace(path, path + ".bak")
            with open(path, "w") as f:
                f.write(json.dumps(settings, indent=2))
      `,
      errors: [{ messageId: 'rewritesReadFileKeptAside', line: 6 }],
    },
    {
      name: 'the target removed before the temp file is renamed over it (reference set_config_option/remove_then_rename)',
      code: `
        def set_option(path, text):
            tmp_path = path + ".tmp"
            with open(tmp_path, "w") as f:
                f.write(text)
            if os.path.exists(path):
                os.remove(path)
            os.rename(tmp_path, path)
      `,
      errors: [{ messageId: 'removedBeforeRename', line: 6 }],
    },
    {
      name: "'r+' changes the file in place",
      code: `
        def set_option(path, key, value):
            with open(path, "r+") as f:
                lines = f.readlines()
                f.seek(0)
                f.writelines(fix(lines, key, value))
                f.truncate()
      `,
      errors: [{ messageId: 'updatedInPlace', line: 2 }],
    },
    {
      name: 'a backup path is no temp file: both writes truncate in place',
      code: `
        def save(path, text):
            with open(path + ".bak", "w") as f:
                f.write(text)
            with open(path, "w") as f:
                f.write(text)
      `,
      errors: [
        { messageId: 'truncatesInPlace', line: 2 },
        { messageId: 'truncatesInPlace', line: 4 },
      ],
    },
    {
      name: 'a derived .mp3, but the source is removed before the write: a crash mid-write loses both',
      code: `
        def remux(path):
            data = Path(path).read_bytes()
            os.remove(path)
            mp3_path = Path(path).with_suffix(".mp3")
            mp3_path.write_bytes(data)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 5 }],
    },
    {
      name: 'a derived name whose source is never read: the written data is the only copy',
      code: `
        def save_report(path, report):
            out = Path(path).with_suffix(".json")
            out.write_text(json.dumps(report))
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 3 }],
    },
    {
      name: 'an existence guard on another path: the target may exist',
      code: `
        def create(path, other, text):
            if os.path.exists(other):
                sys.exit(1)
            with open(path, "w") as f:
                f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'an existence guard that does not leave the function: only warns',
      code: `
        def create(path, text):
            if os.path.exists(path):
                print("overwriting", path)
            with open(path, "w") as f:
                f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'the target deleted after the absence guard: a crash mid-write loses the old file',
      code: `
        def create(path, backup, text):
            if os.path.exists(path):
                sys.exit(1)
            os.rename(backup, path)
            os.remove(path)
            with open(path, "w") as f:
                f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 6 }],
    },
    {
      name: 'the target name rebound after the absence guard',
      code: `
        def create(path, other, text):
            if os.path.exists(path):
                return
            path = other
            with open(path, "w") as f:
                f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 5 }],
    },
    {
      name: 'only one arm leaves; the other goes on with the target present',
      code: `
        def create(path, force, text):
            if os.path.exists(path) and not force:
                return
            with open(path, "w") as f:
                f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'the guard sits in a branch the write does not: it does not run first on every path',
      code: `
        def create(path, check, text):
            if check:
                if os.path.exists(path):
                    return
            with open(path, "w") as f:
                f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 5 }],
    },
    {
      name: 'a pipe descriptor name rebound to a real file before the write',
      code: `
        def send(folder, payload):
            rfd, wfd = os.pipe()
            os.close(wfd)
            wfd = os.path.join(folder, "out.bin")
            with open(wfd, "wb") as f:
                f.write(payload)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 5 }],
    },
    {
      name: 'a pair bound from something that is not a pipe',
      code: `
        def send(payload):
            first, second = make_paths()
            with open(second, "wb") as f:
                f.write(payload)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 3 }],
    },
    {
      name: 'fileno() of a handle not known to be a socket',
      code: `
        def send(payload):
            handle = get_handle()
            with open(handle.fileno(), "wb") as f:
                f.write(payload)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 3 }],
    },
    {
      name: 'the backup copied only after the write: a crash mid-write loses the old contents',
      code: `
        def save(path, text):
            with open(path, "w") as f:
                f.write(text)
            shutil.copy(path, path + ".bak")
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 2 }],
    },
    {
      name: 'the backup copied only on one branch',
      code: `
        def save(path, text, keep):
            if keep:
                shutil.copy(path, path + ".bak")
            with open(path, "w") as f:
                f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'the backup copied in a loop that may run no time',
      code: `
        def save(path, text, backups):
            for backup in backups:
                shutil.copy(path, backup)
            with open(path, "w") as f:
                f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'the backup copied only in an except handler',
      code: `
        def save(path, text):
            try:
                check(path)
            except ValueError:
                shutil.copy(path, path + ".bak")
            with open(path, "w") as f:
                f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 6 }],
    },
    {
      name: 'another file copied, not the target',
      code: `
        def save(path, other, text):
            shutil.copy(other, path + ".1")
            with open(path, "w") as f:
                f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 3 }],
    },
    {
      name: 'the backup deleted again before the write',
      code: `
        def save(path, text):
            backup = path + ".bak"
            shutil.copy(path, backup)
            os.remove(backup)
            with open(path, "w") as f:
                f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 5 }],
    },
    {
      name: 'copied aside only when it exists and a flag is set: with the flag off the target is present and not copied',
      code: `
        def save(path, text, rotate):
            if os.path.exists(path) and rotate:
                shutil.copy(path, path + ".1")
            with open(path, "w") as f:
                f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'read, copied aside, and rewritten: the next read meets the torn file, the copy is not read back',
      code: `
        def bump(path):
            count = int(open(path).read())
            shutil.copy(path, path + ".bak")
            with open(path, "w") as f:
                f.write(str(count + 1))
      `,
      errors: [{ messageId: 'rewritesReadFileKeptAside', line: 4 }],
    },
    {
      name: 'whoosh FileStorage.rename_file: removed when it exists and safe is off, then the old name renamed over it',
      code: `
        class FileStorage:
            def rename_file(self, oldname, newname, safe=False):
                if os.path.exists(self._fpath(newname)):
                    if safe:
                        raise NameError("File %r exists" % newname)
                    else:
                        os.remove(self._fpath(newname))
                os.rename(self._fpath(oldname), self._fpath(newname))
      `,
      errors: [{ messageId: 'removedBeforeRename', line: 7 }],
    },
    {
      name: 'the target removed before a file from another folder is moved over it',
      code: `
        def publish(path, name):
            staged = os.path.join(tempfile.gettempdir(), name)
            os.remove(path)
            shutil.move(staged, path)
      `,
      errors: [{ messageId: 'removedBeforeRename', line: 3 }],
    },
    {
      name: 'fresh directory near-miss: os.makedirs(exist_ok=True) lets an existing directory and its files through',
      code: `
        def dump(root, tables):
            os.makedirs(root, exist_ok=True)
            for name, text in tables.items():
                with open(os.path.join(root, name), "w") as f:
                    f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'fresh directory near-miss: Path.mkdir(exist_ok=True)',
      code: `
        def export(out, text):
            out.mkdir(parents=True, exist_ok=True)
            (out / "report.txt").write_text(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 3 }],
    },
    {
      name: 'fresh directory near-miss: mkdir only in one branch, the write on every path',
      code: `
        def dump(root, tables, new):
            if new:
                os.mkdir(root)
            for name, text in tables.items():
                with open(os.path.join(root, name), "w") as f:
                    f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 5 }],
    },
    {
      name: 'fresh directory near-miss: mkdir and write under if tests on a name rebound between them',
      code: `
        def dump(root, tables, sim):
            if not sim:
                os.mkdir(root)
            sim = check()
            for name, text in tables.items():
                if not sim:
                    with open(os.path.join(root, name), "w") as f:
                        f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 7 }],
    },
    {
      name: 'fresh directory near-miss: mkdir and write under the same test of an attribute, which a call between may change',
      code: `
        def dump(self, root, tables):
            if not self.sim:
                os.mkdir(root)
            for name, text in tables.items():
                if not self.sim:
                    with open(os.path.join(root, name), "w") as f:
                        f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 6 }],
    },
    {
      name: 'fresh directory near-miss: the same name written twice (a list of names may repeat)',
      code: `
        def dump(root, names, text):
            os.mkdir(root)
            for name in names:
                with open(os.path.join(root, name), "w") as f:
                    f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'fresh directory near-miss: one literal name written twice',
      code: `
        def dump(root, first, second):
            os.mkdir(root)
            with open(os.path.join(root, "state"), "w") as f:
                f.write(first)
            with open(os.path.join(root, 'state'), "w") as f:
                f.write(second)
      `,
      errors: [
        { messageId: 'truncatesInPlace', line: 3 },
        { messageId: 'truncatesInPlace', line: 5 },
      ],
    },
    {
      name: 'fresh directory near-miss: the directory name rebound between the mkdir and the write',
      code: `
        def dump(root, tables):
            os.mkdir(root)
            root = settings.data_dir
            for name, text in tables.items():
                with open(os.path.join(root, name), "w") as f:
                    f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 5 }],
    },
    {
      name: 'fresh directory near-miss: the directory name rebound by the loop around the write',
      code: `
        def dump(root, roots, text):
            os.mkdir(root)
            for root in roots:
                with open(os.path.join(root, "state"), "w") as f:
                    f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'fresh directory near-miss: a write outside the new directory',
      code: `
        def dump(root, base, tables):
            os.mkdir(root)
            for name, text in tables.items():
                with open(os.path.join(base, name), "w") as f:
                    f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'fresh directory near-miss: mkdir in a try whose handler lets an existing directory through',
      code: `
        def dump(root, tables):
            try:
                os.mkdir(root)
            except FileExistsError:
                pass
            for name, text in tables.items():
                with open(os.path.join(root, name), "w") as f:
                    f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 7 }],
    },
    {
      name: 'fresh directory near-miss: the items of a dict inside a loop over another, so a key repeats',
      code: `
        def dump(root, groups):
            os.mkdir(root)
            for group in groups:
                for name, text in group.items():
                    with open(os.path.join(root, name), "w") as f:
                        f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 5 }],
    },
    {
      name: 'fresh directory near-miss: the tested name rebound later in the loop around the write, so a later pass writes without the mkdir',
      code: `
        def dump(root, tables, sim):
            if not sim:
                os.mkdir(root)
            for name, text in tables.items():
                if not sim:
                    with open(os.path.join(root, name), "w") as f:
                        f.write(text)
                sim = False
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 6 }],
    },
    {
      name: 'fresh directory near-miss: an old tree copied into the new directory before the write',
      code: `
        def dump(root, previous, tables):
            os.mkdir(root)
            shutil.copytree(previous, root, dirs_exist_ok=True)
            for name, text in tables.items():
                with open(os.path.join(root, name), "w") as f:
                    f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 5 }],
    },
    {
      name: 'reads the database but writes other data: its own settings, not the rows',
      code: `
        import json

        class Store:
            def save(self, path):
                count = self.conn.execute("SELECT count(*) FROM items").fetchone()
                with open(path, "w") as f:
                    f.write(json.dumps(self.settings))
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 6 }],
    },
    {
      name: 'rows exported, and the same function marks them exported and commits: the file is part of a change of state',
      code: `
        import json

        def export_pending(conn, path):
            rows = conn.execute("SELECT id, body FROM outbox WHERE sent = 0").fetchall()
            conn.execute("UPDATE outbox SET sent = 1 WHERE sent = 0")
            with open(path, "w") as f:
                json.dump(rows, f)
            conn.commit()
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 6 }],
    },
    {
      name: 'writes a parameter, with a count read from the database beside it (buku 4.7 write_string_to_file needs its callers)',
      code: `
        def write_string_to_file(conn, content, filepath):
            total = conn.execute("SELECT count(*) FROM bookmarks").fetchone()[0]
            with open(filepath, "w", encoding="utf-8") as f:
                f.write(content)
            return total
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 3 }],
    },
    {
      name: 'rows and the object state written together: the state is no copy of the database',
      code: `
        import json

        class Cache:
            def persist(self, path):
                rows = self.db.execute("SELECT k, v FROM entries").fetchall()
                with open(path, "w") as f:
                    json.dump({"rows": rows, "pending": self.pending}, f)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 6 }],
    },
    {
      name: 'the handle handed to a method of the project: what it writes is not seen',
      code: `
        class Exporter:
            def export(self, path):
                rows = self.conn.execute("SELECT * FROM t").fetchall()
                with open(path, "w") as f:
                    f.write(render(rows))
                    self.write_footer(f)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 4 }],
    },
    {
      name: 'rows written under a title the caller passes: part of the file comes from a parameter',
      code: `
        def export_titled(conn, title, path):
            rows = conn.execute("SELECT name FROM items").fetchall()
            with open(path, "w") as f:
                f.write(title + render(rows))
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 3 }],
    },
    {
      name: 'rows handed with the handle to a function of the project: what it writes is not seen',
      code: `
        def export(conn, path):
            rows = conn.execute("SELECT * FROM t").fetchall()
            with open(path, "w") as f:
                write_rows(rows, f)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 3 }],
    },
    {
      name: 'rows moved out of the database into the file, which is removed after: the file becomes the only copy',
      code: `
        import json
        import os

        def migrate(conn, db_path, path):
            rows = conn.execute("SELECT * FROM notes").fetchall()
            with open(path, "w") as f:
                json.dump(rows, f)
            os.remove(db_path)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 6 }],
    },
    {
      name: "fresh directory near-miss: the sorted items gain another entry before the loop, so a key may repeat",
      code: `
        def dump(root, tables, extra):
            os.mkdir(root)
            files = sorted(tables.items())
            files.append(extra)
            for name, text in files:
                with open(os.path.join(root, name), "w") as f:
                    f.write(text)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 6 }],
    },
    {
      name: 'fresh directory near-miss: the same name also written through a variable, so the second write truncates the first',
      code: `
        def dump(root, first, second):
            os.mkdir(root)
            state = os.path.join(root, "state")
            with open(state, "w") as f:
                f.write(first)
            with open(os.path.join(root, "state"), "w") as f:
                f.write(second)
      `,
      errors: [
        { messageId: 'truncatesInPlace', line: 4 },
        { messageId: 'truncatesInPlace', line: 6 },
      ],
    },
    {
      name: 'rows of a ":memory:" database dumped to a file: the file is their only lasting copy',
      code: `
        import json
        import sqlite3

        def persist(path):
            conn = sqlite3.connect(":memory:")
            rows = conn.execute("SELECT * FROM scratch").fetchall()
            with open(path, "w") as f:
                json.dump(rows, f)
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 7 }],
    },
    {
      name: 'a reading helper handed the object state: what it returns may carry the state',
      code: `
        class Store:
            def merged(self, extra):
                rows = self.conn.execute("SELECT k, v FROM kv").fetchall()
                return rows + extra

            def save(self, path):
                with open(path, "w") as f:
                    f.write(repr(self.merged(self.pending)))
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 7 }],
    },
  ],
});

describe('in-place-file-rewrite messages', () => {
  it('removedBeforeRename says where the new contents are, not that no file is left', () => {
    const [finding] = lint(
      `
        def publish(path, staged):
            os.remove(path)
            os.rename(staged, path)
      `,
      [inPlaceFileRewrite],
    );
    expect(finding?.message).toBe(
      'path is removed before staged is renamed over it (line 3): a crash between them leaves path missing, its new contents only under staged',
    );
  });

  it('rewritesReadFileKeptAside names the backup and its line, and does not claim the old contents lost', () => {
    const [finding] = lint(
      `
        def bump(path):
            count = int(open(path).read())
            shutil.copy(path, path + ".bak")
            with open(path, "w") as f:
                f.write(str(count + 1))
      `,
      [inPlaceFileRewrite],
    );
    expect(finding?.message).toContain('put aside as path + ".bak" (line 3)');
    expect(finding?.message).not.toContain('are lost');
  });
});
