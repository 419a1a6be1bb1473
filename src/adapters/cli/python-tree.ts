// Reads the Python files of a folder (or one file), paths relative to the
// folder: as bytes, or parsed into PyModules.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { PyModule } from '../../core/python/model.ts';
import { parseModule } from '../../core/python/parse.ts';

/** Folders that hold other people's code or tool output, never the code under review. */
const SKIPPED_DIRS = new Set(['node_modules', '__pycache__', 'site-packages', 'venv', 'env', 'build', 'dist']);

export interface PythonTree {
  /** The folder paths are relative to. */
  root: string;
  modules: PyModule[];
}

export interface PythonSources {
  /** The folder paths are relative to. */
  root: string;
  sources: { path: string; bytes: Buffer }[];
}

/** The Python files of a folder (or one file) as bytes, unparsed: the scan of a large tree parses them one at a time. */
export async function readPythonSources(target: string): Promise<PythonSources> {
  const info = await stat(target).catch(() => undefined);
  if (!info) throw new Error(`${target} does not exist: give a folder or a .py file to scan`);
  if (info.isFile()) {
    if (!/\.pyi?$/.test(target)) throw new Error(`${target} is not a Python file (.py): give a folder or a .py file`);
    return { root: path.dirname(target), sources: [{ path: path.basename(target), bytes: await readFile(target) }] };
  }
  const sources: PythonSources['sources'] = [];
  for (const file of await pythonFiles(target)) sources.push({ path: path.relative(target, file).split(path.sep).join('/'), bytes: await readFile(file) });
  return { root: target, sources };
}

/** The sources parsed, one module each. */
export function parsedTree({ root, sources }: PythonSources): PythonTree {
  return { root, modules: sources.map((source) => parseModule(source.path, source.bytes)) };
}

async function pythonFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('.') && !SKIPPED_DIRS.has(entry.name)) files.push(...(await pythonFiles(full)));
    } else if (entry.isFile() && entry.name.endsWith('.py')) {
      files.push(full);
    }
  }
  return files;
}
