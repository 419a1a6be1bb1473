import { inPlaceFileRewrite } from '../../../../src/core/python/rules/in-place-file-rewrite.ts';
import { describe, expect, it } from 'vitest';
import { dedent, lint } from './rule-tester.ts';

const found = (code: string): { messageId: string; line: number }[] =>
  lint(dedent(code), [inPlaceFileRewrite]).map((finding) => ({ messageId: finding.messageId, line: finding.range.startLine }));

/** A reader of both the live file and its backup, as deluge's load_resume_data_file tries one, then the other. */
const LOADER = `

def load(state_dir):
    filepath = os.path.join(state_dir, 'torrents.state')
    filepath_bak = filepath + '.bak'
    for _filepath in (filepath, filepath_bak):
        try:
            with open(_filepath, 'rb') as _file:
                return _file.read()
        except OSError:
            pass
`;

describe('in-place-file-rewrite: the live file rotated into its own backup', () => {
  const quiet: { name: string; code: string }[] = [
    {
      name: "deluge 2.0 TorrentManager._save_state: remove state.bak, rename state to state.bak, the new state from a temp file; the loader tries both",
      code: `
        class TorrentManager:
            def _save_state(self, data):
                filepath = os.path.join(self.state_dir, 'torrents.state')
                filepath_bak = filepath + '.bak'
                filepath_tmp = filepath + '.tmp'
                with open(filepath_tmp, 'wb') as f:
                    f.write(data)
                if os.path.isfile(filepath_bak):
                    os.remove(filepath_bak)
                if os.path.isfile(filepath):
                    os.rename(filepath, filepath_bak)
                os.rename(filepath_tmp, filepath)

            def load_state(self):
                filepath = os.path.join(self.state_dir, 'torrents.state')
                filepath_bak = filepath + '.bak'
                for _filepath in (filepath, filepath_bak):
                    try:
                        with open(_filepath, 'rb') as _file:
                            return _file.read()
                    except OSError:
                        pass
      `,
    },
    {
      name: "both names read by the function itself: os.remove(path + '~'), os.rename(path, path + '~'), then the new file renamed onto path",
      code: `
        def rotate(filepath, data):
            previous = open(filepath + '~').read(), open(filepath).read()
            with open(filepath + '.new', 'w') as f:
                f.write(data)
            os.remove(filepath + '~')
            os.rename(filepath, filepath + '~')
            os.rename(filepath + '.new', filepath)
            return previous
      `,
    },
  ];
  for (const { name, code } of quiet) {
    it(name, () => expect(found(code + LOADER)).toEqual([]));
  }

  const reported: { name: string; code: string; line: number }[] = [
    {
      name: 'another file renamed into the backup place: the backup of a is replaced by b, and a reader of a.bak meets none',
      code: `
        def rotate(filepath, b):
            previous = open(filepath + '.bak').read()
            os.remove(filepath + '.bak')
            os.rename(b, filepath + '.bak')
            return previous
      `,
      line: 3,
    },
    {
      name: 'the live name rebound between the backup name and the rename: another file moves into the backup place',
      code: `
        def rotate(filepath, other):
            filepath_bak = filepath + '.bak'
            previous = open(filepath_bak).read()
            filepath = other
            os.remove(filepath_bak)
            os.rename(filepath, filepath_bak)
            return previous
      `,
      line: 5,
    },
    {
      name: 'rotated to the backup, then the live file written in place (second reading): a torn live file becomes the next backup',
      code: `
        def save(path, data):
            if os.path.exists(path + '.bak'):
                os.remove(path + '.bak')
            if os.path.exists(path):
                os.rename(path, path + '.bak')
            with open(path, 'w') as f:
                json.dump(data, f)

        def load(path):
            for p in (path, path + '.bak'):
                try:
                    with open(p) as f:
                        return json.load(f)
                except (OSError, ValueError):
                    pass
      `,
      line: 3,
    },
    {
      name: 'a removal of the live file itself before the new one is renamed over it',
      code: `
        def replace(filepath, filepath_new):
            os.remove(filepath)
            os.rename(filepath_new, filepath)
      `,
      line: 2,
    },
    {
      name: 'a backup name rebound in a branch: the removed name may not be the backup of the renamed file',
      code: `
        def rotate(filepath, keep):
            filepath_bak = filepath + '.bak'
            if keep:
                filepath_bak = keep
            os.remove(filepath_bak)
            os.rename(filepath, filepath_bak)
      `,
      line: 5,
    },
  ];
  for (const { name, code, line } of reported) {
    it(name, () => expect(found(code + LOADER)).toEqual([{ messageId: 'removedBeforeRename', line }]));
  }
});

describe('in-place-file-rewrite: a kernel interface under /proc', () => {
  const LOADERS = `

def load(path, target):
    return open(path).read(), open(target).read()
`;
  const quiet: { name: string; code: string }[] = [
    {
      name: "bleachbit 4.4 make_self_oom_target_linux: '/proc/%d/oom_score_adj' % os.getpid(), both bindings under /proc",
      code: `
        def make_self_oom_target_linux():
            path = '/proc/%d/oom_score_adj' % os.getpid()
            if os.path.exists(path):
                with open(path, 'w') as f:
                    f.write('1000')
            else:
                path = '/proc/%d/oomadj' % os.getpid()
                if os.path.exists(path):
                    with open(path, 'w') as f:
                        f.write('15')
            return open(path).read()
      `,
    },
    {
      name: "an f-string and str.format with the pid left to a placeholder, and a /proc/sys file spelled out",
      code: `
        def tune(pid, value):
            with open(f'/proc/{pid}/oom_score_adj', 'w') as f:
                f.write(value)
            with open('/proc/{}/oom_adj'.format(pid), 'w') as f:
                f.write(value)
            with open('/proc/sys/vm/swappiness', 'w') as f:
                f.write(value)
            return open(f'/proc/{pid}/oom_score_adj').read()
      `,
    },
  ];
  for (const { name, code } of quiet) {
    it(name, () => expect(found(code + LOADERS)).toEqual([]));
  }

  const reported: { name: string; code: string; line: number }[] = [
    {
      name: 'one binding under /proc and another from a parameter: the write may hit a stored file',
      code: `
        def write(target):
            path = '/proc/self/oom_score_adj'
            if target:
                path = target
            with open(path, 'w') as f:
                f.write('1000')
            return open(path).read()
      `,
      line: 5,
    },
    {
      name: "a path that only contains /proc later on (a folder named proc under home) is stored",
      code: `
        def write(home):
            path = home + '/proc/state.json'
            with open(path, 'w') as f:
                f.write('{}')
            return open(path).read()
      `,
      line: 3,
    },
    {
      name: 'a /sys file may be stored (an nvmem or EEPROM device, second reading): reported',
      code: `
        def write_serial(image):
            path = '/sys/bus/nvmem/devices/at24-0/nvmem'
            with open(path, 'wb') as f:
                f.write(image)
            return open(path, 'rb').read()
      `,
      line: 3,
    },
    {
      name: "os.path.join('/proc', chroot, ...) drops /proc when chroot is absolute: reported",
      code: `
        def write(chroot):
            path = os.path.join('/proc', chroot, 'state.json')
            with open(path, 'w') as f:
                f.write('{}')
            return open(path).read()
      `,
      line: 3,
    },
    {
      name: "'/proc' + SUFFIX: the literal alone does not say the path is under /proc/",
      code: `
        def write(suffix):
            path = '/proc' + suffix
            with open(path, 'w') as f:
                f.write('{}')
            return open(path).read()
      `,
      line: 3,
    },
    {
      name: "/proc/self/cwd/ links to the process's working folder (third reading): a stored file",
      code: `
        def write(pid, name):
            path = '/proc/self/cwd/state.json'
            with open(path, 'w') as f:
                f.write('{}')
            return open(path).read()
      `,
      line: 3,
    },
    {
      name: "/proc/<pid>/root/ links to the process's root (third reading): a stored file",
      code: `
        def write(pid, name):
            path = '/proc/%s/root/etc/app.conf' % pid
            with open(path, 'w') as f:
                f.write('{}')
            return open(path).read()
      `,
      line: 3,
    },
    {
      name: "/proc/self/fd/<n> reopens an open file (third reading): a stored file",
      code: `
        def write(pid, name):
            path = '/proc/self/fd/%d' % pid
            with open(path, 'w') as f:
                f.write('{}')
            return open(path).read()
      `,
      line: 3,
    },
    {
      name: "'..' climbs out of /proc (third reading)",
      code: `
        def write(pid, name):
            path = '/proc/../var/lib/app/state'
            with open(path, 'w') as f:
                f.write('{}')
            return open(path).read()
      `,
      line: 3,
    },
    {
      name: "a placeholder beyond the pid: the rest of the path is not known (third reading)",
      code: `
        def write(pid, name):
            path = f'/proc/{pid}/{name}'
            with open(path, 'w') as f:
                f.write('{}')
            return open(path).read()
      `,
      line: 3,
    },
    {
      name: "/process is not /proc",
      code: `
        def write():
            with open('/process/state.json', 'w') as f:
                f.write('{}')
            return open('/process/state.json').read()
      `,
      line: 2,
    },
  ];
  for (const { name, code, line } of reported) {
    it(name, () => expect(found(code + LOADERS).map((f) => f.line)).toEqual([line]));
  }
});

describe('in-place-file-rewrite: a file emptied and then written through another handle (second reading)', () => {
  const LOADER = `

def load_lines(path):
    with open(path) as f:
        return f.read().splitlines()
`;
  const shapes: { name: string; empty: string }[] = [
    { name: "a bare open(path, 'w')", empty: "open(path, 'w')" },
    { name: "h = open(path, 'w'); h.close()", empty: "h = open(path, 'w')\n    h.close()" },
    { name: "with open(path, 'w') as h: h.close()", empty: "with open(path, 'w') as h:\n        h.close()" },
    { name: "open(path, 'w+').close()", empty: "open(path, 'w+').close()" },
  ];
  for (const { name, empty } of shapes) {
    it(`${name}, then appended to line by line: reported`, () => {
      const code = `def save_lines(path, lines):\n    ${empty}\n    for line in lines:\n        with open(path, 'a') as f:\n            f.write(line + '\\n')\n`;
      expect(found(code + LOADER).map((f) => f.line)).toEqual([2]);
    });
  }
  it("open(path, 'w+').close() alone (beets' config_edit): quiet", () => {
    expect(found(`def touch(path):\n    open(path, 'w+').close()\n` + LOADER)).toEqual([]);
  });
});
