// Everything a campaign needs to know about this machine, found once: the interpreter,
// where the harness lives, and how bubblewrap can contain it here (or that it cannot).
//
// Sandbox modes: `bwrap` requires the sandbox (the App's and the Action's default: pull-request
// code never runs uncontained unless the operator says so); `auto` uses it when it starts and
// says so when it does not (the CLI on your own code); `none` runs with the harness's resource
// limits and uid drop only.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { compileHarness } from './compile-harness.ts';
import { bwrapPlan, type BwrapLaunch } from './bwrap-plan.ts';
import type { HarnessProcessOptions } from './harness-process.ts';
import { harnessEnv, probePython, type PythonInfo } from './sandbox.ts';

export const HARNESS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../harness');

export type SandboxMode = 'auto' | 'bwrap' | 'none';
export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'bwrap', 'none'];

export interface PrepareOptions {
  python: string;
  sandbox: SandboxMode;
  /** Folders to look for `bwrap`, `setpriv` and `sudo` in (the adapter passes the PATH it was given). */
  searchPath: string[];
  /**
   * When plain bwrap is refused, try it through `sudo -n` (GitHub's ubuntu-24.04 runners: AppArmor
   * blocks unprivileged user namespaces, and the runner has passwordless sudo). The Action only.
   */
  allowSudo?: boolean;
  fileTimeoutMs?: number;
  workBytes?: number;
  /** Where the Python package `crashprobe` lives; a bundle that ships it beside itself passes its own copy. */
  harnessDir?: string;
  /** The caller's uid (tests pass one); default: this process's. */
  uid?: number;
}

export interface PreparedHarness {
  options: HarnessProcessOptions;
  /** Said once to the user: e.g. that bubblewrap is missing and only the limits apply. */
  notices: string[];
}

/** The sandbox is required and cannot start here: the message says why and how to fix it. */
export class SandboxUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxUnavailableError';
  }
}

export const SANDBOX_FIX =
  'install bubblewrap (apt-get install bubblewrap) where user namespaces are allowed (sysctl kernel.unprivileged_userns_clone=1; ' +
  'on Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap; in Docker, ' +
  '--security-opt seccomp=unconfined or a seccomp profile that allows clone/unshare of namespaces), or run crashprobe ' +
  'with passwordless sudo (the Action tries `sudo -n bwrap`). Only for code you trust, the operator may set ' +
  'CRASHPROBE_ALLOW_UNSANDBOXED=1 in the deployment\'s environment (never the repository config).';

function findOnPath(name: string, dirs: string[]): string | undefined {
  return dirs.map((dir) => path.join(dir, name)).find((candidate) => existsSync(candidate));
}

const PROBE = [
  'import os',
  'f=dict(l.split(":",1) for l in open("/proc/self/status").read().splitlines() if ":" in l)',
  'cap=f.get("CapEff","").strip();nnp=f.get("NoNewPrivs","").strip()',
  'print("crashprobe-sandbox-ok" if cap.strip("0")=="" and nnp=="1" and os.getuid()==65534 and not os.path.exists("/etc/passwd")',
  '      else "crashprobe-sandbox-weak CapEff=%s NoNewPrivs=%s uid=%d" % (cap, nnp, os.getuid()))',
].join('\n');

interface Attempt {
  launch: BwrapLaunch;
  label: string;
}

/** Runs a one-line Python check in the sandbox this launch makes; undefined when it holds, else why not. */
async function probeLaunch(bwrap: string, launch: BwrapLaunch, python: PythonInfo, harnessDir: string): Promise<string | undefined> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-probe-'));
  try {
    await writeFile(path.join(root, 'probe.txt'), 'probe\n');
    const plan = bwrapPlan({
      bwrap,
      launch,
      python,
      root,
      harnessDir,
      workBytes: 16 * 1024 * 1024,
      env: harnessEnv(harnessDir),
      run: [python.executable, '-c', PROBE],
    });
    const result = await execa(plan.command, plan.args, {
      reject: false,
      timeout: 20_000,
      extendEnv: false,
      env: harnessEnv(harnessDir),
      stdin: 'ignore',
    });
    const out = String(result.stdout ?? '').trim();
    if (out === 'crashprobe-sandbox-ok') return undefined;
    if (out.startsWith('crashprobe-sandbox-weak')) return `the sandbox started without holding: ${out}`;
    const err = String(result.stderr ?? '').trim().split('\n').filter(Boolean).slice(-2).join(' / ');
    return err || result.shortMessage || `exit code ${result.exitCode}`;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function sudoWorks(sudo: string): Promise<boolean> {
  const result = await execa(sudo, ['-n', 'true'], { reject: false, timeout: 10_000, stdin: 'ignore' });
  return result.exitCode === 0;
}

export interface SandboxChoice {
  bwrap?: string;
  launch?: BwrapLaunch;
  /** Why no sandbox, when there is none (already phrased for the user). */
  problem?: string;
  /** How it was started, for the log: e.g. "bwrap through sudo -n, nested". */
  how?: string;
}

/** Finds a way to start bubblewrap here, trying the plain ways first and sudo last (when allowed). */
export async function findSandbox(options: PrepareOptions, python: PythonInfo, harnessDir: string): Promise<SandboxChoice> {
  const bwrap = findOnPath('bwrap', options.searchPath);
  if (!bwrap) return { problem: 'bubblewrap (bwrap) is not installed' };
  const setpriv = findOnPath('setpriv', options.searchPath);
  const root = (options.uid ?? (typeof process.getuid === 'function' ? process.getuid() : 1000)) === 0;
  const attempts: Attempt[] = [];
  // As root (or through sudo) the best shape first: a user namespace and the host's nobody; then
  // the host's nobody without a user namespace (where AppArmor refuses the unprivileged inner
  // bwrap one, as on GitHub's ubuntu-24.04 runners); last a user namespace mapped to root.
  const shapes = (via: string[], asRoot: boolean, label: string): Attempt[] => [
    ...(asRoot && setpriv
      ? [
          { launch: { via, nested: { setpriv } }, label: `${label}, nested (a user namespace, host uid 65534)` },
          { launch: { via, nested: { setpriv, userns: false } }, label: `${label}, then setpriv (host uid 65534, no user namespace)` },
        ]
      : []),
    { launch: { via }, label },
  ];
  attempts.push(...shapes([], root, 'bwrap'));
  let firstProblem: string | undefined;
  for (const attempt of attempts) {
    const problem = await probeLaunch(bwrap, attempt.launch, python, harnessDir);
    if (!problem) return { bwrap, launch: attempt.launch, how: attempt.label };
    firstProblem ??= problem;
  }
  if (options.allowSudo && !root) {
    const sudo = findOnPath('sudo', options.searchPath);
    if (sudo && (await sudoWorks(sudo))) {
      for (const attempt of shapes([sudo, '-n'], true, 'bwrap through sudo -n')) {
        const problem = await probeLaunch(bwrap, attempt.launch, python, harnessDir);
        if (!problem) return { bwrap, launch: attempt.launch, how: attempt.label };
      }
    }
  }
  return { problem: `bubblewrap at ${bwrap} could not create a sandbox (a user namespace) here: ${firstProblem}` };
}

export async function prepareHarness(options: PrepareOptions): Promise<PreparedHarness> {
  const python = await probePython(options.python);
  const harnessDir = options.harnessDir ?? HARNESS_DIR;
  await compileHarness(python.executable, harnessDir);
  const notices: string[] = [];
  let choice: SandboxChoice = {};
  if (options.sandbox !== 'none') {
    choice = await findSandbox(options, python, harnessDir);
    if (choice.problem) {
      if (options.sandbox === 'bwrap') {
        throw new SandboxUnavailableError(`crash tests skipped: ${choice.problem}. Fix: ${SANDBOX_FIX}`);
      }
      notices.push(
        `${choice.problem}: crash runs keep their resource limits, the drop to nobody and timeouts but have no namespace sandbox ` +
          '(pull-request code must never run like this; the App and the Action refuse to)',
      );
    } else if (choice.launch?.via.length) {
      notices.push(`the sandbox runs ${choice.how}: plain bubblewrap is refused here (AppArmor or no user namespaces)`);
    }
  }
  return {
    options: {
      python,
      harnessDir,
      bwrap: choice.problem ? undefined : choice.bwrap,
      bwrapLaunch: choice.problem ? undefined : choice.launch,
      runningAsRoot: (options.uid ?? (typeof process.getuid === 'function' ? process.getuid() : 1000)) === 0,
      fileTimeoutMs: options.fileTimeoutMs ?? 15 * 60_000,
      workBytes: options.workBytes ?? 512 * 1024 * 1024,
    },
    notices,
  };
}

export function defaultConcurrency(): number {
  return Math.max(1, os.availableParallelism());
}
