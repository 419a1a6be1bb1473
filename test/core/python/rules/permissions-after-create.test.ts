import { permissionsAfterCreate } from '../../../../src/core/python/rules/permissions-after-create.ts';
import { testRule } from './rule-tester.ts';

testRule(permissionsAfterCreate, {
  valid: [
    {
      name: 'created with its final mode through os.open',
      code: `
        def ensure(path):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
            os.close(fd)
      `,
    },
    {
      name: 'umask narrowed before the file is created',
      code: `
        def ensure(path):
            old = os.umask(0o077)
            try:
                with open(path, "w"):
                    pass
            finally:
                os.umask(old)
            os.chmod(path, 0o600)
      `,
    },
    {
      name: 'widened after create (a published file): nothing is exposed by a crash',
      code: `
        def publish(path, text):
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o644)
      `,
    },
    {
      name: 'chmod before the write, on a file that already exists',
      code: `
        def save(path, secret):
            os.chmod(path, 0o600)
            with open(path, "w") as f:
                f.write(secret)
      `,
    },
    {
      name: 'chmod of another path',
      code: `
        def save(path, other, secret):
            with open(path, "w") as f:
                f.write(secret)
            os.chmod(other, 0o600)
      `,
    },
    {
      name: 'opened r+ (the file must exist already): nothing is created',
      code: `
        def update(path, secret):
            with open(path, "r+") as f:
                f.write(secret)
            os.chmod(path, 0o600)
      `,
    },
    {
      name: "bleachbit 4.4 wipe_contents.wipe_write: chmod only in the except IOError (EACCES) clause of a failed open, the open ending the try body",
      code: `
        def wipe_contents(path, truncate=True):
            def wipe_write():
                size = getsize(path)
                try:
                    f = open(path, 'wb')
                except IOError as e:
                    if e.errno == errno.EACCES:  # permission denied
                        os.chmod(path, 0o200)  # user write only
                        f = open(path, 'wb')
                    else:
                        raise
                blanks = b'\0' * 4096
                while size > 0:
                    f.write(blanks)
                    size -= 4096
                return f
            return wipe_write()
      `,
    },
    {
      name: 'chmod in an except (OSError, PermissionError) clause of a bare open statement, the whole try body',
      code: `
        def reopen(path):
            try:
                open(path, 'a')
            except (OSError, PermissionError):
                os.chmod(path, 0o600)
      `,
    },
    {
      name: 'create and chmod in exclusive branches',
      code: `
        def prepare(path, fresh):
            if fresh:
                open(path, "w").close()
            else:
                os.chmod(path, 0o600)
      `,
    },
  ],
  invalid: [
    {
      name: 'keyrings.alt 4.2 Keyring._ensure_file_path: created empty, then chmod 0o600 through a local name',
      code: `
        class Keyring:
            def _ensure_file_path(self):
                if not os.path.isfile(self.file_path):
                    with open(self.file_path, 'w'):
                        pass
                    user_read_write = 0o600
                    os.chmod(self.file_path, user_read_write)
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 4 }],
    },
    {
      name: 'a secret written, then narrowed with stat flags',
      code: `
        def save_token(path, token):
            with open(path, "w") as f:
                f.write(token)
            os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 2 }],
    },
    {
      name: 'write_text ends the try: it makes the file and then writes, and the write can raise OSError with the file there',
      code: `
        def save_token(path, token):
            try:
                path.write_text(token)
            except OSError:
                path.chmod(0o600)
                raise
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 3 }],
    },
    {
      name: 'write_bytes ends the try: the same',
      code: `
        def save_key(key_path, key):
            try:
                key_path.write_bytes(key)
            except PermissionError:
                key_path.chmod(0o600)
                raise
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 3 }],
    },
    {
      name: 'an opener= callable may make the file and then raise',
      code: `
        def save(p, data):
            try:
                f = open(p, 'w', opener=make_owned)
            except PermissionError:
                os.chmod(p, 0o600)
                raise
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 3 }],
    },
    {
      name: 'a statement before the open in the try body may have made the file (shutil.copyfile)',
      code: `
        def install_config(template, path):
            try:
                shutil.copyfile(template, path)
                f = open(path, 'a')
            except OSError:
                os.chmod(path, 0o600)
                raise
            return f
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 4 }],
    },
    {
      name: 'a statement after the open in the try body: the file may exist when the handler chmods it',
      code: `
        def save(path, secret):
            try:
                f = open(path, 'w')
                f.write(secret)
            except IOError:
                os.chmod(path, 0o600)
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 3 }],
    },
    {
      name: 'except Exception: a text open may raise LookupError after the file is made',
      code: `
        def save(path, encoding):
            try:
                f = open(path, 'w', encoding=encoding)
            except Exception:
                os.chmod(path, 0o600)
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 3 }],
    },
    {
      name: 'a bare except',
      code: `
        def save(path):
            try:
                f = open(path, 'w')
            except:
                os.chmod(path, 0o600)
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 3 }],
    },
    {
      name: 'the try in a loop: an earlier pass may have created the file the handler narrows',
      code: `
        def save(path):
            for attempt in range(2):
                try:
                    f = open(path, 'w')
                except OSError:
                    os.chmod(path, 0o600)
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 4 }],
    },
    {
      name: 'chmod in the else clause of the try: it runs after the open succeeded',
      code: `
        def save(path):
            try:
                f = open(path, 'w')
            except OSError:
                raise
            else:
                os.chmod(path, 0o600)
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 3 }],
    },
    {
      name: 'chmod in the finally clause',
      code: `
        def save(path):
            try:
                f = open(path, 'w')
            finally:
                os.chmod(path, 0o600)
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 3 }],
    },
    {
      name: 'a with block in the try body: its body may raise after the file is made',
      code: `
        def save(path, secret):
            try:
                with open(path, 'w') as f:
                    f.write(secret)
            except OSError:
                os.chmod(path, 0o600)
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 3 }],
    },
    {
      name: 'the file created before the try, the handler chmod after a later failed open: the first create is paired',
      code: `
        def save(path, secret):
            with open(path, 'w') as f:
                f.write(secret)
            try:
                g = open(path, 'a')
            except OSError:
                os.chmod(path, 0o600)
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 2 }],
    },
    {
      name: 'pathlib: write_text, then Path.chmod(0o600)',
      code: `
        def save_key(key_path, key):
            key_path.write_text(key)
            key_path.chmod(0o600)
      `,
      errors: [{ messageId: 'narrowedAfterCreate', line: 2 }],
    },
  ],
});
