// One file of a repository scan, analysed while its tree is alive and then
// let go: the scan keeps only this file's call-graph summary and tree-free
// reports, so memory does not grow with the repository's trees.
//
// The analysis follows helpers through the call graph, which needs every
// other file's summary, not yet known while this file is parsed. So calls
// are resolved against this file's own summary plus the repository's module
// names; a call whose resolution had to look into another file is recorded
// (as a call-graph key), and the driver re-analyses the file only when such
// a call turns out to reach a function exactly (scan-sources.ts).
import type { ModuleSummary, RepoIndex } from './callgraph.ts';
import { repoHelperResolver, summarizeModule } from './callgraph.ts';
import type { FileChange } from './diff.ts';
import { touchedFunctions } from './diff.ts';
import { mayHaveEffect } from './call-effects.ts';
import { directEffects, memoizeResolver, type HelperResolver } from './effects.ts';
import { directPatterns } from './tx-style.ts';
import { analyzeFunction } from './analyze.ts';
import { listFunctions } from './functions.ts';
import type { PyModule, SourceRange } from './model.ts';
import { calleeTextOf } from './module-facts.ts';
import { parseModule } from './parse.ts';
import { scannedFile, treeFreeReport, type ScannedFile } from './scan.ts';
import { rangeOf } from './source-range.ts';

export interface SourceFile {
  /** Relative to the repository root, forward slashes. */
  path: string;
  bytes: Uint8Array;
}

/** `true`: every function; a FileChange: the functions it touches; `false`: summary only (the file is excluded or not in the diff). */
export type AnalyseWhat = boolean | FileChange;

export interface FileRequest extends SourceFile {
  analyse: AnalyseWhat;
}

export interface FileScan {
  summary: ModuleSummary;
  /** Undefined when the request asked for no analysis. */
  file?: ScannedFile;
  /** Calls whose resolution looked into another file: they may reach a helper there. */
  crossFileCalls: CrossFileCall[];
  /** Qualnames of this file's functions with effects or transaction patterns of their own: the helpers that change a caller's analysis. */
  effectful: string[];
}

export interface CrossFileCall {
  key: string;
  /** The qualname of the function the call is in: only its report can change. */
  caller: string;
  /** The call itself may be an effect (which becoming a helper call would hide). */
  mayHaveEffect: boolean;
}

/** The repository's module names, known from the paths alone before any file is parsed. */
export interface RepositoryNames {
  moduleByDotted: Map<string, string[]>;
  dottedByPath: Map<string, string>;
}

/** The same keys, in the same order, that buildRepoIndex computes from the summaries. */
export function repositoryNames(paths: readonly string[], dottedOf: (path: string) => string): RepositoryNames {
  const moduleByDotted = new Map<string, string[]>();
  const dottedByPath = new Map<string, string>();
  for (const path of paths) {
    const dotted = dottedOf(path);
    dottedByPath.set(path, dotted);
    const parts = dotted.split('.');
    for (let start = 0; start < parts.length; start++) {
      const key = parts.slice(start).join('.');
      const list = moduleByDotted.get(key) ?? [];
      list.push(path);
      moduleByDotted.set(key, list);
    }
  }
  return { moduleByDotted, dottedByPath };
}

/** Matches a CallEdge of the full index: caller, callee without blanks, range. */
export function callKey(caller: string, callee: string, range: SourceRange): string {
  return `${caller}\0${callee.replace(/\s+/g, '')}\0${range.startLine}:${range.startColumn}:${range.endLine}:${range.endColumn}`;
}

export function scanFile(request: FileRequest, names: RepositoryNames): FileScan {
  const module = parseModule(request.path, request.bytes);
  const summary = summarizeModule(module);
  const effectful = [...new Set(listFunctions(module).filter((fn) => directEffects(fn, module).length > 0 || directPatterns(fn, module).length > 0).map((fn) => fn.qualname))];
  if (request.analyse === false) return { summary, crossFileCalls: [], effectful };
  const summaries = new OwnSummaryFirst(summary, names.dottedByPath);
  const index: RepoIndex = { summaries, modules: new Map([[module.path, module]]), edges: [], methodsByName: new Map(), moduleByDotted: names.moduleByDotted };
  const resolve = repoHelperResolver(index);
  const crossFileCalls: CrossFileCall[] = [];
  const recording: HelperResolver = (call, caller, within) => {
    summaries.lookedElsewhere = false;
    const target = resolve(call, caller, within);
    if (summaries.lookedElsewhere) {
      const callee = calleeTextOf(call);
      crossFileCalls.push({ key: callKey(caller.qualname, callee, rangeOf(call)), caller: caller.qualname, mayHaveEffect: mayHaveEffect(callee) });
    }
    return target;
  };
  return { summary, file: analysedFile(module, request.analyse, memoizeResolver(recording)), crossFileCalls, effectful };
}

/**
 * analyzeModule's loop with a given resolver; reports stripped of nodes so the tree can go. With
 * `earlier` (a first analysis of the same file) only the functions named in `again` are analysed anew:
 * a function's report depends on the answers for its own calls only.
 */
export function analysedFile(module: PyModule, analyse: true | FileChange, resolveHelper: HelperResolver, earlier?: { file: ScannedFile; again: ReadonlySet<string> }): ScannedFile {
  const functions = analyse === true ? listFunctions(module) : touchedFunctions(analyse, listFunctions(module));
  return scannedFile(
    module,
    functions.map((fn, i) => {
      const kept = earlier && !earlier.again.has(fn.qualname) ? earlier.file.reports[i] : undefined;
      return kept ?? treeFreeReport(analyzeFunction(fn, module, resolveHelper));
    }),
  );
}

/**
 * The index's summaries as far as one file can know them: its own, and for every other file of the
 * repository an empty stand-in with the right module name (so module lookups behave as in the full
 * index). A stand-in defines nothing, so no call resolves exactly through one; `lookedElsewhere` says
 * that a resolution asked for one.
 */
class OwnSummaryFirst extends Map<string, ModuleSummary> {
  lookedElsewhere = false;
  private readonly standIns = new Map<string, ModuleSummary>();

  constructor(
    private readonly own: ModuleSummary,
    private readonly dottedByPath: ReadonlyMap<string, string>,
  ) {
    super();
  }

  override get(path: string): ModuleSummary | undefined {
    if (path === this.own.path) return this.own;
    const dotted = this.dottedByPath.get(path);
    if (dotted === undefined) return undefined;
    this.lookedElsewhere = true;
    let standIn = this.standIns.get(path);
    if (!standIn) {
      standIn = { path, dotted, source: '', functions: [], classes: new Map(), imports: [], calls: [] };
      this.standIns.set(path, standIn);
    }
    return standIn;
  }

  override has(path: string): boolean {
    return path === this.own.path || this.dottedByPath.has(path);
  }
}
