// The repository scan from file bytes, one tree alive at a time (per
// thread): the same result as scanRepository, which needs every module
// parsed and kept, in a fraction of the memory, and across worker threads
// when a FileScanner pool is given.
//
// Partial: two differences from scanRepository are left. A transaction wrapper inherited from a base
// class in another module (wrapper-transaction.ts, inherited-methods.ts) is found only where the
// module was indexed with its tree (callgraph.ts repoIndexOf); here it is not, so such writes stay
// reported (yoyo's RedshiftBackend._insert_lock_row). The repository-wide default-mode proof
// (repository-connections.ts) needs every module's tree too, so the three default-mode rules keep
// speaking here where scanRepository proves the connection (zim's indexers).
//
// Partial (issue 13): files whose calls reach an effectful helper in another
// file are parsed a second time, in this thread, and the functions with
// those calls analysed again (312 of 1,790 files of the standard library).
// Describing helpers by their direct effects and
// patterns (no tree) would let the second pass go, but needs HelperTarget in
// effects.ts and tx-style.ts to accept such a description.
import { buildRepoIndex, repoHelperResolver, type CallEdge, type RepoIndex } from './callgraph.ts';
import { parseUnifiedDiff, type FileChange } from './diff.ts';
import { memoizeResolver } from './effects.ts';
import { dottedModuleName } from './imports.ts';
import type { PyModule } from './model.ts';
import { parseModule } from './parse.ts';
import { analysedFile, callKey, repositoryNames, scanFile, type AnalyseWhat, type CrossFileCall, type FileRequest, type FileScan, type RepositoryNames, type SourceFile } from './scan-file.ts';
import { excludedBy, isPython, withChange, type ScanOptions, type ScannedFile, type ScanResult } from './scan.ts';
import { DEFAULT_EXCLUDE } from '../config/schema.ts';
import { TreeMemory } from './tree-memory.ts';

export { yieldToEventLoop } from './tree-memory.ts';

/** Runs scanFile on many files, perhaps on other threads; results in request order. */
export interface FileScanner {
  scanAll(requests: readonly FileRequest[], paths: readonly string[]): Promise<FileScan[]>;
}

/** In this thread, one file after another. */
export const inThisThread: FileScanner = {
  async scanAll(requests, paths) {
    const names = namesOf(paths);
    const scans: FileScan[] = [];
    const trees = new TreeMemory();
    for (const request of requests) {
      scans.push(scanFile(request, names));
      await trees.settle(request.bytes.byteLength);
    }
    return scans;
  },
};

export function namesOf(paths: readonly string[]): RepositoryNames {
  return repositoryNames(paths, dottedModuleName);
}

export interface SourceScanOptions extends ScanOptions {
  scanner?: FileScanner;
}

/** Its index's summaries carry no `calls`: the index's edges hold them. */
export interface SourceScanResult extends ScanResult {
  /** Files analysed a second time, with the trees of the helpers they reach in other files. */
  reanalysed: string[];
}

/** scanRepository's result, from bytes: `diff` limits the analysis to the functions it touches. */
export async function scanSources(given: readonly SourceFile[], diff?: string, options: SourceScanOptions = {}): Promise<SourceScanResult> {
  const sources = given.map((source) => ({ path: normalizePath(source.path), bytes: source.bytes }));
  const excluded = sources.length > 1 ? excludedBy(options.exclude ?? DEFAULT_EXCLUDE) : () => false;
  const changes = diff === undefined ? undefined : parseUnifiedDiff(diff).filter((change) => isPython(change) && !excluded(change.path));
  const changeByPath = new Map((changes ?? []).filter((change) => change.status !== 'deleted').map((change) => [change.path, change]));
  const analyse = (path: string): AnalyseWhat => (changes === undefined ? !excluded(path) : changeByPath.get(path) ?? false);
  const requests = sources.map((source) => ({ ...source, analyse: analyse(source.path) }));
  const paths = sources.map((source) => source.path);
  const scans: (FileScan | undefined)[] = await (options.scanner ?? inThisThread).scanAll(requests, paths);
  // The edges hold every call; the summaries' own lists would double the index's memory.
  const index = buildRepoIndex(scans.map((scan) => scan!.summary), { releaseCalls: true });
  const trees = new TreeMemory();
  const repo: Repository = { index, helperModules: new HelperModules(sources, trees), effectful: new Map(scans.map((scan) => [scan!.summary.path, new Set(scan!.effectful)])), edges: new EdgesByKey(index) };
  const byPath = new Map<string, ScannedFile>();
  const reanalysed: string[] = [];
  for (let i = 0; i < scans.length; i++) {
    const scan = scans[i]!;
    // Each scan is read once: its cross-file calls can go as the loop passes (the index holds its summary).
    scans[i] = undefined;
    if (!scan.file) continue;
    const again = reanalysedIfNeeded(scan, requests[i]!, repo);
    byPath.set(sources[i]!.path, again ?? scan.file);
    if (!again) continue;
    reanalysed.push(sources[i]!.path);
    await trees.settle(sources[i]!.bytes.byteLength);
  }
  if (changes === undefined) return { index, reanalysed, files: sources.flatMap((source) => byPath.get(source.path) ?? []) };
  const files = changes.map((change): ScannedFile => {
    const file = change.status === 'deleted' ? undefined : byPath.get(change.path);
    if (file) return withChange(file, change);
    const notes = change.status === 'deleted' ? ['deleted by the change'] : [`${change.path} is in the diff but not in the scanned folder`];
    return withChange({ path: change.path, notes, syntaxErrors: 0, reports: [] }, change);
  });
  return { index, files, reanalysed };
}

/**
 * Undefined (the first analysis stands) unless a call it could not resolve alone reaches, exactly, a function that
 * changes the result: one with effects or transaction patterns of its own, or any function when the
 * call itself may be an effect. Then the file is parsed again, with the files it reaches, and the
 * functions with such calls analysed with the full index (what scanRepository does with every tree kept).
 */
function reanalysedIfNeeded(scan: FileScan, request: FileRequest & SourceFile, repo: Repository): ScannedFile | undefined {
  if (scan.crossFileCalls.length === 0) return undefined;
  const reached = reachedHelpers(repo, request.path, scan.crossFileCalls);
  if (!reached) return undefined;
  const module = parseModule(request.path, request.bytes);
  const modules = new Map<string, PyModule>([[request.path, module]]);
  for (const path of reached.paths) modules.set(path, repo.helperModules.get(path));
  const withTrees: RepoIndex = { ...repo.index, modules };
  const resolver = memoizeResolver(repoHelperResolver(withTrees));
  return analysedFile(module, request.analyse as true | FileChange, resolver, { file: scan.file!, again: reached.callers });
}

interface Repository {
  index: RepoIndex;
  helperModules: HelperModules;
  /** path → qualnames of its effectful functions. */
  effectful: Map<string, Set<string>>;
  edges: EdgesByKey;
}

/** The files whose trees a re-analysis needs and the functions to analyse again, or undefined when the first analysis stands. */
function reachedHelpers(repo: Repository, path: string, calls: readonly CrossFileCall[]): { paths: Set<string>; callers: Set<string> } | undefined {
  const edges = repo.edges.of(path);
  const callers = new Set<string>();
  const paths = new Set<string>();
  const exactly = calls.flatMap((call) => {
    const edge = edges?.get(call.key);
    return edge?.resolution === 'exact' ? [{ call, targets: edge.targets }] : [];
  });
  for (const { call, targets } of exactly) {
    if (targets.some((target) => call.mayHaveEffect || repo.effectful.get(target.path)?.has(target.qualname))) callers.add(call.caller);
  }
  // Only the functions analysed again follow helpers, so only their targets need trees.
  for (const { call, targets } of exactly) {
    if (callers.has(call.caller)) for (const target of targets) if (target.path !== path) paths.add(target.path);
  }
  return callers.size > 0 ? { paths, callers } : undefined;
}

/**
 * A file's call-graph edges by callKey, built when a re-analysis first asks for that file and not kept:
 * keys for every call of a large repository (hundreds of thousands) would be a large part of the scan's memory.
 */
class EdgesByKey {
  private readonly byPath = new Map<string, CallEdge[]>();

  constructor(index: RepoIndex) {
    for (const edge of index.edges) {
      const edges = this.byPath.get(edge.from.path);
      if (edges) edges.push(edge);
      else this.byPath.set(edge.from.path, [edge]);
    }
  }

  of(path: string): Map<string, CallEdge> {
    return new Map((this.byPath.get(path) ?? []).map((edge) => [callKey(edge.from.qualname, edge.callee, edge.range), edge]));
  }
}

/**
 * The files re-analyses reach, parsed once and kept while they fit: a few modules (os, shutil,
 * tempfile...) are reached from hundreds of files. Least recently used go first, so memory stays bounded.
 */
class HelperModules {
  private readonly kept = new Map<string, { module: PyModule; bytes: number }>();
  private keptBytes = 0;
  private readonly byPath: Map<string, SourceFile>;

  constructor(
    sources: readonly SourceFile[],
    private readonly trees: TreeMemory,
    private readonly maxSourceBytes = HELPER_CACHE_SOURCE_BYTES,
  ) {
    this.byPath = new Map(sources.map((source) => [source.path, source]));
  }

  get(path: string): PyModule {
    const hit = this.kept.get(path);
    if (hit) {
      this.kept.delete(path);
      this.kept.set(path, hit);
      return hit.module;
    }
    const source = this.byPath.get(path)!;
    const entry = { module: parseModule(source.path, source.bytes), bytes: source.bytes.byteLength };
    this.trees.parsed(entry.bytes);
    this.kept.set(path, entry);
    this.keptBytes += entry.bytes;
    for (const [oldest, { bytes }] of this.kept) {
      if (this.keptBytes <= this.maxSourceBytes || oldest === path) break;
      this.kept.delete(oldest);
      this.keptBytes -= bytes;
    }
    return entry.module;
  }
}

/**
 * Source kept parsed for re-analyses; its trees take roughly ten times as much native memory. At 2 MiB the
 * standard library's scan peaked some 7 MiB higher (594 against 587 MiB) for some 2% less CPU time, too
 * close to the 600 MiB aim (issue 13).
 */
const HELPER_CACHE_SOURCE_BYTES = 1024 * 1024;

/** parseModule's normalization, applied before parsing so module names are known up front. */
function normalizePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\.\//, '');
}
