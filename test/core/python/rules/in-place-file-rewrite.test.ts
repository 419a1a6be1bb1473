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
  ],
  invalid: [
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
  ],
});
