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
