// Runs the harness on one scenario file, in its own process (and sandbox), and
// turns the JSON lines it prints into checked messages.
import { existsSync, realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { parseHarnessLine, type HarnessMessage, type HarnessRequest } from '../../core/crash/protocol.ts';
import { bwrapPlan, type BwrapLaunch } from './bwrap-plan.ts';
import { isScenarioFile } from '../../core/crash/discover.ts';
import { harnessEnv, type PythonInfo } from './sandbox.ts';

export interface HarnessProcessOptions {
  python: PythonInfo;
  harnessDir: string;
  /** Path of a working bubblewrap, or undefined to run without it. */
  bwrap?: string;
  /** How bubblewrap is started here (through sudo, nested as root); undefined: plain, single. */
  bwrapLaunch?: BwrapLaunch;
  runningAsRoot: boolean;
  /** A whole scenario file may take this long before it is stopped. */
  fileTimeoutMs: number;
  /** The harness server's CPU budget for a whole file; default from fileTimeoutMs (see fileCpuSeconds). */
  fileCpuSeconds?: number;
  workBytes: number;
}

/** Why the harness server ended without `done`, from how it ended (see harness/crashprobe/sandbox.py limit_server). */
function endedBy(signal: string | undefined, exitCode: number | undefined, options: HarnessProcessOptions, wallSeconds: number, cpuSeconds: number): string {
  // Under bubblewrap the server's signal comes back as bwrap's exit code 128 + n.
  const is = (name: string, n: number) => signal === name || exitCode === 128 + n;
  if (is('SIGXCPU', 24) || is('SIGKILL', 9)) {
    return (
      `was stopped by its CPU-time limit: ${cpuSeconds} s while the scenario file and its targets import, ` +
      `${fileCpuSeconds(options)} s for the whole file (an import or check= that never ends?)`
    );
  }
  if (is('SIGALRM', 14)) {
    return `was stopped: the scenario file and its targets did not finish importing within ${Math.max(30, 3 * wallSeconds)} s (an import that blocks?)`;
  }
  return `ended with exit code ${exitCode ?? signal}`;
}

/** The harness server's own CPU budget (runs have their own): the file's wall-clock limit, at most 5 minutes. */
export function fileCpuSeconds(options: Pick<HarnessProcessOptions, 'fileTimeoutMs' | 'fileCpuSeconds'>): number {
  return options.fileCpuSeconds ?? Math.max(30, Math.min(300, Math.round(options.fileTimeoutMs / 1000)));
}

const within = (p: string, dir: string): boolean => p === dir || p.startsWith(`${dir}${path.sep}`);

/**
 * What the sandbox must show of a scenario file beyond the repository (issue 10 item 5): a file
 * given outside the root (`crash ../x/crash_cache.py --root DIR`), or the real file a scenario
 * symlink in the root points to (the reference suite's shared task scenarios). The file alone,
 * never its folder, and only a real scenario file (one that imports crashprobe's `scenario`),
 * so a link to a host file shows nothing.
 */
export function scenarioFileBinds(scenarioFile: string, root: string): Array<{ source: string; target: string }> {
  const given = path.resolve(scenarioFile);
  let realFile: string;
  let realRoot: string;
  try {
    realFile = realpathSync(given);
    realRoot = realpathSync(root);
  } catch {
    return [];
  }
  if (!isScenarioFile(realFile)) return [];
  const binds: Array<{ source: string; target: string }> = [];
  if (!within(given, root)) binds.push({ source: realFile, target: given });
  if (realFile !== given && !within(realFile, realRoot) && !within(realFile, root)) binds.push({ source: realFile, target: realFile });
  return binds;
}

export async function runHarnessOnFile(
  request: Omit<HarnessRequest, 'work'>,
  options: HarnessProcessOptions,
  onMessage: (message: HarnessMessage) => void,
): Promise<void> {
  const env = harnessEnv(options.harnessDir);
  let hostWork: string | undefined;
  let command: string;
  let args: string[];
  let work: string;
  if (options.bwrap) {
    const plan = bwrapPlan({
      bwrap: options.bwrap,
      launch: options.bwrapLaunch,
      python: options.python,
      root: request.root,
      extraFiles: scenarioFileBinds(request.scenario_file, request.root),
      harnessDir: options.harnessDir,
      workBytes: options.workBytes,
      env,
    });
    ({ command, args, work } = plan);
  } else {
    // A tmpfs where there is one: the harness models a killed process, not a power cut, so fsync buys nothing.
    const base = existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
    hostWork = await mkdtemp(path.join(base, 'crashprobe-runs-'));
    work = hostWork;
    command = options.python.executable;
    args = ['-m', 'crashprobe.server'];
  }
  const source = path.relative(request.root, request.scenario_file) || request.scenario_file;
  try {
    const child = execa(command, args, {
      // file_cpu_seconds: the harness server's own CPU budget for the whole file (imports, check=, judging).
      input: JSON.stringify({ ...request, work, file_cpu_seconds: fileCpuSeconds(options) }),
      cwd: request.root,
      env,
      extendEnv: false,
      reject: false,
      timeout: options.fileTimeoutMs,
      // Through sudo, SIGKILL would end sudo and leave the root-owned bwrap behind; sudo relays SIGTERM.
      killSignal: options.bwrap && options.bwrapLaunch?.via.length ? 'SIGTERM' : 'SIGKILL',
      forceKillAfterDelay: 5_000,
      stderr: 'pipe',
      maxBuffer: { stdout: 256 * 1024 * 1024, stderr: 4 * 1024 * 1024 },
    });
    let sawDone = false;
    for await (const line of child.iterable({ from: 'stdout' })) {
      if (!String(line).trim()) continue;
      const message = parseHarnessLine(String(line), source);
      if (message.type === 'done') sawDone = true;
      onMessage(message);
    }
    const result = await child;
    if (!sawDone) {
      const why = result.timedOut
        ? `stopped after ${Math.round(options.fileTimeoutMs / 1000)} s`
        : endedBy(result.signal, result.exitCode, options, request.limits.wall_seconds, request.limits.cpu_seconds);
      const tail = String(result.stderr ?? '').trim().split('\n').slice(-5).join('\n');
      onMessage({ type: 'error', file: request.scenario_file, message: `${source}: the harness ${why}${tail ? `:\n${tail}` : ''}` });
    }
  } finally {
    if (hostWork) await rm(hostWork, { recursive: true, force: true });
  }
}
