import { inPlaceFileRewrite } from '../../../../src/core/python/rules/in-place-file-rewrite.ts';
import { describe, expect, it } from 'vitest';
import { dedent, lint } from './rule-tester.ts';

/** A reader of the file, appended after the snippet: without one the target is output nothing reads (read-back.ts). */
const READER = `
def load(path):
    return open(path).read()
`;

function findings(code: string): [string, number][] {
  return lint(`${dedent(code).replace(/\s*$/, '')}\n\n${dedent(READER)}`, [inPlaceFileRewrite]).map((finding) => [finding.messageId, finding.range.startLine]);
}

// A 'w+' open standing in for an 'r+' open of the same path that found no file stays reported: a quieting for it
// (missing-file-fallback.ts, stop 27) quieted no real finding once its reviewer's holes were closed, and was dropped.
describe('in-place-file-rewrite: an open that stands in for one that found no file', () => {
  const reported: { name: string; code: string; line: number; also?: number[] }[] = [
    {
      name: "Quod Libet's faulthandling.enable: the handle kept in a module global (raise_and_clear_error truncates it)",
      code: `
        _fileobj = None

        def enable(path):
            global _fileobj
            if _fileobj is not None:
                raise Exception("already enabled")
            try:
                _fileobj = open(path, "rb+")
            except IOError as e:
                if e.errno == errno.ENOENT:
                    _fileobj = open(path, "wb+")
                else:
                    raise
            faulthandler.enable(_fileobj, all_threads=False)
      `,
      line: 11,
    },
    {
      name: 'the handle returned: the caller writes the initial JSON when the text is empty (rev-C case19)',
      code: `
        def open_journal(path):
            try:
                handle = open(path, 'r+', encoding='utf-8')
            except FileNotFoundError:
                handle = open(path, 'w+', encoding='utf-8')
            return handle
      `,
      line: 5,
    },
    {
      name: 'json.dump of the defaults into the handle when it is empty, under flock (rev-C case05)',
      code: `
        def load_state(path):
            try:
                f = open(path, 'r+')
            except FileNotFoundError:
                f = open(path, 'w+')
            with f:
                fcntl.flock(f, fcntl.LOCK_EX)
                text = f.read()
                if not text:
                    json.dump(DEFAULTS, f)
                    return dict(DEFAULTS)
                return json.loads(text)
      `,
      line: 5,
    },
    {
      name: 'the errno == ENOENT form, then pickle.dump into the handle when empty (rev-C case08)',
      code: `
        def open_cache(path):
            try:
                fh = open(path, 'rb+')
            except IOError as e:
                if e.errno == errno.ENOENT:
                    fh = open(path, 'wb+')
                else:
                    raise
            raw = fh.read()
            if not raw:
                pickle.dump({'version': 2}, fh)
      `,
      line: 6,
    },
    {
      name: 'os.ftruncate and mmap of its fileno, a magic written into the map (rev-C case14)',
      code: `
        def open_counters(path):
            try:
                f = open(path, 'r+b')
            except FileNotFoundError:
                f = open(path, 'w+b')
            if os.fstat(f.fileno()).st_size == 0:
                os.ftruncate(f.fileno(), SIZE)
                m = mmap.mmap(f.fileno(), SIZE)
                m[0:8] = MAGIC
      `,
      line: 5,
    },
    {
      name: 'the handle kept on self, a header written by another method (rev-C case07)',
      code: `
        class Journal:
            def __init__(self, path):
                try:
                    f = open(path, 'rb+')
                except FileNotFoundError:
                    f = open(path, 'wb+')
                self._f = f

            def write_header(self):
                self._f.write(HEADER)
      `,
      line: 6,
    },
    {
      name: 'the handle given another name',
      code: `
        def enable(path):
            try:
                f = open(path, 'r+')
            except FileNotFoundError:
                f = open(path, 'w+')
            g = f
            g.write(HEADER)
      `,
      line: 5,
    },
    {
      name: 'faulthandler.dump_traceback(file=f): writes at once, not at a fatal error',
      code: `
        def enable(path):
            try:
                f = open(path, 'r+')
            except FileNotFoundError:
                f = open(path, 'w+')
            faulthandler.dump_traceback(file=f)
      `,
      line: 5,
    },
    {
      name: '`except OSError:` without the errno test: EACCES or EISDIR on a present file',
      code: `
        def enable(path):
            try:
                f = open(path, "rb+")
            except OSError:
                f = open(path, "wb+")
            return f
      `,
      line: 5,
    },
    {
      name: 'another errno than ENOENT',
      code: `
        def enable(path):
            try:
                f = open(path, "rb+")
            except IOError as e:
                if e.errno == errno.EACCES:
                    f = open(path, "wb+")
            return f
      `,
      line: 6,
    },
    {
      name: 'the errno test ORed with something else',
      code: `
        def enable(path, force):
            try:
                f = open(path, "rb+")
            except IOError as e:
                if e.errno == errno.ENOENT or force:
                    f = open(path, "wb+")
            return f
      `,
      line: 6,
    },
    {
      name: 'FileNotFoundError caught with PermissionError',
      code: `
        def enable(path):
            try:
                f = open(path, "rb+")
            except (FileNotFoundError, PermissionError):
                f = open(path, "wb+")
            return f
      `,
      line: 5,
    },
    {
      name: 'another statement in the try that can raise FileNotFoundError with the file there',
      code: `
        def enable(path, other):
            try:
                f = open(path, "rb+")
                settings = open(other).read()
            except FileNotFoundError:
                f = open(path, "wb+")
            return f
      `,
      line: 6,
    },
    {
      name: 'the first open is read-only: the steps after it differ from those after the writing one',
      code: `
        def enable(path):
            try:
                f = open(path, "r")
            except FileNotFoundError:
                f = open(path, "w")
            return f
      `,
      line: 5,
    },
    {
      name: 'a flag set in the arm',
      code: `
        def enable(path):
            created = False
            try:
                f = open(path, "rb+")
            except FileNotFoundError:
                f = open(path, "wb+")
                created = True
            return f, created
      `,
      line: 6,
    },
    {
      name: 'contents written in the arm',
      code: `
        def enable(path):
            try:
                f = open(path, "r+")
            except FileNotFoundError:
                f = open(path, "w+")
                f.write(HEADER)
            return f
      `,
      line: 5,
      also: [3],
    },
    {
      name: 'an else clause on the try: run only when the file was there',
      code: `
        def enable(path):
            try:
                f = open(path, "rb+")
            except FileNotFoundError:
                f = open(path, "wb+")
            else:
                check(f)
            return f
      `,
      line: 5,
    },
    {
      name: 'another path in the second open',
      code: `
        def enable(old, path):
            try:
                f = open(old, "rb+")
            except FileNotFoundError:
                f = open(path, "wb+")
            return f
      `,
      line: 5,
    },
    {
      name: 'a path from a call that may give another name the second time',
      code: `
        def enable():
            try:
                f = open(next_log_name(), "rb+")
            except FileNotFoundError:
                f = open(next_log_name(), "wb+")
            return f
      `,
      line: 5,
    },
    {
      name: 'a flag set in the except clause before the errno test',
      code: `
        def enable(path):
            created = False
            try:
                f = open(path, "rb+")
            except IOError as e:
                created = True
                if e.errno == errno.ENOENT:
                    f = open(path, "wb+")
                else:
                    raise
            return f, created
      `,
      line: 8,
    },
    {
      name: 'an elif arm of the errno test that does something else than re-raise',
      code: `
        def enable(path):
            try:
                f = open(path, "rb+")
            except IOError as e:
                if e.errno == errno.ENOENT:
                    f = open(path, "wb+")
                elif e.errno == errno.EACCES:
                    mark_new(path)
            return f
      `,
      line: 6,
    },
    {
      name: 'an existence test before the try tells a new file apart: the re-run skips the header',
      code: `
        def enable(path):
            fresh = not os.path.exists(path)
            try:
                f = open(path, "r+")
            except FileNotFoundError:
                f = open(path, "w+")
            if fresh:
                f.write(HEADER)
            return f
      `,
      line: 6,
      also: [4],
    },
    {
      name: 'the handle bound to another name in the arm',
      code: `
        def enable(path):
            f = None
            try:
                f = open(path, "rb+")
            except FileNotFoundError:
                g = open(path, "wb+")
                g.write(DEFAULTS)
            return f
      `,
      line: 6,
    },
  ];
  for (const { name, code, line, also = [] } of reported) {
    it(`reports: ${name}`, () => {
      // Where the handle is written through, the 'r+' open is reported too (`also`).
      expect(findings(code).map(([, at]) => at)).toEqual([...also, line].sort((a, b) => a - b));
    });
  }
});

// created-empty.ts writesCommentOnly: a new .py file given only comment text, reached only where it is absent.
describe('in-place-file-rewrite: a missing .py file created with comment text only', () => {
  const quiet: { name: string; code: string }[] = [
    {
      name: "sqlobject's load_module_from_name: `if not os.path.exists(init):`, a raise where the open failed, then '#\\n'",
      code: `
        def load_module_from_name(filename, module_name):
            if module_name in sys.modules:
                return sys.modules[module_name]
            init_filename = os.path.join(os.path.dirname(filename), '__init__.py')
            if not os.path.exists(init_filename):
                try:
                    f = open(init_filename, 'w')
                except (OSError, IOError) as e:
                    raise IOError(
                        'Cannot write __init__.py file into directory %s (%s)\\n'
                        % (os.path.dirname(filename), e))
                f.write('#\\n')
                f.close()
            return load_module_from_file(module_name, filename)
      `,
    },
    {
      name: 'a with block writing two comment lines into os.path.join(d, "__init__.py")',
      code: `
        def make_package(d):
            if os.path.exists(os.path.join(d, '__init__.py')):
                return
            with open(os.path.join(d, '__init__.py'), 'w') as f:
                f.write('# generated package marker\\n\\n# do not edit\\n')
      `,
    },
    {
      name: "the file's name elsewhere only as a name compared in a listing, a docstring and a message",
      code: `
        def make_package(d):
            \"\"\"Creates d/__init__.py when it is missing.\"\"\"
            init = os.path.join(d, '__init__.py')
            if os.path.exists(init):
                return
            with open(init, 'w') as f:
                f.write('#\\n')

        def modules(d):
            return [name for name in os.listdir(d) if name.endswith('.py') and name != '__init__.py']

        def check(d):
            if not os.path.isdir(d):
                raise ValueError('%s has no __init__.py' % d)
      `,
    },
  ];
  for (const { name, code } of quiet) {
    it(`stays quiet: ${name}`, () => {
      expect(findings(code)).toEqual([]);
    });
  }

  const sqlobjectShape = (write: string, init = "os.path.join(os.path.dirname(filename), '__init__.py')", guard = 'if not os.path.exists(init_filename):', after = ''): string => `
    def load_module_from_name(filename):
        init_filename = ${init}
        ${guard}
            try:
                f = open(init_filename, 'w')
            except (OSError, IOError) as e:
                raise IOError('Cannot write %s (%s)' % (os.path.dirname(filename), e))
            ${write}
            f.close()${after}
  `;
  const reported: { name: string; code: string; line: number }[] = [
    {
      name: 'a shebang first line: a cut one makes every exec fail (rev-C case21)',
      code: `
        def install_hook(hooks_dir):
            hook = os.path.join(hooks_dir, 'post_commit.py')
            if os.path.exists(hook):
                return
            with open(hook, 'w') as f:
                f.write('#!/usr/bin/env python3\\n# add your steps below\\n')
            os.chmod(hook, 0o755)
      `,
      line: 5,
    },
    {
      name: 'the comment parsed back by a reader of the file (rev-C case09)',
      code: `
        def ensure_registry(pkg_dir):
            init = os.path.join(pkg_dir, '__init__.py')
            if not os.path.exists(init):
                with open(init, 'w') as f:
                    f.write('# plugin-registry schema 2\\n')

        def registry_schema(pkg_dir):
            with open(os.path.join(pkg_dir, '__init__.py')) as f:
                return re.match(r'# plugin-registry schema (\\d+)', f.read())
      `,
      line: 4,
    },
    {
      name: 'the comment compared as an ownership marker before a delete (rev-C case10)',
      code: `
        def make_package(path):
            init_py = os.path.join(path, '__init__.py')
            if os.path.exists(init_py):
                return
            with open(init_py, 'w') as fh:
                fh.write('# generated by scaffold -- safe to delete\\n')

        def clean(path):
            init_py = os.path.join(path, '__init__.py')
            with open(init_py) as fh:
                if fh.read() == MARKER:
                    os.remove(init_py)
      `,
      line: 5,
    },
    {
      name: 'a caller appends to the file after creating it, skipped on a re-run by its own existence test (rev-C case16)',
      code: `
        def make_init(pkg):
            init_py = os.path.join(pkg, '__init__.py')
            if not os.path.exists(init_py):
                with open(init_py, 'w') as f:
                    f.write('# generated package\\n')

        def add_package(pkg, modules):
            if os.path.exists(os.path.join(pkg, '__init__.py')):
                return
            make_init(pkg)
            with open(os.path.join(pkg, '__init__.py'), 'a') as f:
                f.writelines(modules)
      `,
      line: 4,
    },
    {
      name: 'the path returned to a caller that may read it',
      code: `
        def make_init(pkg):
            init_py = os.path.join(pkg, '__init__.py')
            if not os.path.exists(init_py):
                with open(init_py, 'w') as f:
                    f.write('#\\n')
            return init_py
      `,
      line: 4,
    },
    { name: 'code, not a comment', code: sqlobjectShape("f.write('x = 1\\n')"), line: 5 },
    { name: 'a coding comment, which a cut turns into a SyntaxError', code: sqlobjectShape("f.write('# -*- coding: latin-1 -*-\\n')"), line: 5 },
    { name: 'a comment into a file that is not Python', code: sqlobjectShape("f.write('#\\n')", "os.path.join(os.path.dirname(filename), 'settings.cfg')"), line: 5 },
    { name: 'no existence test: an existing __init__.py is emptied', code: sqlobjectShape("f.write('#\\n')", undefined, 'if True:', '\n        return open(init_filename).read()'), line: 5 },
    { name: 'a comment line, then code, in one literal', code: sqlobjectShape("f.write('#\\nx = 1\\n')"), line: 5 },
    { name: 'a comment with a non-ASCII character (a cut inside it is a SyntaxError)', code: sqlobjectShape("f.write('# caf\u00e9\\n')"), line: 5 },
    { name: 'a comment with another escape', code: sqlobjectShape("f.write('#\\x00\\n')"), line: 5 },
    { name: 'a raw string', code: sqlobjectShape("f.write(r'#\\n')"), line: 5 },
    { name: 'a text from a variable', code: sqlobjectShape('f.write(HEADER)'), line: 5 },
    { name: 'a second write after the comment', code: sqlobjectShape("f.write('#\\n')\n            f.write(BODY)"), line: 5 },
    {
      name: 'the package filled by a method after the comment, in what the re-run skips',
      code: sqlobjectShape("f.write('#\\n')", undefined, undefined, '\n            populate(init_filename)'),
      line: 5,
    },
    {
      name: 'a fallback in the except clause makes the file some other way before the raise',
      code: `
        def make(filename):
            init_filename = os.path.join(filename, '__init__.py')
            if not os.path.exists(init_filename):
                try:
                    f = open(init_filename, 'w')
                except OSError as e:
                    subprocess.run(['sudo', 'cp', TEMPLATE, init_filename])
                    raise IOError(str(e))
                f.write('#\\n')
                f.close()
      `,
      line: 5,
    },
    {
      name: 'a raise whose argument calls something that may write',
      code: sqlobjectShape("f.write('#\\n')").replace("raise IOError('Cannot write %s (%s)' % (os.path.dirname(filename), e))", 'raise IOError(fill(init_filename))'),
      line: 5,
    },
  ];
  for (const { name, code, line } of reported) {
    it(`reports: ${name}`, () => {
      expect(findings(code).map(([, at]) => at)).toEqual([line]);
    });
  }
});
