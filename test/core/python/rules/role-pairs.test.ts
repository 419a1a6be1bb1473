// in-place-file-rewrite's readers linked to a written file by a parameter's name, where the names of
// writer and reader give them different jobs (role-pairs.ts, shared-caller.ts, path-keys.ts): each
// case a reviewer found wrongly quieted, beside a near miss that stays quiet.
import { describe, expect, it } from 'vitest';
import { inPlaceFileRewrite } from '../../../../src/core/python/rules/in-place-file-rewrite.ts';
import { lint } from './rule-tester.ts';

function findings(code: string): { messageId: string; line: number }[] {
  return lint(code, [inPlaceFileRewrite]).map((finding) => ({ messageId: finding.messageId, line: finding.range.startLine }));
}

describe('a reading function that calls the writer itself with the path it read (shared-caller.ts)', () => {
  it('read-modify-write: store_option(path) reads path, then calls write_settings(path, ...)', () => {
    expect(
      findings(`
        def write_settings(path, text):
            with open(path, 'w') as f:
                f.write(text)

        def store_option(path, line):
            with open(path) as f:
                text = f.read()
            write_settings(path, text + line)
      `),
    ).toEqual([{ messageId: 'truncatesInPlace', line: 2 }]);
  });

  it('near miss: store_option reads path but hands write_settings another file, out', () => {
    expect(
      findings(`
        def write_settings(path, text):
            with open(path, 'w') as f:
                f.write(text)

        def store_option(path, out, line):
            with open(path) as f:
                text = f.read()
            write_settings(out, text + line)
      `),
    ).toEqual([]);
  });
});

describe("a constructor of the writer's own class given the path read (path-keys.ts)", () => {
  it('save() writes self.path set by __init__(path); the classmethod load(cls, path) reads path and builds cls(path, ...)', () => {
    expect(
      findings(`
        class Config:
            def __init__(self, path, data):
                self.path = path
                self.data = data

            @classmethod
            def load(cls, path):
                with open(path) as f:
                    return cls(path, f.read())

            def save(self):
                with open(self.path, 'w') as f:
                    f.write(self.data)
      `),
    ).toEqual([{ messageId: 'truncatesInPlace', line: 12 }]);
  });

  it('the same through the class by name, by keyword, from a module-level function', () => {
    expect(
      findings(`
        class Config:
            def __init__(self, data, path=None):
                self.path = path
                self.data = data

            def save(self):
                with open(self.path, 'w') as f:
                    f.write(self.data)

        def open_config(path):
            with open(path) as f:
                return Config(f.read(), path=path)
      `),
    ).toEqual([{ messageId: 'truncatesInPlace', line: 7 }]);
  });

  it("near miss: load(cls, source) reads source but passes it as __init__'s source, not as the target save() writes", () => {
    expect(
      findings(`
        class Config:
            def __init__(self, source, target):
                self.source = source
                self.target = target

            @classmethod
            def load(cls, source):
                with open(source) as f:
                    return cls(source, f.read())

            def save(self, data):
                with open(self.target, 'w') as f:
                    f.write(data)
      `),
    ).toEqual([]);
  });

  it('near miss: the read path builds another class, whose __init__ also sets self.path', () => {
    expect(
      findings(`
        class Report:
            def __init__(self, path):
                self.path = path

            def save(self, text):
                with open(self.path, 'w') as f:
                    f.write(text)

        class Source:
            def __init__(self, path):
                self.path = path

            @classmethod
            def load(cls, path):
                with open(path) as f:
                    f.read()
                return cls(path)
      `),
    ).toEqual([]);
  });
});

describe('stems named alike (role-pairs.ts)', () => {
  it("write_json(path) and read_json_file(path): one stem's words begin the other's", () => {
    expect(
      findings(`
        def read_json_file(path):
            with open(path) as f:
                return f.read()

        def write_json(path, text):
            with open(path, 'w') as f:
                f.write(text)
      `),
    ).toEqual([{ messageId: 'truncatesInPlace', line: 6 }]);
  });

  it('near miss: write_json_report(path) and read_json_config(path) share a first word only', () => {
    expect(
      findings(`
        def read_json_config(path):
            with open(path) as f:
                return f.read()

        def write_json_report(path, text):
            with open(path, 'w') as f:
                f.write(text)
      `),
    ).toEqual([]);
  });
});

describe('a reader that parses what it reads is a loader, whatever its name (role-pairs.ts)', () => {
  it('save_model_state(state, filename) and load_checkpoint(filename), which unpickles it', () => {
    expect(
      findings(`
        import pickle

        def load_checkpoint(filename):
            with open(filename, 'rb') as f:
                return pickle.load(f)

        def save_model_state(state, filename):
            with open(filename, 'wb') as f:
                pickle.dump(state, f)
      `),
    ).toEqual([{ messageId: 'truncatesInPlace', line: 8 }]);
  });

  it('a .read() fed to a parser: get_settings(path) runs json.loads on the text', () => {
    expect(
      findings(`
        def get_settings(path):
            with open(path) as f:
                text = f.read()
            return json.loads(text)

        def write_report(path, text):
            with open(path, 'w') as f:
                f.write(text)
      `),
    ).toEqual([{ messageId: 'truncatesInPlace', line: 7 }]);
  });

  it('near miss: load_checkpoint(filename) only hashes the bytes (as buku 4.7 get_filehash does)', () => {
    expect(
      findings(`
        def load_checkpoint(filename):
            with open(filename, 'rb') as f:
                return hashlib.sha256(f.read()).hexdigest()

        def save_model_state(state, filename):
            with open(filename, 'wb') as f:
                pickle.dump(state, f)
      `),
    ).toEqual([]);
  });

  it("near miss: a parser in a function nested in the reader is that function's, not the reader's", () => {
    expect(
      findings(`
        def get_filehash(filepath):
            def decode(text):
                return json.loads(text)
            with open(filepath, 'rb') as fp:
                return hashlib.sha256(fp.read()).hexdigest()

        def write_string_to_file(content, filepath):
            with open(filepath, 'w') as f:
                f.write(content)
      `),
    ).toEqual([]);
  });
});
