// The static scan on the installed Python standard library (~1,800 files),
// against a bare tree-sitter parse of the same files with the same parser,
// all in one run so the ratios compare like with like on this machine:
// the scan on one core (this thread; first, so its peak memory is its own:
// run `npx tsx bench/run.ts scan` for that), then on two worker threads, each with
// wall time, its ratio to the bare parse and peak resident memory beside the
// aim (issue 13). Then bandit on the same files when it is installed.
// BENCH_SCAN_KEEP_TREES=1 adds the older scan that keeps every tree
// (scanRepository), for before/after figures.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { decodePythonSource, parseModule, parsePython } from '../src/core/python/parse.ts';
import { scanRepository, type ScanResult } from '../src/core/python/scan.ts';
import { scanJson } from '../src/core/python/scan-report.ts';
import { scanSources, yieldToEventLoop, type SourceScanResult } from '../src/core/python/scan-sources.ts';
import { workerPool } from '../src/core/python/scan-pool.ts';
import type { SourceFile } from '../src/core/python/scan-file.ts';
import { stdlibPythonFiles, stdlibRoot } from './_stdlib.ts';

const AIM_RATIO_ONE_CORE = 2;
const AIM_PEAK_MIB = 600;

function countLines(bytes: Uint8Array): number {
  let lines = 0;
  for (const byte of bytes) if (byte === 10) lines++;
  return lines;
}

/** Peak resident memory since the last reset: VmHWM, reset by writing 5 to clear_refs (Linux). */
const peak = {
  reset(): void {
    if (existsSync('/proc/self/clear_refs')) writeFileSync('/proc/self/clear_refs', '5');
  },
  mib(): number {
    const status = existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '';
    const kib = /VmHWM:\s*(\d+)/.exec(status)?.[1];
    return Math.round(kib ? Number(kib) / 1024 : process.memoryUsage().rss / 2 ** 20);
  },
};

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

function cpuSince(started: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1e6;
}

function rate(lines: number, elapsed: number): string {
  return `${Math.round(lines / elapsed).toLocaleString('en-US')} lines/s`;
}

function met(ok: boolean): string {
  return ok ? 'met' : 'NOT met';
}

interface Run {
  seconds: number;
  /** This process's CPU time (user + system, all its threads): what a loaded machine does not stretch. */
  cpuSeconds: number;
  peakMib: number;
  /** sha256 of the scan's JSON: what the runs compare, without keeping a run's output alive while the next is measured. */
  digest: string;
  result?: ScanResult & Partial<Pick<SourceScanResult, 'reanalysed'>>;
}

async function measured(scan: () => Promise<NonNullable<Run['result']>>): Promise<Run> {
  await yieldToEventLoop();
  peak.reset();
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const result = await scan();
  const elapsed = seconds(started);
  const cpuSeconds = cpuSince(cpuStarted);
  const peakMib = peak.mib();
  const digest = createHash('sha256').update(JSON.stringify(scanJson('.', result.files, false))).digest('hex');
  return { seconds: elapsed, cpuSeconds, peakMib, result, digest };
}

export default async function bench(log: (line: string) => void): Promise<void> {
  const root = stdlibRoot();
  // Read once up front: every measurement starts from bytes in memory, so disk speed is in none.
  const sources: SourceFile[] = stdlibPythonFiles(root)
    .sort()
    .map((file) => ({ path: path.relative(root, file).split(path.sep).join('/'), bytes: readFileSync(file) }));
  const totalLines = sources.reduce((sum, source) => sum + countLines(source.bytes), 0);
  log(`${sources.length} files, ${totalLines.toLocaleString('en-US')} lines in ${root} (every file analysed: no exclude globs)`);

  // Warm the parser and the analysis code once, on a small file, out of the timing.
  await scanSources([{ path: 'warm.py', bytes: Buffer.from('def f(conn):\n    conn.execute("BEGIN")\n') }]);

  // The 1-core scan first, in a fresh process: the allocator keeps native memory a run has freed,
  // so a scan measured after the bare parse would start from the bare parse's high-water mark.
  const one = await measured(() => scanSources(sources, undefined, { exclude: [] }));
  const reports = one.result!.files.flatMap((file) => file.reports);
  const counts = {
    functions: reports.length,
    writing: reports.filter((r) => r.writes).length,
    findings: reports.reduce((n, r) => n + r.findings.length, 0),
    edges: one.result!.index.edges.length,
    exact: one.result!.index.edges.filter((edge) => edge.resolution === 'exact').length,
    reanalysed: one.result!.reanalysed?.length ?? 0,
  };
  // Let the 1-core result go (only counts kept), so the next runs' peaks are their own.
  reports.length = 0;
  delete one.result;

  // Bare parse: the same parser, one tree at a time, freed as the scan frees its trees (by turning the event loop).
  await yieldToEventLoop();
  peak.reset();
  let started = performance.now();
  const bareCpuStarted = process.cpuUsage();
  let nodes = 0;
  for (const [i, source] of sources.entries()) {
    if (i % 8 === 0) await yieldToEventLoop();
    nodes += parsePython(decodePythonSource(source.bytes, [])).rootNode.descendantCount;
  }
  const bare = seconds(started);
  const bareCpu = cpuSince(bareCpuStarted);
  const barePeak = peak.mib();
  log(`bare tree-sitter parse: ${bare.toFixed(2)} s, ${rate(totalLines, bare)} (${nodes.toLocaleString('en-US')} nodes), ${bareCpu.toFixed(2)} s CPU, peak rss ${barePeak} MiB (after the scan, whose freed native memory the allocator still holds)`);

  log(`scan, 1 core: ${one.seconds.toFixed(2)} s, ${rate(totalLines, one.seconds)}: ${counts.functions.toLocaleString('en-US')} functions, ${counts.writing} writing, ${counts.findings} findings; ${counts.reanalysed} files analysed twice (helpers in other files)`);
  log(`  call graph: ${counts.edges.toLocaleString('en-US')} calls, ${counts.exact.toLocaleString('en-US')} resolved exactly`);
  log(`  scan 1 core / bare parse: ${(one.seconds / bare).toFixed(2)}x wall (aim: within ${AIM_RATIO_ONE_CORE}x: ${met(one.seconds / bare <= AIM_RATIO_ONE_CORE)}); ` +
    `${(one.cpuSeconds / bareCpu).toFixed(2)}x in CPU time (${one.cpuSeconds.toFixed(2)} s against ${bareCpu.toFixed(2)} s: the ratio to trust when other work loads the machine)`);
  log(`  peak rss: ${one.peakMib} MiB (aim: under ${AIM_PEAK_MIB} MiB: ${met(one.peakMib < AIM_PEAK_MIB)})`);

  const two = await measured(() => scanSources(sources, undefined, { exclude: [], scanner: workerPool(2) }));
  log(`scan, 2 worker threads: ${two.seconds.toFixed(2)} s wall, ${rate(totalLines, two.seconds)}; output ${two.digest === one.digest ? 'identical to' : 'DIFFERS from'} the 1-core scan`);
  log(`  wall time vs 1 core: ${(two.seconds / one.seconds).toFixed(2)}x (aim: under 1x: ${met(two.seconds < one.seconds)}); vs bare parse: ${(two.seconds / bare).toFixed(2)}x`);
  log(`  peak rss: ${two.peakMib} MiB (aim: under ${AIM_PEAK_MIB} MiB: ${met(two.peakMib < AIM_PEAK_MIB)})`);

  if (process.env.BENCH_SCAN_KEEP_TREES === '1') {
    const kept = await measured(async () => scanRepository(sources.map((source) => parseModule(source.path, source.bytes)), undefined, { exclude: [] }));
    log(`older scan, every tree kept (scanRepository): ${kept.seconds.toFixed(2)} s, ${(kept.seconds / bare).toFixed(2)}x the bare parse, peak rss ${kept.peakMib} MiB; output ${kept.digest === one.digest ? 'identical' : 'DIFFERS'}`);
  }

  await benchBandit(root, totalLines, one.seconds, log);
}

async function benchBandit(root: string, totalLines: number, full: number, log: (line: string) => void): Promise<void> {
  const which = await execa('which', ['bandit'], { reject: false });
  if (which.exitCode !== 0) {
    log('bandit: not installed, skipped (Debian: apt-get install bandit)');
    return;
  }
  const started = performance.now();
  // bandit exits 1 when it finds issues, which on the standard library it does; only a crash counts as failure.
  const result = await execa('bandit', ['-r', '-q', '-x', excludedDirs(root), root], { reject: false, stdout: 'ignore', stderr: 'pipe', buffer: { stderr: true } });
  const elapsed = seconds(started);
  if (result.exitCode !== 0 && result.exitCode !== 1) {
    log(`bandit: failed with exit code ${result.exitCode}: ${String(result.stderr).split('\n')[0]}`);
    return;
  }
  log(`bandit -r -q: ${elapsed.toFixed(2)} s, ${rate(totalLines, elapsed)}`);
  log(`bandit / scan on 1 core: ${(elapsed / full).toFixed(1)}x`);
}

function excludedDirs(root: string): string {
  return ['site-packages', 'dist-packages'].map((name) => path.join(root, name)).join(',');
}

// Run alone (`npx tsx bench/scan.ts`), not when bench/run.ts imports it.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bench((line) => console.log(line));
}
