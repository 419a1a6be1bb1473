// The static analysis on the installed Python standard library (~1,800
// files): a bare tree-sitter parse against the full scan (functions,
// effects, transaction style, rules, call graph), in lines per second, and
// bandit on the same files when it is installed. All in one run, so the
// ratios compare like with like on this machine.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { execa } from 'execa';
import { analyzeModule } from '../src/core/python/analyze.ts';
import { buildRepoIndex, summarizeModule, type ModuleSummary } from '../src/core/python/callgraph.ts';
import { decodePythonSource, parseModule, parsePython } from '../src/core/python/parse.ts';

interface SourceFile {
  path: string;
  bytes: Buffer;
  lines: number;
}

function stdlibRoot(): string {
  return execFileSync('python3', ['-c', "import sysconfig;print(sysconfig.get_paths()['stdlib'])"], { encoding: 'utf8' }).trim();
}

/** The standard library's own files: installed third-party packages are not part of it. */
function pythonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return ['site-packages', 'dist-packages', '__pycache__'].includes(entry.name) ? [] : pythonFiles(full);
    return entry.isFile() && entry.name.endsWith('.py') ? [full] : [];
  });
}

function countLines(bytes: Buffer): number {
  let lines = 0;
  for (const byte of bytes) if (byte === 10) lines++;
  return lines;
}

/**
 * A tree's memory is native: V8 does not feel it and collects rarely, so
 * 1,800 trees pile up to gigabytes. Both loops collect every GC_EVERY files,
 * so the comparison stays fair and the footprint flat.
 */
const GC_EVERY = 100;
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function seconds(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e9;
}

function rate(lines: number, elapsed: number): string {
  return `${Math.round(lines / elapsed).toLocaleString('en-US')} lines/s`;
}

export default async function bench(log: (line: string) => void): Promise<void> {
  const root = stdlibRoot();
  const paths = pythonFiles(root).sort();
  // Read once up front: both measurements start from bytes in memory, so disk speed is in neither.
  const files: SourceFile[] = paths.map((file) => {
    const bytes = readFileSync(file);
    return { path: path.relative(root, file), bytes, lines: countLines(bytes) };
  });
  const totalLines = files.reduce((sum, file) => sum + file.lines, 0);
  log(`${files.length} files, ${totalLines.toLocaleString('en-US')} lines in ${root}`);

  // Warm the parser and the analysis code once, on a small file, out of the timing.
  analyzeModule(parseModule('warm.py', 'def f(conn):\n    conn.execute("BEGIN")\n'));

  let started = process.hrtime.bigint();
  let nodes = 0;
  for (const [i, file] of files.entries()) {
    const tree = parsePython(decodePythonSource(file.bytes, []));
    nodes += tree.rootNode.descendantCount;
    if (i % GC_EVERY === 0) collectGarbage();
  }
  const bare = seconds(started);
  const bareRss = process.memoryUsage().rss;
  log(`bare tree-sitter parse: ${bare.toFixed(2)} s, ${rate(totalLines, bare)} (${nodes.toLocaleString('en-US')} nodes)`);

  started = process.hrtime.bigint();
  const summaries: ModuleSummary[] = [];
  let functions = 0;
  let writing = 0;
  let findings = 0;
  let skipped = 0;
  for (const [i, file] of files.entries()) {
    if (i % GC_EVERY === 0) collectGarbage();
    // One module's tree at a time: the call graph is built from summaries, so memory stays flat.
    const module = parseModule(file.path, file.bytes);
    if (module.notes.some((note) => note.startsWith('skipped'))) skipped++;
    for (const report of analyzeModule(module)) {
      functions++;
      if (report.writes) writing++;
      findings += report.findings.length;
    }
    summaries.push(summarizeModule(module));
  }
  const index = buildRepoIndex(summaries);
  const full = seconds(started);
  const exact = index.edges.filter((edge) => edge.resolution === 'exact').length;
  log(`full scan: ${full.toFixed(2)} s, ${rate(totalLines, full)}: ${functions.toLocaleString('en-US')} functions, ${writing} writing, ${findings} findings, ${skipped} files over the size limit`);
  log(`call graph: ${index.edges.length.toLocaleString('en-US')} calls, ${exact.toLocaleString('en-US')} resolved exactly`);
  log(`full scan / bare parse: ${(full / bare).toFixed(2)}x (aim: within 2x)`);
  log(`memory: rss ${Math.round(bareRss / 2 ** 20)} MiB after the bare parse, ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB after the scan (heap ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MiB)`);

  await benchBandit(root, totalLines, full, log);
}

async function benchBandit(root: string, totalLines: number, full: number, log: (line: string) => void): Promise<void> {
  const which = await execa('which', ['bandit'], { reject: false });
  if (which.exitCode !== 0) {
    log('bandit: not installed, skipped (Debian: apt-get install bandit)');
    return;
  }
  const started = process.hrtime.bigint();
  // bandit exits 1 when it finds issues, which on the standard library it does; only a crash counts as failure.
  const result = await execa('bandit', ['-r', '-q', '-x', excludedDirs(root), root], { reject: false, stdout: 'ignore', stderr: 'pipe', buffer: { stderr: true } });
  const elapsed = seconds(started);
  if (result.exitCode !== 0 && result.exitCode !== 1) {
    log(`bandit: failed with exit code ${result.exitCode}: ${String(result.stderr).split('\n')[0]}`);
    return;
  }
  log(`bandit -r -q: ${elapsed.toFixed(2)} s, ${rate(totalLines, elapsed)}`);
  log(`bandit / full scan: ${(elapsed / full).toFixed(1)}x`);
}

function excludedDirs(root: string): string {
  return ['site-packages', 'dist-packages'].map((name) => path.join(root, name)).join(',');
}

// Run alone (`npx tsx bench/scan.ts`), not when bench/run.ts imports it.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bench((line) => console.log(line));
}
