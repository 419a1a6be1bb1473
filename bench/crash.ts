// The crash harness on the reference suite: runs per second with the fork server and
// with a fresh interpreter per run, the whole campaign's wall time, and the per-run
// overhead against the floor of a bare fork()+_exit loop on this machine; then hang detection
// on the 405 s campaign's shape (a re-run that waits forever on a worker thread no process has).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { runCampaign } from '../src/adapters/harness/campaign.ts';
import { defaultConcurrency, prepareHarness } from '../src/adapters/harness/prepare.ts';
import { referenceSolutions } from '../test/support/reference-solutions.ts';

/** Wall seconds and CPU seconds (the loop's process and its children) per bare fork()+_exit. */
async function bareForkPerRun(python: string, n: number): Promise<{ wall: number; cpu: number }> {
  const script = `
import os, resource, time
n = ${n}
def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime
start, start_cpu = time.perf_counter(), cpu()
for _ in range(n):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
print(time.perf_counter() - start, cpu() - start_cpu)
`;
  const { stdout } = await execa(python, ['-c', script]);
  const [wall, cpu] = stdout.trim().split(/\s+/).map(Number);
  return { wall: (wall ?? NaN) / n, cpu: (cpu ?? NaN) / n };
}

/**
 * CPU seconds of every process this one has waited for, and theirs (the harness servers, their
 * bubblewrap and every run they reaped): unlike wall time, barely moved by other work on a loaded
 * machine. Linux only; clock ticks of 1/100 s, fine over a campaign of seconds.
 */
function reapedCpuSeconds(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return NaN;
  }
}

export default async function bench(log: (line: string) => void): Promise<void> {
  const prepared = await prepareHarness({ python: 'python3', sandbox: 'auto', searchPath: ['/usr/bin', '/bin', '/usr/local/bin'] });
  const all = referenceSolutions().map((s) => s.dir);
  const cores = defaultConcurrency();
  log(`reference suite: ${all.length} solutions; ${cores} core(s); sandbox: ${prepared.options.bwrap ? 'bubblewrap' : 'none'}`);

  const fork = await runCampaign(all, { ...prepared.options, isolation: 'fork', concurrency: cores });
  const forkRate = fork.runs / fork.seconds;
  // Runs are the processes started: a re-run from a state an earlier re-run started from is reused, not counted (harness/crashprobe/rerun_cache.py).
  log(`whole campaign, fork server: ${fork.seconds.toFixed(1)} s wall for ${fork.runs} runs (${forkRate.toFixed(0)} runs/s)`);

  // Spawn on a sample: a fresh interpreter per run is slow enough that the full suite would dominate the bench.
  const sample = all.filter((_, i) => i % 4 === 0);
  const forkSample = await runCampaign(sample, { ...prepared.options, isolation: 'fork', concurrency: cores });
  const spawnSample = await runCampaign(sample, { ...prepared.options, isolation: 'spawn', concurrency: cores });
  const forkSampleRate = forkSample.runs / forkSample.seconds;
  const spawnRate = spawnSample.runs / spawnSample.seconds;
  log(`same ${sample.length} solutions side by side: fork ${forkSampleRate.toFixed(0)} runs/s, spawn ${spawnRate.toFixed(0)} runs/s, ` +
    `ratio ${(forkSampleRate / spawnRate).toFixed(1)}x (aim: at least 10x)`);

  const { wall: floor, cpu: floorCpu } = await bareForkPerRun(prepared.options.python.executable, 2000);
  const perRun = (forkSample.seconds * cores) / forkSample.runs;
  log(`per-run cost: fork server ${(perRun * 1000).toFixed(2)} ms (incl. state capture and judging) vs bare fork()+_exit ` +
    `${(floor * 1000).toFixed(2)} ms: ${(perRun / floor).toFixed(1)}x the floor`);
  // The same in CPU time, which other work on a loaded machine barely moves. Without bubblewrap: the
  // harness servers are then this process's children, so their CPU and their runs' comes back here.
  const bare = await prepareHarness({ python: 'python3', sandbox: 'none', searchPath: ['/usr/bin', '/bin', '/usr/local/bin'] });
  const cpuBefore = reapedCpuSeconds();
  const cpuSample = await runCampaign(sample, { ...bare.options, isolation: 'fork', concurrency: cores });
  const perRunCpu = (reapedCpuSeconds() - cpuBefore) / cpuSample.runs;
  log(`per-run CPU (no sandbox): fork server ${(perRunCpu * 1000).toFixed(2)} ms (incl. server start, imports, capture, judging) vs bare ` +
    `fork()+_exit ${(floorCpu * 1000).toFixed(2)} ms: ${(perRunCpu / floorCpu).toFixed(1)}x; load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  log(`aim: whole campaign within 60 s on 2 cores: ${fork.seconds <= 60 ? 'met' : 'NOT met'} (${fork.seconds.toFixed(1)} s)`);
  log(`aims (issue 13): per run at most 3x the floor: ${perRun <= 3 * floor ? 'met' : 'NOT met'}; ` +
    `fork at least 10x spawn: ${forkSampleRate >= 10 * spawnRate ? 'met' : 'NOT met'}`);

  // Hang detection: every crash point leaves a re-run blocked for good; without it each costs the wall-clock limit.
  const hangFile = path.resolve(import.meta.dirname, '../harness/tests/hang_targets');
  const wall = 20;
  const hang = await runCampaign([hangFile], { ...prepared.options, isolation: 'fork', concurrency: 1, root: hangFile, limits: { wall_seconds: wall } });
  for (const error of hang.errors) log(`hang scenario error: ${error.message}`);
  const failures = hang.scenarios.flatMap((s) => s.failures).filter((f) => f.crash !== 'none');
  const hangs = failures.filter((f) => f.outcome === 'rerun-hangs').length +
    failures.filter((f) => (f.reasons ?? []).includes('the crashed run hung after the crash and was ended')).length;
  log(`hangs: ${hangs} hung runs (${failures.filter((f) => f.outcome === 'rerun-hangs').length} re-runs) ended in ${hang.seconds.toFixed(1)} s ` +
    `for the whole file (${((hang.seconds / Math.max(1, hangs))).toFixed(2)} s per hang, incl. its other runs) ` +
    `vs ${wall} s each at the wall-clock limit; aim: under 30 s: ${hang.seconds < 30 ? 'met' : 'NOT met'}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await bench((line) => console.log(line));
