// Which interpreter the CLI crash-tests with: the project's own environment when it
// has one, so a target that imports its third-party packages can be loaded.
// Order: --python, $CRASHPROBE_PYTHON, a virtual environment in the repository root
// (.venv/ as uv, Poetry in-project and PDM make it, venv/), Poetry's own environment
// (`poetry env info -p`, only when poetry is on PATH), $VIRTUAL_ENV, then python3.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';

export interface PythonChoice {
  /** What to run: a path or a command name. */
  python: string;
  /** Where it came from, said to the user in one line. */
  source: string;
  /** Something the user should know (e.g. a PDM __pypackages__ folder that is not used). */
  warning?: string;
}

export interface FindPythonOptions {
  flag?: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The repository root whose environment is looked for. */
  root: string;
  searchPath: string[];
}

const ROOT_VENVS = ['.venv', 'venv'];

function venvPython(dir: string): string | undefined {
  const candidate = path.join(dir, 'bin', 'python');
  return existsSync(path.join(dir, 'pyvenv.cfg')) && existsSync(candidate) ? candidate : undefined;
}

function onPath(name: string, dirs: string[]): string | undefined {
  return dirs.map((d) => path.join(d, name)).find((p) => existsSync(p));
}

async function poetryEnv(root: string, searchPath: string[]): Promise<string | undefined> {
  if (!existsSync(path.join(root, 'poetry.lock')) && !existsSync(path.join(root, 'pyproject.toml'))) return undefined;
  const poetry = onPath('poetry', searchPath);
  if (!poetry) return undefined;
  const result = await execa(poetry, ['env', 'info', '-p'], { cwd: root, reject: false, timeout: 15_000 });
  const dir = String(result.stdout ?? '').trim();
  return result.exitCode === 0 && dir ? venvPython(dir) : undefined;
}

export async function findProjectPython(options: FindPythonOptions): Promise<PythonChoice> {
  if (options.flag) return { python: options.flag, source: '--python' };
  if (options.env.CRASHPROBE_PYTHON) return { python: options.env.CRASHPROBE_PYTHON, source: '$CRASHPROBE_PYTHON' };
  for (const name of ROOT_VENVS) {
    const found = venvPython(path.join(options.root, name));
    if (found) return { python: found, source: `the virtual environment ${name}/ in the repository root` };
  }
  const poetry = await poetryEnv(options.root, options.searchPath);
  if (poetry) return { python: poetry, source: "Poetry's environment (poetry env info -p)" };
  if (options.env.VIRTUAL_ENV) {
    const found = venvPython(options.env.VIRTUAL_ENV);
    if (found) return { python: found, source: 'the activated virtual environment ($VIRTUAL_ENV)' };
  }
  const pypackages = path.join(options.root, '__pypackages__');
  const warning =
    existsSync(pypackages) && statSync(pypackages).isDirectory()
      ? "__pypackages__/ (PDM's PEP 582 mode) is not used by crashprobe; run `pdm config python.use_venv true && pdm install` to get a .venv, or pass --python"
      : undefined;
  return {
    python: 'python3',
    source: 'python3 on PATH (no --python, $CRASHPROBE_PYTHON or .venv/ in the repository root)',
    warning,
  };
}

/** The folder whose environment `crashprobe crash PATH...` uses: --root, or the nearest folder above the first path with .git or pyproject.toml. */
export function projectRootOf(first: string | undefined, explicitRoot: string | undefined, cwd: string): string {
  if (explicitRoot) return path.resolve(cwd, explicitRoot);
  let dir = path.resolve(cwd, first ?? '.');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) dir = path.dirname(dir);
  for (;;) {
    if (existsSync(path.join(dir, '.git')) || existsSync(path.join(dir, 'pyproject.toml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(cwd);
    dir = parent;
  }
}

/** The one line the CLI prints about its choice. */
export function describePython(choice: PythonChoice, executable?: string): string {
  return `Python: ${executable ?? choice.python} (${choice.source})`;
}
