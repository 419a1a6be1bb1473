// Finds scenario files under the paths given to `crashprobe crash`, and the repository
// root each one is judged in (the contract: nearest ancestor with .git or pyproject.toml).
import { existsSync, lstatSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

const SKIPPED_DIRS = new Set(['.git', 'node_modules', '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache']);
const SCENARIO_MARK = /^\s*from\s+crashprobe\s+import\s+[^\n]*\bscenario\b|^\s*import\s+crashprobe\b/m;

export interface ScenarioFile {
  file: string;
  root: string;
}

export function findRoot(file: string, explicitRoot?: string): string {
  if (explicitRoot) {
    const root = path.resolve(explicitRoot);
    if (!existsSync(root) || !statSync(root).isDirectory()) {
      throw new Error(`--root ${explicitRoot}: not a folder`);
    }
    return root;
  }
  let dir = path.dirname(path.resolve(file));
  for (;;) {
    if (existsSync(path.join(dir, '.git')) || existsSync(path.join(dir, 'pyproject.toml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(
        `${file}: no repository root above it (no folder with .git or pyproject.toml); pass --root DIR`,
      );
    }
    dir = parent;
  }
}

export function isScenarioFile(file: string): boolean {
  if (!file.endsWith('.py')) return false;
  try {
    return SCENARIO_MARK.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) walk(full, out);
    } else if ((entry.isFile() || entry.isSymbolicLink()) && isScenarioFile(full)) {
      out.push(full);
    }
  }
}

/** Each PATH is a scenario file or a folder searched for scenario files. */
export function discoverScenarioFiles(paths: string[], explicitRoot?: string): ScenarioFile[] {
  const found: ScenarioFile[] = [];
  for (const given of paths) {
    const full = path.resolve(given);
    if (!existsSync(full)) throw new Error(`${given}: no such file or folder`);
    const files: string[] = [];
    if (statSync(full).isDirectory()) {
      walk(full, files);
      if (files.length === 0) {
        throw new Error(`${given}: no scenario files in this folder (a scenario file imports "from crashprobe import scenario")`);
      }
    } else {
      if (!isScenarioFile(full)) {
        throw new Error(`${given}: not a scenario file (it does not import "from crashprobe import scenario")`);
      }
      files.push(full);
    }
    for (const file of files) found.push({ file, root: findRoot(file, explicitRoot) });
  }
  return withoutLinkTargets(found);
}

/**
 * A scenario file that other scenario files found in the same run link to is a shared
 * template (each link is judged in its own repository); running it on its own would
 * judge it against the wrong root.
 */
function withoutLinkTargets(found: ScenarioFile[]): ScenarioFile[] {
  const linked = new Set(
    found.filter(({ file }) => lstatSync(file).isSymbolicLink()).map(({ file }) => realpathSync(file)),
  );
  return found.filter(({ file }) => lstatSync(file).isSymbolicLink() || !linked.has(realpathSync(file)));
}
