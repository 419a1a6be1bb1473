// What a repository declares it needs, read from its dependency files into pip
// requirement and constraint lines: requirements*.txt, pyproject.toml's
// [project.dependencies] (and the optional or PEP 735 groups the config names),
// uv.lock or poetry.lock pins. Only packages from the package index are kept: URLs,
// VCS and local paths, and pip options that change the index are left out, each
// with a note that says so (the install sandbox reaches nothing but the index).
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseToml, type TomlTable, type TomlValue } from './toml.ts';

export type DependencyMode = 'off' | 'auto' | 'requirements' | 'pyproject' | 'lock';

export interface DependencySet {
  mode: 'requirements' | 'pyproject' | 'lock';
  /** The files read, repository-relative, with their text: the cache key hashes them. */
  sources: { path: string; text: string }[];
  /** Lines of the requirements file given to pip. */
  requirements: string[];
  /** Lines of the constraints file (a lock file's pins). */
  constraints: string[];
  /** What was not installed, and why, for the review. */
  notes: string[];
}

export interface DependencyOptions {
  mode: DependencyMode;
  /** Optional-dependency groups ([project.optional-dependencies]) or PEP 735 [dependency-groups] to install too. */
  groups: string[];
}

const MAX_FILE_BYTES = 1024 * 1024;
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?/;

/** A file of the repository, or undefined when absent, too large, or a symlink leading out of it. */
function readInside(root: string, rel: string): string | undefined {
  const full = path.join(root, rel);
  if (!existsSync(full)) return undefined;
  try {
    const real = realpathSync(full);
    const realRoot = realpathSync(root);
    if (real !== realRoot && !real.startsWith(realRoot + path.sep)) return undefined;
    const stat = statSync(real);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined;
    return readFileSync(real, 'utf8');
  } catch {
    return undefined;
  }
}

/** Is this a requirement pip can take from the index (a name with extras, versions and markers)? Else why not. */
export function indexRequirement(line: string): { ok: true; line: string } | { ok: false; why: string } {
  const text = line.trim();
  if (/^(-e|--editable)\b/.test(text)) return { ok: false, why: 'an editable install (not from the package index)' };
  if (/^-/.test(text)) return { ok: false, why: 'a pip option (the index is set by the App)' };
  if (/^(\.|\/|~)/.test(text) || /^[A-Za-z]:\\/.test(text)) return { ok: false, why: 'a local path (not from the package index)' };
  if (/:\/\//.test(text) || /^(git|hg|svn|bzr)\+/.test(text)) return { ok: false, why: 'a URL or VCS reference (not from the package index)' };
  const spec = text.replace(/\s+--hash[= ]\S+/g, '');
  if (!NAME.test(spec)) return { ok: false, why: 'not a requirement pip understands' };
  if (/\s@\s/.test(spec) || /^[^;]*@/.test(spec)) return { ok: false, why: 'a direct reference (not from the package index)' };
  return { ok: true, line: text };
}

function requirementLines(text: string): { line: string; number: number }[] {
  const out: { line: string; number: number }[] = [];
  let pending = '';
  let start = 0;
  text.split(/\r?\n/).forEach((raw, i) => {
    if (!pending) start = i + 1;
    const withoutComment = raw.replace(/(^|\s)#.*$/, '');
    if (withoutComment.endsWith('\\')) {
      pending += withoutComment.slice(0, -1) + ' ';
      return;
    }
    const line = (pending + withoutComment).trim();
    pending = '';
    if (line) out.push({ line, number: start });
  });
  return out;
}

function readRequirementsFile(root: string, rel: string, set: DependencySet, seen: Set<string>, kind: 'requirements' | 'constraints'): void {
  if (seen.has(rel)) return;
  seen.add(rel);
  const text = readInside(root, rel);
  if (text === undefined) {
    set.notes.push(`${rel}: cannot be read inside the repository (missing, over 1 MB, or a symlink out of it); not installed`);
    return;
  }
  set.sources.push({ path: rel, text });
  for (const { line, number } of requirementLines(text)) {
    const include = /^(-r|--requirement|-c|--constraint)[=\s]+(\S+)$/.exec(line);
    if (include) {
      const target = path.normalize(path.join(path.dirname(rel), include[2]!));
      if (target.startsWith('..') || path.isAbsolute(target)) {
        set.notes.push(`${rel}:${number}: ${include[2]} is outside the repository; not read`);
        continue;
      }
      readRequirementsFile(root, target, set, seen, include[1]!.startsWith('-c') || include[1] === '--constraint' ? 'constraints' : kind);
      continue;
    }
    const checked = indexRequirement(line);
    if (checked.ok) (kind === 'constraints' ? set.constraints : set.requirements).push(checked.line);
    else set.notes.push(`${rel}:${number}: \`${line.slice(0, 80)}\` is ${checked.why}; not installed`);
  }
}

function requirementsSet(root: string): DependencySet | undefined {
  const files = readdirSync(root)
    .filter((name) => /^requirements.*\.txt$/.test(name))
    .sort((a, b) => (a === 'requirements.txt' ? -1 : b === 'requirements.txt' ? 1 : a.localeCompare(b)));
  if (files.length === 0) return undefined;
  const set: DependencySet = { mode: 'requirements', sources: [], requirements: [], constraints: [], notes: [] };
  const seen = new Set<string>();
  for (const file of files) readRequirementsFile(root, file, set, seen, 'requirements');
  return set;
}

const strings = (value: TomlValue | undefined): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const table = (value: TomlValue | undefined): TomlTable | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;

function addPep508(set: DependencySet, where: string, specs: string[]): void {
  for (const spec of specs) {
    const checked = indexRequirement(spec);
    if (checked.ok) set.requirements.push(checked.line);
    else set.notes.push(`${where}: \`${spec.slice(0, 80)}\` is ${checked.why}; not installed`);
  }
}

/** [project.dependencies] and the named groups; Poetry's own table gives names only (versions come from its lock). */
function pyprojectRequirements(root: string, groups: string[], set: DependencySet): boolean {
  const text = readInside(root, 'pyproject.toml');
  if (text === undefined) return false;
  set.sources.push({ path: 'pyproject.toml', text });
  const { data, problems } = parseToml(text);
  for (const problem of problems) set.notes.push(`pyproject.toml ${problem} (not understood; dependencies declared there may be missing)`);
  const project = table(data.project);
  const before = set.requirements.length;
  addPep508(set, 'pyproject.toml [project.dependencies]', strings(project?.dependencies));
  const optional = table(project?.['optional-dependencies']);
  const pep735 = table(data['dependency-groups']);
  for (const group of groups) {
    if (optional?.[group]) addPep508(set, `pyproject.toml [project.optional-dependencies] ${group}`, strings(optional[group]));
    else if (pep735?.[group]) {
      const items = strings(pep735[group]);
      addPep508(set, `pyproject.toml [dependency-groups] ${group}`, items);
      const includes = (Array.isArray(pep735[group]) ? (pep735[group] as TomlValue[]) : []).filter((v) => typeof v === 'object');
      if (includes.length) set.notes.push(`pyproject.toml [dependency-groups] ${group}: include-group entries are not followed; name those groups too`);
    } else set.notes.push(`harness.dependency_groups names ${group}, which pyproject.toml does not declare`);
  }
  const poetry = table(table(table(data.tool)?.poetry)?.dependencies);
  if (set.requirements.length === before && poetry) {
    const names = Object.keys(poetry).filter((name) => name.toLowerCase() !== 'python');
    for (const name of names) {
      if (table(poetry[name]) && (table(poetry[name])!.git || table(poetry[name])!.path || table(poetry[name])!.url)) {
        set.notes.push(`pyproject.toml [tool.poetry.dependencies] ${name}: a git, path or URL dependency; not installed`);
      } else if (NAME.test(name)) set.requirements.push(name);
    }
    if (names.length) set.notes.push('pyproject.toml: Poetry dependencies are read by name only; set `harness.dependencies: lock` with poetry.lock for their versions');
  }
  return true;
}

interface LockPin {
  name: string;
  version: string;
}

/** uv.lock or poetry.lock: the pins of packages from a registry; others noted. */
function lockPins(root: string, set: DependencySet): LockPin[] | undefined {
  for (const file of ['uv.lock', 'poetry.lock']) {
    const text = readInside(root, file);
    if (text === undefined) continue;
    set.sources.push({ path: file, text });
    const { data, problems } = parseToml(text);
    for (const problem of problems) set.notes.push(`${file} ${problem} (not understood)`);
    const pins: LockPin[] = [];
    for (const item of Array.isArray(data.package) ? data.package : []) {
      const pkg = table(item);
      if (!pkg || typeof pkg.name !== 'string') continue;
      const source = table(pkg.source);
      const fromRegistry = file === 'uv.lock' ? Boolean(source?.registry) : !source || source.type === 'legacy';
      if (fromRegistry && typeof pkg.version === 'string') pins.push({ name: pkg.name, version: pkg.version });
      else if (file === 'uv.lock' && (source?.editable !== undefined || source?.virtual !== undefined) && (source?.editable === '.' || source?.virtual === '.')) continue;
      else set.notes.push(`${file}: ${pkg.name} comes from ${source ? Object.entries(source).map(([k, v]) => `${k} ${String(v)}`).join(', ') : 'somewhere else'}, not the package index; not installed`);
    }
    return pins;
  }
  return undefined;
}

/** The dependency set of the repository at `root` in the configured mode; undefined when there is nothing to install. */
export function readDependencySet(root: string, options: DependencyOptions): DependencySet | undefined {
  if (options.mode === 'off') return undefined;
  const mode =
    options.mode !== 'auto'
      ? options.mode
      : existsSync(path.join(root, 'uv.lock')) || existsSync(path.join(root, 'poetry.lock'))
        ? 'lock'
        : hasProjectDependencies(root)
          ? 'pyproject'
          : 'requirements';
  if (mode === 'requirements') return requirementsSet(root);
  const set: DependencySet = { mode, sources: [], requirements: [], constraints: [], notes: [] };
  const hasPyproject = pyprojectRequirements(root, options.groups, set);
  if (mode === 'pyproject') return hasPyproject && (set.requirements.length || set.notes.length) ? set : undefined;
  const pins = lockPins(root, set);
  if (!pins) {
    set.notes.push('harness.dependencies is `lock` but the repository has no uv.lock or poetry.lock');
    return set.requirements.length || set.notes.length ? set : undefined;
  }
  if (set.requirements.length === 0) {
    // No top-level list to resolve from: every pinned package, as pinned, without resolving.
    set.requirements.push(...pins.map((p) => `${p.name}==${p.version}`));
  } else set.constraints.push(...pins.map((p) => `${p.name}==${p.version}`));
  return set;
}

function hasProjectDependencies(root: string): boolean {
  const text = readInside(root, 'pyproject.toml');
  if (text === undefined) return false;
  const project = table(parseToml(text).data.project);
  return strings(project?.dependencies).length > 0;
}
