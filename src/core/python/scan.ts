// A scan of a repository: every function, or the functions a diff touches,
// analysed with the whole repository's call graph behind it.
import type { FunctionReport, PyModule } from './model.ts';
import { analyzeModule } from './analyze.ts';
import { buildRepoIndex, type RepoIndex } from './callgraph.ts';
import { parseUnifiedDiff, touchedFunctions, type FileChange, type FileStatus } from './diff.ts';
import { listFunctions } from './functions.ts';

export interface ScannedFile {
  path: string;
  /** Set when the scan followed a diff. */
  status?: FileStatus;
  oldPath?: string;
  notes: string[];
  syntaxErrors: number;
  reports: FunctionReport[];
}

export interface ScanResult {
  files: ScannedFile[];
  index: RepoIndex;
}

/** `diff` (unified diff text) limits the scan to the Python functions it touches; paths in it are relative to the same root as the modules'. */
export function scanRepository(modules: readonly PyModule[], diff?: string): ScanResult {
  const index = buildRepoIndex(modules);
  if (diff === undefined) {
    return { index, files: modules.map((module) => scannedFile(module, analyzeModule(module, index))) };
  }
  const byPath = new Map(modules.map((module) => [module.path, module]));
  const files: ScannedFile[] = [];
  for (const change of parseUnifiedDiff(diff).filter(isPython)) {
    const module = byPath.get(change.path);
    if (change.status === 'deleted' || !module) {
      const notes = change.status === 'deleted' ? ['deleted by the change'] : [`${change.path} is in the diff but not in the scanned folder`];
      files.push(withChange({ path: change.path, notes, syntaxErrors: 0, reports: [] }, change));
      continue;
    }
    const only = touchedFunctions(change, listFunctions(module));
    files.push(withChange(scannedFile(module, analyzeModule(module, index, { only })), change));
  }
  return { index, files };
}

function isPython(change: FileChange): boolean {
  return /\.pyi?$/.test(change.path);
}

function scannedFile(module: PyModule, reports: FunctionReport[]): ScannedFile {
  return { path: module.path, notes: module.notes, syntaxErrors: module.errors.length, reports };
}

function withChange(file: ScannedFile, change: FileChange): ScannedFile {
  file.status = change.status;
  if (change.oldPath !== undefined && change.oldPath !== change.path) file.oldPath = change.oldPath;
  return file;
}
