import { inPlaceFileRewrite } from '../../../../src/core/python/rules/in-place-file-rewrite.ts';
import { describe, expect, it } from 'vitest';
import { dedent, lint } from './rule-tester.ts';

/**
 * A reader of the snippet's file, appended after it (its lines keep their numbers): without it the target would be
 * output nothing reads back, left alone for that reason (read-back.ts), and a quiet case would prove nothing.
 */
const READER = `
def load(path):
    return open(path).read()
`;

function withReader(code: string, reader = READER): string {
  return `${dedent(code).replace(/\s*$/, '')}\n\n${dedent(reader)}`;
}

function findings(code: string, reader?: string): [string, number][] {
  return lint(withReader(code, reader), [inPlaceFileRewrite]).map((finding) => [finding.messageId, finding.range.startLine]);
}

// created-empty.ts: an open in a writing mode reached only while its path is absent, with nothing written through it.
describe('in-place-file-rewrite: a file only created empty when absent', () => {
  const quiet: { name: string; code: string; reader?: string }[] = [
    {
      name: "ranger 1.9 Tags.__init__: a bare open(..., 'w') statement inside `if ... and not exists(f)`, exists imported from os.path",
      code: `
        from os.path import isdir, exists, dirname

        class Tags:
            def __init__(self, filename):
                self._filename = filename
                if isdir(dirname(self._filename)) and not exists(self._filename):
                    open(self._filename, 'w')
                self.sync()

            def sync(self):
                with open(self._filename, 'r') as fobj:
                    self.tags = fobj.read().splitlines()
      `,
      reader: '',
    },
    {
      name: "ranger 1.9 load_settings: `fobj = open(p, 'w')` then `fobj.close()` inside `if not os.path.exists(p):`",
      code: `
        def load_settings(fm):
            if not os.path.exists(fm.confpath('plugins', '__init__.py')):
                LOG.debug('Creating missing __init__.py')
                fobj = open(fm.confpath('plugins', '__init__.py'), 'w')
                fobj.close()

        def read_plugins(fm):
            return open(fm.confpath('plugins', '__init__.py')).read()
      `,
      reader: '',
    },
    {
      name: 'deluge 2.0 create_auth_file: a with block that only flushes and fsyncs its handle, inside `if not os.path.exists(path):`',
      code: `
        def create_auth_file(path):
            if not os.path.exists(path):
                with open(path, 'w', encoding='utf8') as _file:
                    _file.flush()
                    os.fsync(_file.fileno())
                os.chmod(path, stat.S_IREAD | stat.S_IWRITE)
      `,
    },
    {
      name: "Quod Libet 4.5 RootPathFile.valid: the else arm of `if os.path.exists(p): return`, a with block that only closes, then the probe removed",
      code: `
        class RootPathFile:
            def valid(self):
                valid = True
                if os.path.exists(self.pathfile):
                    return valid
                else:
                    try:
                        with io.open(self.pathfile, "w", encoding='utf-8') as f:
                            f.close()
                    except OSError:
                        valid = False
                    if os.path.exists(self.pathfile):
                        os.remove(self.pathfile)
                    return valid

            def read(self):
                return open(self.pathfile).read()
      `,
      reader: '',
    },
    {
      name: 'a preceding `if os.path.exists(path): return`, then a bare open: nothing written, so a return is enough',
      code: `
        def touch(path):
            if os.path.exists(path):
                return
            open(path, 'w')
      `,
    },
    {
      name: 'what the re-run skips only logs, chmods, chowns, tests the path again and removes it, and returns what the re-run returns',
      code: `
        def probe(path, ok):
            if os.path.exists(path):
                return ok
            log.debug('probing %s', path)
            h = open(path, 'w')
            h.close()
            os.chmod(path, 0o600)
            os.chown(path, 0, 0)
            self.logger.info('probed')
            if os.path.isfile(path):
                os.unlink(path)
            return ok
      `,
    },
    {
      name: '`continue` past the open for each file that is there, in a loop',
      code: `
        def touch_all(paths):
            for path in paths:
                if os.path.isfile(path):
                    continue
                handle = open(path, 'wb')
                handle.close()
      `,
    },
    {
      name: '`break` out of the loop once a file is there (os.path.lexists)',
      code: `
        def touch_until_present(paths):
            for path in paths:
                if os.path.lexists(path):
                    break
                with open(path, 'w') as marker:
                    marker.close()
      `,
    },
    {
      name: 'an elif arm after a condition that the file being there makes true',
      code: `
        def ensure(path, quiet):
            if Path(path).exists() or quiet:
                log('kept')
            elif writable(path):
                h = open(path, 'w')
                h.close()
      `,
    },
    {
      name: '`from os import path` and `path.exists(name)`',
      code: `
        from os import path

        def touch(name):
            if not path.exists(name):
                open(name, 'w')

        def load(name):
            return open(name).read()
      `,
      reader: '',
    },
  ];
  for (const { name, code, reader } of quiet) {
    it(`stays quiet: ${name}`, () => {
      expect(findings(code, reader)).toEqual([]);
    });
  }

  const reported: { name: string; code: string; reader?: string; line: number }[] = [
    {
      name: "Quod Libet's DownloadProgress shape: `if os.path.isfile(path): return`, then contents written: a torn file passes the re-run's test",
      code: `
        def downloaded(path, data):
            if os.path.isfile(path):
                return
            with open(path, 'wb') as f:
                f.write(data)
      `,
      line: 4,
    },
    {
      name: 'contents written inside `if not os.path.exists(path):`',
      code: `
        def create(path):
            if not os.path.exists(path):
                with open(path, 'w') as f:
                    f.write(HEADER)
      `,
      line: 3,
    },
    {
      name: 'a handle only flushed, with no existence test: an existing file is emptied',
      code: `
        def reset(path):
            h = open(path, 'w')
            h.flush()
      `,
      line: 2,
    },
    {
      name: 'the existence test is of another path',
      code: `
        def touch(path, other):
            if not os.path.exists(other):
                open(path, 'w')
      `,
      line: 3,
    },
    {
      name: 'the handle handed to json.dump inside `if not os.path.exists(path):`',
      code: `
        def create(path, data):
            if not os.path.exists(path):
                h = open(path, 'w')
                json.dump(data, h)
                h.close()
      `,
      line: 3,
    },
    {
      name: 'the handle returned to the caller, who may write through it',
      code: `
        def create(path):
            if os.path.exists(path):
                return None
            h = open(path, 'w')
            return h
      `,
      line: 4,
    },
    {
      name: 'appended to later in the same function: not followed, stays reported',
      code: `
        def create(path, lines):
            if not os.path.exists(path):
                open(path, 'w').close()
            with open(path, 'a') as f:
                f.writelines(lines)
      `,
      line: 3,
    },
    {
      name: 'a file replaced over the path between the test and the open',
      code: `
        def create(path, staged):
            if not os.path.exists(path):
                os.replace(staged, path)
                open(path, 'w')
      `,
      line: 4,
    },
    {
      name: 'a file replaced over the path by the absent arm of a preceding `if` whose other arm returns',
      code: `
        def create(path, staged):
            if not os.path.exists(path):
                os.replace(staged, path)
            else:
                return
            open(path, 'w')
      `,
      line: 6,
    },
    {
      name: 'the attribute tested is pointed at another file before the open',
      code: `
        class Store:
            def reset(self, other):
                if not os.path.exists(self.path):
                    self.path = other
                    open(self.path, 'w')

            def load(self):
                return open(self.path).read()
      `,
      reader: '',
      line: 5,
    },
    {
      name: 'a module-level function named exists, not os.path.exists',
      code: `
        def exists(path):
            return False

        def touch(path):
            if not exists(path):
                open(path, 'w')
      `,
      line: 6,
    },
    {
      name: '`exists` imported from os.path but rebound by a parameter of the function',
      code: `
        from os.path import exists

        def touch(path, exists):
            if not exists(path):
                open(path, 'w')
      `,
      line: 5,
    },
    {
      name: 'an `or` in the condition: the body also runs with the file there',
      code: `
        def touch(path, force):
            if not os.path.exists(path) or force:
                open(path, 'w')
      `,
      line: 3,
    },
    {
      name: 'a test that only logs when the file is there',
      code: `
        def touch(path):
            if os.path.exists(path):
                log('replacing', path)
            open(path, 'w')
      `,
      line: 4,
    },
    {
      name: 'a preceding `if os.path.exists(path): return False`, then `return True` after the open: the caller told "created" may fill it',
      code: `
        def touch(path):
            if os.path.exists(path):
                return False
            open(path, 'w')
            return True
      `,
      line: 4,
    },
    {
      name: 'review 26b c1a: a method fills the file after the open, inside `if not os.path.exists(self.path):`',
      code: `
        DEFAULTS = {"volume": 50, "recent": []}

        class Settings:
            def __init__(self, path):
                self.path = path
                if not os.path.exists(self.path):
                    fobj = open(self.path, 'w')
                    fobj.close()
                    self.save(DEFAULTS)
                self.data = self.load()

            def load(self):
                with open(self.path) as f:
                    return json.load(f)

            def save(self, data):
                with open(self.path, 'a') as f:
                    json.dump(data, f)
      `,
      reader: '',
      line: 7,
    },
    {
      name: 'review 26b c1b: gpg fills the keyring the open created empty',
      code: `
        def ensure_keyring(path):
            if not os.path.exists(path):
                # create it first so gpg writes into a file we own
                handle = open(path, 'w')
                handle.close()
                subprocess.run(['gpg', '--no-default-keyring', '--keyring', path,
                                '--import', '/usr/share/app/default.asc'], check=True)

        def load_keys(path):
            with open(path, 'rb') as f:
                return f.read()
      `,
      reader: '',
      line: 4,
    },
    {
      name: 'review 26b c1c: a marker made empty before the work it marks as done, after `if os.path.exists(marker): return`',
      code: `
        def first_run(home):
            marker = os.path.join(home, '.initialized')
            if os.path.exists(marker):
                return
            open(marker, 'w')
            for name in ('config.ini', 'theme.css'):
                shutil.copy(os.path.join('/usr/share/app', name), os.path.join(home, name))

        def initialized_at(home):
            return open(os.path.join(home, '.initialized')).read()
      `,
      reader: '',
      line: 5,
    },
    {
      name: 'review 26b c1d: sqlite3 fills the file with its schema after the with block that only flushes and fsyncs',
      code: `
        def init_cache(path):
            if not os.path.exists(path):
                with open(path, 'w') as fh:
                    fh.flush()
                    os.fsync(fh.fileno())
                conn = sqlite3.connect(path)
                conn.executescript(open('/usr/share/app/schema.sql').read())
                conn.close()

        def read_cache(path):
            return open(path, 'rb').read()
      `,
      reader: '',
      line: 3,
    },
    {
      name: 'review 26b c1e: a header written by a method after the open, and an empty file is invalid to the reader',
      code: `
        from os.path import exists

        class History:
            def __init__(self, filename):
                self.filename = filename
                if not exists(self.filename):
                    open(self.filename, 'w')
                    self.write_header()
                self.entries = self.read()

            def write_header(self):
                with open(self.filename, 'a') as f:
                    f.write('# history v2\\n')

            def read(self):
                with open(self.filename) as f:
                    if f.readline() != '# history v2\\n':
                        raise ValueError('not a history file')
                    return [json.loads(line) for line in f]
      `,
      reader: '',
      line: 7,
    },
    {
      name: 'work before the `break` guard in the loop: the re-run breaks before it for every later file',
      code: `
        def touch_until_present(paths):
            for path in paths:
                fetch(path)
                if os.path.lexists(path):
                    break
                with open(path, 'w') as marker:
                    marker.close()
      `,
      line: 6,
    },
    {
      name: 'a handle attribute set after the open in the absent arm: state a later step relies on',
      code: `
        def create(self, path):
            if not os.path.exists(path):
                open(path, 'w')
                self.created = True
      `,
      line: 3,
    },
    {
      name: 'an attribute set before the open in the absent arm: the re-run skips it too, and a later step may fill on it',
      code: `
        def create(self, path):
            if not os.path.exists(path):
                self.fresh = True
                open(path, 'w')
      `,
      line: 4,
    },
    {
      name: 'a flag set after the open in the absent arm decides a filling after the `if`',
      code: `
        def create(path):
            created = False
            if not os.path.exists(path):
                open(path, 'w')
                created = True
            if created:
                fill(path)
      `,
      line: 4,
    },
    {
      name: 'os.remove of another path after the open',
      code: `
        def create(path, old):
            if not os.path.exists(path):
                open(path, 'w')
                os.remove(old)
      `,
      line: 3,
    },
    {
      name: 'gzip.open in the absent arm: closing writes a header and trailer',
      code: `
        def create(path):
            if not os.path.exists(path):
                gzip.open(path, 'wb')
      `,
      line: 3,
    },
  ];
  for (const { name, code, reader, line } of reported) {
    it(`reports: ${name}`, () => {
      expect(findings(code, reader)).toEqual([['truncatesInPlace', line]]);
    });
  }
});

// absent-target-guard.ts: os.path's existence tests imported by their own names count as os.path.exists.
describe('in-place-file-rewrite: an existence test imported from os.path', () => {
  it('stays quiet: `from os.path import exists`, a refusal when the file exists, then contents written', () => {
    const code = `
      from os.path import exists

      def save_new(path, data):
          if exists(path):
              raise FileExistsError(path)
          with open(path, 'w') as f:
              f.write(data)
    `;
    expect(findings(code)).toEqual([]);
  });

  it('stays quiet: `from os.path import isfile as present`', () => {
    const code = `
      from os.path import isfile as present

      def save_new(path, data):
          if present(path):
              sys.exit('exists')
          with open(path, 'w') as f:
              f.write(data)
    `;
    expect(findings(code)).toEqual([]);
  });

  it('reports: `exists` imported from another module than os.path', () => {
    const code = `
      from mylib.files import exists

      def save_new(path, data):
          if exists(path):
              raise FileExistsError(path)
          with open(path, 'w') as f:
              f.write(data)
    `;
    expect(findings(code)).toEqual([['truncatesInPlace', 6]]);
  });
});
