// The installed Python standard library, for the benches that measure on it.
// (The leading underscore keeps bench/run.ts from running this as a bench.)
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

export function stdlibRoot(): string {
  return execFileSync('python3', ['-c', "import sysconfig;print(sysconfig.get_paths()['stdlib'])"], { encoding: 'utf8' }).trim();
}

/** The standard library's own files: installed third-party packages are not part of it. */
export function stdlibPythonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return ['site-packages', 'dist-packages', '__pycache__'].includes(entry.name) ? [] : stdlibPythonFiles(full);
    return entry.isFile() && entry.name.endsWith('.py') ? [full] : [];
  });
}
