// A scan of a repository: every function, or the functions a diff touches,
// analysed with the whole repository's call graph behind it.
import type { Effect, FunctionReport, PyFunction, PyModule } from './model.ts';
import picomatch from 'picomatch';
import { DEFAULT_EXCLUDE } from '../config/schema.ts';
import { analyzeModule } from './analyze.ts';
import { buildRepoIndex, type AssumeAutocommit, type RepoIndex } from './callgraph.ts';
import { parseUnifiedDiff, touchedFunctions, type FileChange, type FileStatus } from './diff.ts';
import { listFunctions } from './functions.ts';

export interface ScannedFile {
  path: string;
  /** Set when the scan followed a diff. */
  status?: FileStatus;
  oldPath?: string;
  notes: string[];
  syntaxErrors: number;
  reports: ScannedReport[];
}

/**
 * A function's report as the scan hands it out: without syntax nodes, which would keep every file's
 * tree (native memory) alive for as long as the result lives. A FunctionReport is one.
 */
export type ScannedReport = Omit<FunctionReport, 'fn' | 'effects'> & { fn: Omit<PyFunction, 'node'>; effects: Omit<Effect, 'node' | 'viaNode'>[] };

export interface ScanResult {
  files: ScannedFile[];
  index: RepoIndex;
}

export interface ScanOptions {
  /**
   * Globs (relative paths) whose files are read for the call graph but get no findings: by default the
   * config's (tests, benchmarks, examples, docs). Not applied when the scan is given one file: a file named
   * on purpose is scanned.
   */
  exclude?: readonly string[];
  /** When the default-mode rules take a connection for possibly autocommit (RepoIndex.assumeAutocommit). */
  assumeAutocommit?: AssumeAutocommit;
  /** `report`: keep findings on code reached only on native Windows (RepoIndex.windowsOnly). */
  windowsOnly?: 'report' | 'skip';
}

/** `diff` (unified diff text) limits the scan to the Python functions it touches; paths in it are relative to the same root as the modules'. */
export function scanRepository(modules: readonly PyModule[], diff?: string, options: ScanOptions = {}): ScanResult {
  const index = buildRepoIndex(modules, { complete: true, ...(options.assumeAutocommit ? { assumeAutocommit: options.assumeAutocommit } : {}), ...(options.windowsOnly ? { windowsOnly: options.windowsOnly } : {}) });
  const excluded = modules.length > 1 ? excludedBy(options.exclude ?? DEFAULT_EXCLUDE) : () => false;
  if (diff === undefined) {
    return { index, files: modules.filter((m) => !excluded(m.path)).map((module) => scannedFile(module, analyzeModule(module, index))) };
  }
  const byPath = new Map(modules.map((module) => [module.path, module]));
  const files: ScannedFile[] = [];
  for (const change of parseUnifiedDiff(diff).filter((c) => isPython(c) && !excluded(c.path))) {
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

/** `**\/x` globs also match at the top level (`tests/...`), as the review's path filter does. */
export function excludedBy(globs: readonly string[]): (path: string) => boolean {
  const matchers = globs.flatMap((g) => (g.startsWith('**/') ? [g, g.slice(3)] : [g])).map((g) => picomatch(g, { dot: true }));
  return (path) => matchers.some((match) => match(path));
}

export function isPython(change: FileChange): boolean {
  return /\.pyi?$/.test(change.path);
}

/** A copy of the report that holds no syntax node, so the module's tree can be freed. */
export function treeFreeReport(report: FunctionReport): ScannedReport {
  const { node: _fnNode, ...fn } = report.fn;
  return { ...report, fn, effects: report.effects.map(({ node: _node, viaNode: _viaNode, ...effect }) => effect) };
}

export function scannedFile(module: PyModule, reports: ScannedReport[]): ScannedFile {
  return { path: module.path, notes: module.notes, syntaxErrors: module.errors.length, reports };
}

export function withChange(file: ScannedFile, change: FileChange): ScannedFile {
  file.status = change.status;
  if (change.oldPath !== undefined && change.oldPath !== change.path) file.oldPath = change.oldPath;
  return file;
}
