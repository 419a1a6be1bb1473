// How the harness process is contained. bubblewrap when it works here: no network,
// the whole file system read-only, a size-limited tmpfs as the only writable place,
// a new session, and death with its parent. Where bubblewrap is missing or blocked
// (some CI runners forbid namespaces), the harness still applies its resource
// limits and wall-clock timeouts to every run, and the caller says so once.
import { execa } from 'execa';

export interface PythonInfo {
  executable: string;
  prefix: string;
  version: string;
}

export async function probePython(python: string): Promise<PythonInfo> {
  const script =
    'import os,sys;print(os.path.realpath(sys.executable));print(os.path.realpath(sys.base_prefix));print("%d.%d"%sys.version_info[:2])';
  const result = await execa(python, ['-c', script], { reject: false, extendEnv: false, env: { PATH: '/usr/local/bin:/usr/bin:/bin' } });
  if (result.exitCode !== 0 || result.failed) {
    throw new Error(`Python interpreter ${python} does not run (${result.shortMessage ?? result.stderr}); install python3 3.9+ or pass --python`);
  }
  const [executable = '', prefix = '', version = ''] = String(result.stdout).trim().split('\n');
  const [major, minor] = version.split('.').map(Number);
  if (major !== 3 || (minor ?? 0) < 9) throw new Error(`Python ${version} at ${executable}: the harness needs Python 3.9 or newer`);
  return { executable, prefix, version };
}

export async function bubblewrapWorks(bwrap: string): Promise<boolean> {
  const result = await execa(bwrap, ['--ro-bind', '/', '/', '--unshare-net', '--die-with-parent', 'true'], {
    reject: false,
    timeout: 10_000,
  });
  return result.exitCode === 0;
}

export interface SandboxPlan {
  command: string;
  args: string[];
  /** Where the harness keeps its runs, as the harness sees it. */
  work: string;
}

export interface BwrapOptions {
  bwrap: string;
  python: PythonInfo;
  root: string;
  harnessDir: string;
  workBytes: number;
  env: Record<string, string>;
  runningAsRoot: boolean;
}

export const SANDBOX_WORK = '/tmp/crashprobe-runs';

export function bwrapPlan(options: BwrapOptions): SandboxPlan {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  // Home folders may hold secrets; the interpreter may live in one (pyenv), so it is bound back alone.
  args.push('--tmpfs', '/root', '--tmpfs', '/home');
  args.push('--size', String(options.workBytes), '--tmpfs', '/tmp');
  for (const dir of [options.python.prefix, options.root, options.harnessDir]) args.push('--ro-bind', dir, dir);
  args.push('--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (!options.runningAsRoot) args.push('--unshare-user');
  args.push('--die-with-parent', '--new-session', '--clearenv');
  for (const [key, value] of Object.entries(options.env)) args.push('--setenv', key, value);
  args.push('--chdir', options.root, options.python.executable, '-m', 'crashprobe.server');
  return { command: options.bwrap, args, work: SANDBOX_WORK };
}

/** The only environment a harness process gets: nothing from the caller's, so no secrets. */
export function harnessEnv(harnessDir: string): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    PYTHONPATH: harnessDir,
    PYTHONHASHSEED: '0',
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONUNBUFFERED: '1',
    TZ: 'UTC',
    LANG: 'C.UTF-8',
    HOME: '/tmp',
  };
}
