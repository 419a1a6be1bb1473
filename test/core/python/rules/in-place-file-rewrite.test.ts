import { inPlaceFileRewrite } from '../../../../src/core/python/rules/in-place-file-rewrite.ts';
import { testRule } from './rule-tester.ts';

testRule(inPlaceFileRewrite, {
  valid: [
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
      name: 'returns when the target exists (Path(T).exists()), then writes it inside a try',
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
  ],
  invalid: [
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
      name: 'the old file moved away as a backup, then the path rewritten (reference save_user_setting/backup_then_write)',
      code: `
        def save_setting(path, key, value):
            with open(path) as f:
                settings = json.load(f)
            settings[key] = value
            os.replace(path, path + ".bak")
            with open(path, "w") as f:
                f.write(json.dumps(settings, indent=2))
      `,
      errors: [{ messageId: 'rewritesReadFile', line: 6 }],
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
      name: "a report written straight to its final path with 'w'",
      code: `
        def export_report(conn, path):
            rows = conn.execute("SELECT * FROM sales").fetchall()
            with open(path, "w") as f:
                f.write(render(rows))
      `,
      errors: [{ messageId: 'truncatesInPlace', line: 3 }],
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
  ],
});
