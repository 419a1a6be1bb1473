// windows-only.ts: in-place-file-rewrite findings on code reached only on native Windows are skipped unless the
// config says `windows_only: report`. Each quiet case is reported under `report`, so the quiet comes from the
// Windows guard and not from some other rule's silence; each near-miss is reported under both settings.
import { describe, expect, it } from 'vitest';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { scanRepository } from '../../../../src/core/python/scan.ts';
import { configSchema, parseConfig } from '../../../../src/core/config/schema.ts';
import { dedent } from './rule-tester.ts';

/** A reader of the file, so a truncation is state and not output nothing reads (read-back.ts). */
const READER = `

def load(path):
    return open(path).read()
`;

function findings(code: string, windowsOnly: 'skip' | 'report'): [string, number][] {
  const module = parseModule('snippet.py', `${dedent(code).replace(/\s*$/, '')}\n${READER}`);
  return scanRepository([module], undefined, { windowsOnly }).files.flatMap((file) =>
    file.reports.flatMap((report) =>
      report.findings.filter((finding) => finding.ruleId === 'in-place-file-rewrite').map((finding): [string, number] => [finding.messageId ?? '', finding.range.startLine]),
    ),
  );
}

/** A write of `path` in place, under `guard` (an `if ...:` or other block opener), with code before and after it. */
function guardedWrite(guard: string, before = '', after = ''): string {
  return `
    ${before}
    def save(path, data):
        ${guard}
            with open(path, 'w') as f:
                f.write(data)
        ${after}
  `;
}

describe('in-place-file-rewrite: a write reached only on native Windows', () => {
  const quiet: { name: string; code: string; line: number }[] = [
    {
      name: "bleachbit's wipe_contents: `if 'nt' == os.name and IsUserAnAdmin():`, a truncation in an except arm inside",
      code: `
        def wipe(path):
            if 'nt' == os.name and IsUserAnAdmin():
                try:
                    file_wipe(path)
                except OSError:
                    with open(path, 'w') as f:
                        f.truncate(0)
                        f.write('')
      `,
      line: 6,
    },
    { name: "os.name == 'nt'", code: guardedWrite("if os.name == 'nt':"), line: 4 },
    { name: "sys.platform == 'win32'", code: guardedWrite("if sys.platform == 'win32':"), line: 4 },
    { name: 'sys.platform.startswith("win")', code: guardedWrite('if sys.platform.startswith("win"):'), line: 4 },
    { name: 'platform.system() == "Windows"', code: guardedWrite('if platform.system() == "Windows":'), line: 4 },
    { name: 'platform.system().lower() == "windows"', code: guardedWrite('if platform.system().lower() == "windows":'), line: 4 },
    { name: "`sys.platform in ('win32',)` and `not os.name != 'nt'`", code: guardedWrite("if sys.platform in ('win32',) and not os.name != 'nt':"), line: 4 },
    { name: 'a module constant bound once to a Windows test', code: guardedWrite('if IS_WINDOWS:', "IS_WINDOWS = os.name == 'nt'\n"), line: 5 },
    { name: "`except WindowsError:`", code: guardedWrite('try:\n            flush_locked(path)\n        except WindowsError:'), line: 6 },
    {
      name: "the else arm of `if os.name != 'nt':`",
      code: `
        def save(path, data):
            if os.name != 'nt':
                pass
            else:
                with open(path, 'w') as f:
                    f.write(data)
      `,
      line: 5,
    },
    {
      name: "an elif arm whose `if` fails only on Windows: `if os.name != 'nt': ... elif locked:`",
      code: `
        def save(path, data, locked):
            if os.name != 'nt':
                log('posix')
            elif locked:
                with open(path, 'w') as f:
                    f.write(data)
      `,
      line: 5,
    },
    {
      name: 'the POSIX arm only logs the path (no open, rename, copy, truncate or write of it)',
      code: `
        def save(path, data):
            if os.name == 'nt':
                with open(path, 'w') as f:
                    f.write(data)
            else:
                log.info('not on Windows, %s left alone', path)
      `,
      line: 3,
    },
  ];
  for (const { name, code, line } of quiet) {
    it(`stays quiet by default, reports with windows_only: report: ${name}`, () => {
      expect(findings(code, 'skip')).toEqual([]);
      expect(findings(code, 'report').map(([, at]) => at)).toEqual([line]);
    });
  }

  const reported: { name: string; code: string; line: number }[] = [
    {
      name: 'the POSIX arm truncates the same path through os.open(O_TRUNC) (rev-C case02)',
      code: `
        def save_token(path, data):
            if os.name == 'nt':
                with open(path, 'w') as f:
                    f.write(data)
            else:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, 'w') as f:
                    f.write(data)
      `,
      line: 3,
    },
    {
      name: "the POSIX arm opens the same path 'a', locks, truncates and writes (rev-C case20)",
      code: `
        def save_state(path, data):
            if os.name == 'nt':
                with open(path, 'w') as f:
                    f.write(data)
            else:
                with open(path, 'a') as f:
                    fcntl.flock(f, fcntl.LOCK_EX)
                    f.seek(0)
                    f.truncate()
                    f.write(data)
      `,
      line: 3,
    },
    {
      name: "the Windows arm copies over the path that the POSIX arm renames onto (rev-C case03)",
      code: `
        def write_atomic(path, tmp):
            if sys.platform == 'win32':
                with open(tmp) as src, open(path, 'w') as dst:
                    dst.write(src.read())
                os.remove(tmp)
            else:
                os.rename(tmp, path)
      `,
      line: 3,
    },
    {
      name: 'the Windows arm returns; the code it skips renames onto the same path',
      code: `
        def write_atomic(path, tmp, data):
            if os.name == 'nt':
                with open(path, 'w') as f:
                    f.write(data)
                return
            os.replace(tmp, path)
      `,
      line: 3,
    },
    {
      name: '`except WindowsError:` where a star import may bind WindowsError = OSError (rev-C case01)',
      code: `
        from .compat import *

        def save(path, other, data):
            try:
                os.remove(other)
            except WindowsError:
                with open(path, 'w') as f:
                    f.write(data)
      `,
      line: 7,
    },
    {
      name: "a constant rebound through globals()['IS_WIN'] (rev-C case12)",
      code: `
        IS_WIN = sys.platform == 'win32'

        def configure(argv):
            globals()['IS_WIN'] = '--portable' in argv

        def save(path, data):
            if IS_WIN:
                with open(path, 'w') as f:
                    f.write(data)
      `,
      line: 8,
    },
    { name: "the negated guard: `if os.name != 'nt':`", code: guardedWrite("if os.name != 'nt':"), line: 4 },
    {
      name: 'the else arm of a Windows test',
      code: `
        def save(path, data):
            if sys.platform == 'win32':
                log('windows')
            else:
                with open(path, 'w') as f:
                    f.write(data)
      `,
      line: 5,
    },
    {
      name: 'after a guard that returns early only on Windows',
      code: `
        def save(path, data):
            if os.name == 'nt':
                return
            with open(path, 'w') as f:
                f.write(data)
      `,
      line: 4,
    },
    { name: 'a Windows test ORed with a POSIX one (cygwin)', code: guardedWrite("if os.name == 'nt' or sys.platform == 'cygwin':"), line: 4 },
    { name: "`sys.platform in ('win32', 'cygwin')`", code: guardedWrite("if sys.platform in ('win32', 'cygwin'):"), line: 4 },
    {
      name: "the else arm of `os.name == 'posix'` (Jython's 'java' too)",
      code: `
        def save(path, data):
            if os.name == 'posix':
                pass
            else:
                with open(path, 'w') as f:
                    f.write(data)
      `,
      line: 5,
    },
    { name: "`sys.platform.startswith('cyg')` is no Windows test", code: guardedWrite("if sys.platform.startswith('cyg'):"), line: 4 },
    { name: '`except (WindowsError, OSError):` runs on POSIX too', code: guardedWrite('try:\n            flush_locked(path)\n        except (WindowsError, OSError):'), line: 6 },
    {
      name: 'WindowsError bound by the module to OSError (a compatibility shim)',
      code: guardedWrite('try:\n            flush_locked(path)\n        except WindowsError:', 'try:\n        WindowsError\n    except NameError:\n        WindowsError = OSError\n'),
      line: 10,
    },
    {
      name: 'a module constant rebound by a function (global)',
      code: guardedWrite('if IS_WINDOWS:', "IS_WINDOWS = os.name == 'nt'\n\n    def force_windows():\n        global IS_WINDOWS\n        IS_WINDOWS = True\n"),
      line: 9,
    },
    { name: 'a module constant ORed with a POSIX test', code: guardedWrite('if ODD_RENAME:', "ODD_RENAME = os.name == 'nt' or sys.platform == 'cygwin'\n"), line: 5 },
    {
      name: 'a parameter shadowing the constant',
      code: `
        IS_WINDOWS = os.name == 'nt'

        def save(path, data, IS_WINDOWS=True):
            if IS_WINDOWS:
                with open(path, 'w') as f:
                    f.write(data)
      `,
      line: 5,
    },
    { name: 'a flag from a parameter', code: guardedWrite('if windows:').replace('save(path, data)', 'save(path, data, windows)'), line: 4 },
    {
      name: 'the Windows test in the condition of another arm only: the write sits in the first arm',
      code: `
        def save(path, data, fast):
            if fast:
                with open(path, 'w') as f:
                    f.write(data)
            elif os.name == 'nt':
                pass
      `,
      line: 3,
    },
    // Remove-then-rename: the window os.replace closes on Windows too; reported under a Windows test as well.
    {
      name: "offlineimap's save_uidvalidity: the remove in `except WindowsError:` after the rename refused",
      code: `
        def save(path, value):
            with open(path + ".tmp", "wt") as f:
                f.write(value)
            try:
                os.rename(path + ".tmp", path)
            except WindowsError:
                os.remove(path)
                os.rename(path + ".tmp", path)
      `,
      line: 7,
    },
    {
      name: "yt-dlp's write_json_file and dulwich's _complete_pack: the remove under `if sys.platform == 'win32':`, in a suppress",
      code: `
        def complete(path, target):
            if sys.platform == "win32":
                with suppress(FileNotFoundError):
                    os.remove(target)
            os.rename(path, target)

        def load_target(target):
            return open(target).read()
      `,
      line: 4,
    },
  ];
  for (const { name, code, line } of reported) {
    it(`reports under both settings: ${name}`, () => {
      expect(findings(code, 'skip').map(([, at]) => at)).toEqual([line]);
      expect(findings(code, 'report').map(([, at]) => at)).toEqual([line]);
    });
  }
});

describe('config: windows_only', () => {
  it('defaults to skip, takes report, refuses anything else', () => {
    expect(configSchema.parse({}).windows_only).toBe('skip');
    expect(parseConfig({ windows_only: 'report' }).windows_only).toBe('report');
    expect(() => parseConfig({ windows_only: 'always' })).toThrow(/windows_only/);
  });
});

describe('in-place-file-rewrite: a Windows name bound elsewhere in the repository', () => {
  it('reports under `except WindowsError:` when the package assigns builtins.WindowsError (rev-C case17)', () => {
    const init = parseModule('pkg/__init__.py', dedent(`
      import builtins

      if not hasattr(builtins, 'WindowsError'):
          builtins.WindowsError = OSError
    `));
    const prefs = parseModule('pkg/prefs.py', `${dedent(`
      def store(path, other, text):
          try:
              os.remove(other)
          except WindowsError:
              with open(path, 'w') as f:
                  f.write(text)
    `).replace(/\s*$/, '')}\n${READER}`);
    const lines = (windowsOnly: 'skip' | 'report'): number[] =>
      scanRepository([init, prefs], undefined, { windowsOnly }).files.flatMap((file) =>
        file.reports.flatMap((report) => report.findings.filter((finding) => finding.ruleId === 'in-place-file-rewrite').map((finding) => finding.range.startLine)),
      );
    expect(lines('skip')).toEqual([5]);
    expect(lines('report')).toEqual([5]);
    // Without the builtins assignment the same arm is Windows-only.
    const alone = scanRepository([prefs], undefined, { windowsOnly: 'skip' }).files.flatMap((file) => file.reports.flatMap((report) => report.findings.filter((finding) => finding.ruleId === 'in-place-file-rewrite')));
    expect(alone).toEqual([]);
  });
});
