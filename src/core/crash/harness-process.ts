// Runs the harness on one scenario file, in its own process (and sandbox), and
// turns the JSON lines it prints into checked messages.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { parseHarnessLine, type HarnessMessage, type HarnessRequest } from './protocol.ts';
import { bwrapPlan, harnessEnv, type PythonInfo } from './sandbox.ts';

export interface HarnessProcessOptions {
  python: PythonInfo;
  harnessDir: string;
  /** Path of a working bubblewrap, or undefined to run without it. */
  bwrap?: string;
  runningAsRoot: boolean;
  /** A whole scenario file may take this long before it is stopped. */
  fileTimeoutMs: number;
  workBytes: number;
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
      python: options.python,
      root: request.root,
      harnessDir: options.harnessDir,
      workBytes: options.workBytes,
      env,
      runningAsRoot: options.runningAsRoot,
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
      input: JSON.stringify({ ...request, work }),
      cwd: request.root,
      env,
      extendEnv: false,
      reject: false,
      timeout: options.fileTimeoutMs,
      killSignal: 'SIGKILL',
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
        : `ended with exit code ${result.exitCode ?? result.signal}`;
      const tail = String(result.stderr ?? '').trim().split('\n').slice(-5).join('\n');
      onMessage({ type: 'error', file: request.scenario_file, message: `${source}: the harness ${why}${tail ? `:\n${tail}` : ''}` });
    }
  } finally {
    if (hostWork) await rm(hostWork, { recursive: true, force: true });
  }
}
