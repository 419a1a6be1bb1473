// The bubblewrap command line that contains one harness process. What the sandbox sees is
// built from nothing: the interpreter's own folders, the shared libraries, the harness's own
// Python package, the repository read-only without `.git`, a scenario file that lives outside
// it (the file alone), and a size-limited tmpfs as the only writable place. Nothing else of /etc, /var, /opt, /srv, /run, /home, /root,
// the App's folder, its key or its state file exists inside. Always a user namespace mapped
// to `nobody`, every capability dropped, no_new_privs (bwrap sets it), no further user
// namespaces, no network, a new pid namespace (so /proc shows only the sandbox).
//
// Two shapes:
// - single: one bwrap with --unshare-user. As a normal user the sandbox's uid is that user on
//   the host, so the kernel's process-count limit (RLIMIT_NPROC) holds.
// - nested (when the caller is root, directly or through sudo): a root-owned uid inside a user
//   namespace is still uid 0 to the kernel, which never applies RLIMIT_NPROC to it. So an outer
//   bwrap (as root) builds the view, `setpriv` becomes the host's `nobody`, and an inner bwrap
//   makes the user namespace; the harness then runs as host uid 65534 and the limit holds.
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { PythonInfo } from './python-info.ts';

export const SANDBOX_WORK = '/tmp/crashprobe-runs';
export const NOBODY = 65534;

export interface BwrapLaunch {
  /** Commands bwrap runs through, e.g. ['sudo', '-n'] on a runner where plain bwrap is refused. */
  via: string[];
  /**
   * Root: outer bwrap, then `setpriv` to the host's nobody, then the inner bwrap (see the top of
   * this file). `userns: false` (GitHub's ubuntu-24.04 runner through sudo, where AppArmor refuses
   * the unprivileged inner bwrap its user namespace): no inner bwrap; setpriv itself drops every
   * capability and sets no_new_privs, and the harness runs as the host's nobody in the outer
   * bwrap's mount, pid, network, IPC and UTS namespaces.
   */
  nested?: { setpriv: string; userns?: boolean };
}

export interface BwrapOptions {
  bwrap: string;
  launch?: BwrapLaunch;
  python: PythonInfo;
  root: string;
  /**
   * Single files bound read-only: a scenario file outside the root, or the real file a scenario
   * symlink in the root points to (issue 10 item 5). `source` is a real path; `target` the path
   * the harness opens.
   */
  extraFiles?: Array<{ source: string; target: string }>;
  harnessDir: string;
  workBytes: number;
  env: Record<string, string>;
  /** What runs inside; default: the harness server. */
  run?: string[];
}

export interface SandboxPlan {
  command: string;
  args: string[];
  /** Where the harness keeps its runs, as the harness sees it. */
  work: string;
}

/** Folders that are never bound whole, even when the interpreter names one as its prefix. */
const BROAD = new Set(['/', '/usr', '/usr/local', '/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/opt', '/home', '/root', '/etc', '/var', '/srv', '/run', '/tmp']);
/** The shared libraries: bound (or, where they are symlinks as on merged-/usr systems, linked) when present. */
const LIBRARY_DIRS = ['/usr/lib', '/usr/lib64', '/usr/lib32', '/lib', '/lib64', '/lib32'];
/** The only file of /etc inside: the dynamic loader's cache (no secrets, and libraries load faster). */
const ETC_FILES = ['/etc/ld.so.cache'];

const othersCanEnter = (p: string): boolean => {
  try {
    return (statSync(p).mode & 0o005) === 0o005;
  } catch {
    return false;
  }
};

/** Builds the bind list, creating every mount point's parent as 0755 (bwrap would make them 0700). */
class View {
  readonly args: string[] = [];
  private readonly made = new Set<string>(['/']);
  /** Folders bound whole: what lies inside them is already there and cannot be created again. */
  private readonly boundDirs: string[] = [];

  constructor(private readonly nested: boolean) {}

  private parents(target: string): void {
    const parts = path.dirname(target).split('/').filter(Boolean);
    let at = '';
    for (const part of parts) {
      at += `/${part}`;
      if (this.made.has(at)) continue;
      this.made.add(at);
      this.args.push('--perms', '0755', '--dir', at);
    }
  }

  raw(...args: string[]): void {
    this.args.push(...args);
  }

  mark(target: string): void {
    this.made.add(target);
  }

  dir(target: string): void {
    this.parents(target);
    if (this.made.has(target)) return;
    this.made.add(target);
    this.args.push('--perms', '0755', '--dir', target);
  }

  /** True when `target` lies inside a folder bound whole (bwrap cannot make a mount point there). */
  covered(target: string): boolean {
    return this.boundDirs.some((dir) => target.startsWith(`${dir}/`));
  }

  symlink(linkText: string, target: string): void {
    if (this.covered(target)) return; // the folder bound whole already shows this link
    this.parents(target);
    this.made.add(target);
    this.args.push('--symlink', linkText, target);
  }

  /** Read-only bind of `source` at `target` (a symlink source is bound as what it points to). */
  bind(source: string, target = source): void {
    this.parents(target);
    this.made.add(target);
    this.args.push('--ro-bind', source, target);
    try {
      if (statSync(source).isDirectory()) this.boundDirs.push(target);
    } catch {
      // a missing source makes bwrap fail with its own message
    }
  }

  /** Covers `.git` inside a folder bound whole: an empty tmpfs over a folder, /dev/null over a file (a worktree's link). */
  private hideGit(source: string, target: string): void {
    const at = path.join(target, '.git');
    let info;
    try {
      info = lstatSync(path.join(source, '.git'));
    } catch {
      return;
    }
    if (info.isDirectory()) this.args.push('--perms', '0000', '--tmpfs', at);
    else if (!info.isSymbolicLink()) this.args.push('--ro-bind', '/dev/null', at);
  }

  /**
   * A folder read-only without its `.git`. Its entries are bound one by one into a fresh 0755
   * folder, so the folder's own mode (mkdtemp makes 0700) does not lock out the nested
   * sandbox's `nobody`, and a symlink entry is recreated as a symlink, never followed on the host.
   */
  tree(source: string, target = source): void {
    let entries: string[];
    try {
      entries = readdirSync(source).sort();
    } catch {
      return;
    }
    if (this.covered(target)) {
      // Already visible through a folder bound whole (a repository inside the interpreter's or
      // another bound folder): only its `.git` must still be hidden.
      if (entries.includes('.git')) this.hideGit(source, target);
      return;
    }
    if (!this.nested && othersCanEnter(source) && !entries.includes('.git')) {
      this.bind(source, target);
      return;
    }
    this.dir(target);
    for (const name of entries) {
      if (name === '.git') continue; // a checkout's token lives in .git/config: never bound
      const from = path.join(source, name);
      const to = path.join(target, name);
      let info;
      try {
        info = lstatSync(from);
      } catch {
        continue;
      }
      if (info.isSymbolicLink()) this.symlink(readlinkSync(from), to);
      else this.bind(from, to);
    }
  }
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The interpreter's folders, narrowed where a prefix is a system-wide folder such as /usr. */
export function interpreterPaths(python: PythonInfo): { dirs: string[]; files: string[] } {
  const wanted = python.readOnlyPaths?.length ? python.readOnlyPaths : [python.prefix];
  const dirs: string[] = [];
  const files: string[] = [];
  for (const p of wanted) {
    if (!BROAD.has(p)) {
      dirs.push(p);
      continue;
    }
    // /usr or /usr/local as the prefix: its lib folders hold the standard library, site-packages
    // and libpython; bin folders: only the interpreter itself below.
    if (p === '/usr' || p === '/usr/local') for (const lib of ['lib', 'lib64']) dirs.push(path.join(p, lib));
  }
  const executable = python.executable;
  const realExecutable = real(executable);
  if (!dirs.some((d) => realExecutable.startsWith(`${d}/`))) files.push(realExecutable);
  if (executable !== realExecutable && !dirs.some((d) => executable.startsWith(`${d}/`))) files.push(executable);
  return { dirs: dirs.filter((d) => existsSync(d)), files };
}

function buildView(options: BwrapOptions, nested: boolean): View {
  const view = new View(nested);
  view.raw('--dev', '/dev', '--proc', '/proc');
  view.mark('/dev');
  view.mark('/proc');
  view.raw('--size', String(options.workBytes), '--perms', '1777', '--tmpfs', '/tmp');
  view.mark('/tmp');
  for (const dir of LIBRARY_DIRS) {
    if (!existsSync(dir)) continue;
    const info = lstatSync(dir);
    if (info.isSymbolicLink()) view.symlink(readlinkSync(dir), dir);
    else view.bind(dir);
  }
  for (const file of ETC_FILES) if (existsSync(file)) view.bind(file);
  const { dirs, files } = interpreterPaths(options.python);
  for (const dir of dirs) if (!LIBRARY_DIRS.includes(dir)) view.tree(real(dir), dir);
  for (const file of files) view.bind(real(file), file);
  view.tree(real(options.root), options.root);
  for (const { source, target } of options.extraFiles ?? []) if (!view.covered(target)) view.bind(source, target);
  // Only the harness's own package (PYTHONPATH is its parent): the rest of the harness folder
  // (reference suites, corpora) is not the sandbox's business. Bound last, so a repository that
  // holds crashprobe itself shows the harness's copy, not the pull request's.
  const pkg = path.join(options.harnessDir, 'crashprobe');
  view.bind(real(pkg), pkg);
  // The root is a tmpfs bwrap made; as root (single shape) its folders would be the sandbox's to
  // write. Only /tmp (and /dev's shared memory) stay writable.
  view.raw('--remount-ro', '/');
  return view;
}

const NAMESPACES = ['--unshare-user', '--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
const IDENTITY = ['--uid', String(NOBODY), '--gid', String(NOBODY), '--cap-drop', 'ALL', '--disable-userns'];

function tail(options: BwrapOptions): string[] {
  const args = ['--die-with-parent', '--new-session', '--clearenv'];
  for (const [key, value] of Object.entries(options.env)) args.push('--setenv', key, value);
  args.push('--chdir', options.root, ...(options.run ?? [options.python.executable, '-m', 'crashprobe.server']));
  return args;
}

/** setpriv to the host's nobody with nothing left of root: no groups, no capability in any set. */
function setprivArgs(setpriv: string): string[] {
  return [setpriv, '--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', '--bounding-set', '-all', '--inh-caps', '-all'];
}

export function bwrapPlan(options: BwrapOptions): SandboxPlan {
  const via = options.launch?.via ?? [];
  const nested = options.launch?.nested;
  let args: string[];
  if (!nested) {
    args = [...buildView(options, false).args, ...NAMESPACES, ...IDENTITY, ...tail(options)];
  } else if (nested.userns === false) {
    const view = buildView(options, true);
    view.bind(real(nested.setpriv), nested.setpriv);
    args = [
      ...view.args,
      ...NAMESPACES.filter((flag) => flag !== '--unshare-user'),
      '--die-with-parent', '--new-session', '--clearenv',
      ...Object.entries(options.env).flatMap(([key, value]) => ['--setenv', key, value]),
      '--chdir', options.root,
      ...setprivArgs(nested.setpriv), '--no-new-privs', '--',
      ...(options.run ?? [options.python.executable, '-m', 'crashprobe.server']),
    ];
  } else {
    const view = buildView(options, true);
    view.bind(real(nested.setpriv), nested.setpriv);
    view.bind(real(options.bwrap), options.bwrap);
    args = [
      ...view.args,
      // The outer bwrap keeps root only to build the view; setpriv then leaves root for good.
      '--unshare-pid', '--unshare-net', '--die-with-parent', '--new-session',
      ...setprivArgs(nested.setpriv), '--',
      options.bwrap,
      // The inner view is the outer one: read-only, with the tmpfs writable and the devices usable.
      '--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev', '--bind', '/tmp', '/tmp',
      ...NAMESPACES.filter((flag) => flag !== '--unshare-pid'), ...IDENTITY, ...tail(options),
    ];
  }
  const [command, ...prefix] = [...via, options.bwrap];
  return { command: command as string, args: [...prefix, ...args], work: SANDBOX_WORK };
}
