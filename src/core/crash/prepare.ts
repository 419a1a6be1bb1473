// Everything a campaign needs to know about this machine, found once: the
// interpreter, where the harness lives, and whether bubblewrap can contain it.
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HarnessProcessOptions } from './harness-process.ts';
import { bubblewrapWorks, probePython } from './sandbox.ts';

export const HARNESS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../harness');

export interface PrepareOptions {
  python: string;
  sandbox: 'auto' | 'bwrap' | 'none';
  /** Folders to look for `bwrap` in (the adapter passes the PATH it was given). */
  searchPath: string[];
  fileTimeoutMs?: number;
  workBytes?: number;
  /** Where the Python package `crashprobe` lives; a bundle that ships it beside itself passes its own copy. */
  harnessDir?: string;
}

export interface PreparedHarness {
  options: HarnessProcessOptions;
  /** Said once to the user: e.g. that bubblewrap is missing and only the limits apply. */
  notices: string[];
}

function findOnPath(name: string, dirs: string[]): string | undefined {
  return dirs.map((dir) => path.join(dir, name)).find((candidate) => existsSync(candidate));
}

export async function prepareHarness(options: PrepareOptions): Promise<PreparedHarness> {
  const python = await probePython(options.python);
  const notices: string[] = [];
  let bwrap: string | undefined;
  if (options.sandbox !== 'none') {
    const candidate = findOnPath('bwrap', options.searchPath);
    if (candidate && (await bubblewrapWorks(candidate))) bwrap = candidate;
    else if (options.sandbox === 'bwrap') {
      throw new Error(
        candidate
          ? `bubblewrap at ${candidate} cannot create a sandbox here (namespaces blocked?); use --sandbox none to run with resource limits only`
          : 'bubblewrap (bwrap) is not installed; install it (apt-get install bubblewrap) or use --sandbox none',
      );
    } else {
      notices.push(
        candidate
          ? 'bubblewrap is blocked here: crash runs keep their resource limits and timeouts but have no namespace sandbox'
          : 'bubblewrap is not installed: crash runs keep their resource limits and timeouts but have no namespace sandbox (apt-get install bubblewrap)',
      );
    }
  }
  return {
    options: {
      python,
      harnessDir: options.harnessDir ?? HARNESS_DIR,
      bwrap,
      runningAsRoot: typeof process.getuid === 'function' && process.getuid() === 0,
      fileTimeoutMs: options.fileTimeoutMs ?? 15 * 60_000,
      workBytes: options.workBytes ?? 512 * 1024 * 1024,
    },
    notices,
  };
}

export function defaultConcurrency(): number {
  return Math.max(1, os.availableParallelism());
}
