// How the harness process is contained: the interpreter it runs (probePython), the clean
// environment it gets, and the bubblewrap command line (bwrap-plan.ts; prepare.ts decides
// whether bubblewrap can start here and refuses when it must). Without bubblewrap the
// harness still applies its resource limits, the drop to `nobody` and wall-clock timeouts.
import { execa } from 'execa';
import type { PythonInfo } from './python-info.ts';

export type { PythonInfo } from './python-info.ts';

// Prints one JSON object; no realpath of sys.executable itself (see PythonInfo.executable).
// Run with -I -S: no site processing, so no .pth file or sitecustomize of the environment
// runs outside the sandbox; the venv (pyvenv.cfg beside bin/) is found by hand, as site does
// on Python before 3.11.
const PROBE_SCRIPT = [
  'import json,os,site,sys',
  'r=os.path.realpath',
  'e=sys.executable',
  'd=os.path.dirname(e)',
  'venv=next((c for c in (os.path.dirname(d),d) if os.path.isfile(os.path.join(c,"pyvenv.cfg"))),None)',
  'pre=[venv] if venv else [sys.prefix,sys.exec_prefix]',
  'own=[os.path.join(venv,"lib","python%d.%d"%sys.version_info[:2],"site-packages")] if venv else []',
  'sp=list(dict.fromkeys(r(p) for p in own+site.getsitepackages(pre) if os.path.isdir(p)))',
  'paths=[sys.base_prefix,getattr(sys,"base_exec_prefix",sys.exec_prefix),os.path.dirname(r(e))]+pre+sp',
  'print(json.dumps({"executable":os.path.join(r(d),os.path.basename(e)),"prefix":r(sys.base_prefix),',
  '"version":"%d.%d"%sys.version_info[:2],"isVenv":venv is not None,"sitePackages":sp,"paths":[r(p) for p in paths if p]}))',
].join('\n');

/** Real paths, without duplicates or folders already inside another one of them. */
export function outermostPaths(paths: readonly string[]): string[] {
  const unique = [...new Set(paths.filter(Boolean))].sort((a, b) => a.length - b.length || a.localeCompare(b));
  const kept: string[] = [];
  for (const p of unique) {
    if (!kept.some((k) => p === k || p.startsWith(k.endsWith('/') ? k : `${k}/`))) kept.push(p);
  }
  return kept;
}

export async function probePython(python: string): Promise<PythonInfo> {
  const result = await execa(python, ['-I', '-S', '-c', PROBE_SCRIPT], {
    reject: false,
    extendEnv: false,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
    timeout: 30_000,
  });
  if (result.exitCode !== 0 || result.failed) {
    throw new Error(`Python interpreter ${python} does not run (${result.shortMessage ?? result.stderr}); install python3 3.9+ or pass --python`);
  }
  let facts: { executable: string; prefix: string; version: string; isVenv: boolean; sitePackages: string[]; paths: string[] };
  try {
    facts = JSON.parse(String(result.stdout).trim().split('\n').pop() ?? '');
  } catch {
    throw new Error(`Python interpreter ${python} printed something unexpected when asked for its paths: ${String(result.stdout).slice(0, 200)}`);
  }
  const [major, minor] = facts.version.split('.').map(Number);
  if (major !== 3 || (minor ?? 0) < 9) throw new Error(`Python ${facts.version} at ${facts.executable}: the harness needs Python 3.9 or newer`);
  return {
    executable: facts.executable,
    prefix: facts.prefix,
    version: facts.version,
    isVenv: facts.isVenv,
    sitePackages: facts.sitePackages,
    readOnlyPaths: outermostPaths(facts.paths),
  };
}

export { bwrapPlan, SANDBOX_WORK, type BwrapLaunch, type BwrapOptions, type SandboxPlan } from './bwrap-plan.ts';

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
