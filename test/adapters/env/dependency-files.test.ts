import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexRequirement, readDependencySet } from '../../../src/adapters/env/dependency-files.ts';

function repo(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-deps-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const auto = { mode: 'auto' as const, groups: [] };

describe('indexRequirement', () => {
  it.each([
    ['requests>=2,<3', true],
    ['attrs[tests]==23.1 ; python_version >= "3.8"', true],
    ['-e .', false],
    ['--index-url https://evil.example/simple', false],
    ['./libs/mine', false],
    ['git+https://github.com/a/b.git', false],
    ['https://example.com/pkg-1.0.whl', false],
    ['pkg @ https://example.com/pkg-1.0.whl', false],
    ['pkg@file:///tmp/x', false],
  ])('%s -> index: %s', (line, ok) => {
    expect(indexRequirement(line).ok).toBe(ok);
  });
});

describe('readDependencySet', () => {
  it('reads requirements*.txt, follows -r and -c inside the repository, and notes what is not from the index', () => {
    const root = repo({
      'requirements.txt': 'tinydep==1.0  # pinned\n-r requirements-extra.txt\n-c constraints.txt\ngit+https://github.com/a/b.git\n-e ./local\nlong \\\n  >=2\n-r ../outside.txt\n',
      'requirements-extra.txt': 'other[x]>=1\nhttps://example.com/a.whl\n',
      'constraints.txt': 'sub==2.0\n',
    });
    const set = readDependencySet(root, auto)!;
    expect(set.mode).toBe('requirements');
    // -r is read where it stands, as pip does; a continued line keeps its spaces (pip ignores them).
    expect(set.requirements).toEqual(['tinydep==1.0', 'other[x]>=1', 'long    >=2']);
    expect(set.constraints).toEqual(['sub==2.0']);
    expect(set.sources.map((s) => s.path)).toEqual(['requirements.txt', 'requirements-extra.txt', 'constraints.txt']);
    expect(set.notes).toEqual([
      'requirements-extra.txt:2: `https://example.com/a.whl` is a URL or VCS reference (not from the package index); not installed',
      'requirements.txt:4: `git+https://github.com/a/b.git` is a URL or VCS reference (not from the package index); not installed',
      'requirements.txt:5: `-e ./local` is an editable install (not from the package index); not installed',
      'requirements.txt:8: ../outside.txt is outside the repository; not read',
    ]);
  });

  it('does not follow a requirements file that is a symlink out of the repository', () => {
    const outside = repo({ 'secret.txt': 'leaked==1\n' });
    const root = repo({ 'requirements.txt': '-r other.txt\n' });
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'other.txt'));
    const set = readDependencySet(root, auto)!;
    expect(set.requirements).toEqual([]);
    expect(set.notes[0]).toMatch(/^other\.txt: cannot be read inside the repository/);
  });

  it('reads [project.dependencies] and the groups the config names (optional-dependencies and PEP 735)', () => {
    const root = repo({
      'pyproject.toml': [
        '[project]',
        'name = "app"',
        'dependencies = [',
        '  "tinydep>=1",  # comment',
        '  "mylib @ git+https://github.com/a/mylib",',
        ']',
        '[project.optional-dependencies]',
        'fast = ["speedy==2"]',
        '[dependency-groups]',
        'test = ["pytest>=8", {include-group = "fast"}]',
      ].join('\n'),
      'requirements.txt': 'ignored==1\n',
    });
    const set = readDependencySet(root, { mode: 'auto', groups: ['fast', 'test', 'nope'] })!;
    expect(set.mode).toBe('pyproject');
    expect(set.requirements).toEqual(['tinydep>=1', 'speedy==2', 'pytest>=8']);
    expect(set.notes).toEqual([
      'pyproject.toml [project.dependencies]: `mylib @ git+https://github.com/a/mylib` is a URL or VCS reference (not from the package index); not installed',
      'pyproject.toml [dependency-groups] test: include-group entries are not followed; name those groups too',
      'harness.dependency_groups names nope, which pyproject.toml does not declare',
    ]);
  });

  it('takes a uv.lock\'s registry pins as constraints of [project.dependencies], and notes git and path packages', () => {
    const root = repo({
      'pyproject.toml': '[project]\nname = "app"\ndependencies = ["tinydep"]\n',
      'uv.lock': [
        'version = 1',
        '[[package]]',
        'name = "app"',
        'version = "0.1.0"',
        'source = { editable = "." }',
        '[[package]]',
        'name = "tinydep"',
        'version = "1.0"',
        'source = { registry = "https://pypi.org/simple" }',
        'wheels = [',
        '  { url = "https://files.pythonhosted.org/t.whl", hash = "sha256:00" },',
        ']',
        '[[package]]',
        'name = "mylib"',
        'version = "0.3"',
        'source = { git = "https://github.com/a/mylib?rev=abc" }',
      ].join('\n'),
    });
    const set = readDependencySet(root, auto)!;
    expect(set.mode).toBe('lock');
    expect(set.requirements).toEqual(['tinydep']);
    expect(set.constraints).toEqual(['tinydep==1.0']);
    expect(set.sources.map((s) => s.path)).toEqual(['pyproject.toml', 'uv.lock']);
    expect(set.notes).toEqual(['uv.lock: mylib comes from git https://github.com/a/mylib?rev=abc, not the package index; not installed']);
  });

  it('installs every poetry.lock pin when pyproject.toml lists no PEP 621 dependencies', () => {
    const root = repo({
      'pyproject.toml': '[tool.poetry]\nname = "app"\n[tool.poetry.dependencies]\npython = "^3.9"\ntinydep = "^1.0"\nlocal = { path = "../local" }\n',
      'poetry.lock': [
        '[[package]]',
        'name = "tinydep"',
        'version = "1.0"',
        'description = "x"',
        '',
        '[[package]]',
        'name = "local"',
        'version = "0.1"',
        '[package.source]',
        'type = "directory"',
        'url = "../local"',
      ].join('\n'),
    });
    const set = readDependencySet(root, { mode: 'lock', groups: [] })!;
    // Poetry's names are taken from pyproject.toml; the lock pins them.
    expect(set.requirements).toEqual(['tinydep']);
    expect(set.constraints).toEqual(['tinydep==1.0']);
    expect(set.notes).toContain('pyproject.toml [tool.poetry.dependencies] local: a git, path or URL dependency; not installed');
    expect(set.notes).toContain('poetry.lock: local comes from type directory, url ../local, not the package index; not installed');
  });

  it('is undefined when off or when there is nothing to install; a lock mode without a lock file says so', () => {
    const root = repo({ 'requirements.txt': 'tinydep\n' });
    expect(readDependencySet(root, { mode: 'off', groups: [] })).toBeUndefined();
    expect(readDependencySet(repo({ 'setup.py': '' }), auto)).toBeUndefined();
    expect(readDependencySet(root, { mode: 'lock', groups: [] })!.notes).toEqual([
      'harness.dependencies is `lock` but the repository has no uv.lock or poetry.lock',
    ]);
    const withPyproject = repo({ 'pyproject.toml': '[project]\ndependencies = ["a"]\n' });
    expect(readDependencySet(withPyproject, { mode: 'lock', groups: [] })!.notes).toEqual([
      'harness.dependencies is `lock` but the repository has no uv.lock or poetry.lock',
    ]);
  });

  it('names a pyproject.toml line it cannot read', () => {
    const root = repo({ 'pyproject.toml': '[project]\ndependencies = ["a"]\nbroken = \"unterminated\n' });
    const set = readDependencySet(root, { mode: 'pyproject', groups: [] })!;
    expect(set.requirements).toEqual(['a']);
    expect(set.notes).toEqual(['pyproject.toml line 3: newline in a string (not understood; dependencies declared there may be missing)']);
  });
});
