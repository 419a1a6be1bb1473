// Test helper: the Python files under a folder, parsed, paths relative to it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseModule } from '../../../src/core/python/parse.ts';
import type { PyModule } from '../../../src/core/python/model.ts';

export function pythonFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name.startsWith('.') || entry.name === '__pycache__' ? [] : pythonFilesUnder(full);
      return entry.name.endsWith('.py') ? [full] : [];
    });
}

export function parseFolder(root: string): PyModule[] {
  return pythonFilesUnder(root).map((file) => parseModule(relative(root, file).split(sep).join('/'), readFileSync(file)));
}
