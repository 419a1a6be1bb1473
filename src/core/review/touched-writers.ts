// Stage 1: the functions the change touches, with what each one does (its effects,
// transaction style and static findings), and the call graph they are read in.
import type { CrashprobeConfig } from '../config/schema.ts';
import type { ChangedFile, PullRequestSource } from '../ports.ts';
import { analyzeModule } from '../python/analyze.ts';
import { buildRepoIndex, type RepoIndex } from '../python/callgraph.ts';
import { parseUnifiedDiff, touchedFunctions, type FileChange } from '../python/diff.ts';
import { listFunctions } from '../python/functions.ts';
import type { FunctionReport, PyModule } from '../python/model.ts';
import { repoModules, type RepoModules } from './repo-modules.ts';
import { pathFilter } from './scenario-files.ts';

const MAX_INDEXED_FILES = 3000;

export interface TouchedFunction {
  module: PyModule;
  change: FileChange;
  report: FunctionReport;
}

export interface TouchedWriters {
  /** The changed Python files in the config's paths. */
  changed: ChangedFile[];
  changes: FileChange[];
  /** Every Python file at the head. */
  allPaths: string[];
  modules: RepoModules;
  index: RepoIndex;
  /** Every touched function, writing or not (a scenario of a non-writer still runs). */
  touched: TouchedFunction[];
  /** The touched functions that write to a database, a file or an outside service. */
  writers: TouchedFunction[];
  notes: string[];
}

/** GitHub's per-file patch as a unified diff with headers, which parse-diff expects. */
export function unifiedDiff(files: readonly ChangedFile[]): string {
  return files
    .filter((f) => f.patch !== undefined)
    .map((f) => {
      const from = f.status === 'added' ? '/dev/null' : `a/${f.previousPath ?? f.path}`;
      const to = f.status === 'removed' ? '/dev/null' : `b/${f.path}`;
      return `--- ${from}\n+++ ${to}\n${f.patch}\n`;
    })
    .join('');
}

export async function touchedWriters(source: PullRequestSource, config: CrashprobeConfig): Promise<TouchedWriters> {
  const inScope = pathFilter(config.paths.include, config.paths.exclude);
  const changed = (await source.changedFiles()).filter((f) => f.path.endsWith('.py') && inScope(f.path));
  const changes = parseUnifiedDiff(unifiedDiff(changed));
  const missingPatch = changed
    .filter((f) => f.patch === undefined && f.status !== 'removed')
    .map((f) => `${f.path}: GitHub sent no patch (too large?); its functions were not reviewed.`);

  // Parse the changed files, and the rest of the repository for the call graph (bounded).
  const allPaths = (await source.listFiles()).filter((p) => p.endsWith('.py'));
  const modules = repoModules(source);
  for (const change of changes) if (change.status !== 'deleted') await modules.read(change.path);
  const tooMany = allPaths.length > MAX_INDEXED_FILES;
  let everyFileRead = !tooMany;
  if (!tooMany) for (const p of allPaths) if (inScope(p) && !(await modules.read(p))) everyFileRead = false;
  const indexNote = tooMany ? [`The repository has ${allPaths.length} Python files; helpers in unchanged files were not followed.`] : [];
  const index = buildRepoIndex(modules.parsed(), { complete: everyFileRead, assumeAutocommit: config.assume_autocommit, windowsOnly: config.windows_only });

  const touched: TouchedFunction[] = [];
  const moduleNotes: string[] = [];
  for (const change of changes) {
    if (change.status === 'deleted') continue;
    const module = modules.get(change.path);
    if (!module) continue;
    moduleNotes.push(...module.notes.map((note) => `${module.path}: ${note}`));
    if (module.errors.length) moduleNotes.push(`${module.path}: ${module.errors.length} syntax error region(s); analysed around them.`);
    const fns = touchedFunctions(change, listFunctions(module));
    for (const report of analyzeModule(module, index, { only: fns })) touched.push({ module, change, report });
  }
  return {
    changed,
    changes,
    allPaths,
    modules,
    index,
    touched,
    writers: touched.filter((t) => t.report.writes),
    notes: [...missingPatch, ...indexNote, ...moduleNotes],
  };
}

/** Per changed file, the new-side lines inside a hunk: where a finding can be shown inline. */
export function hunkLinesOf(changes: readonly FileChange[]): Map<string, Set<number>> {
  return new Map(changes.map((c) => [c.path, c.hunkLines]));
}
