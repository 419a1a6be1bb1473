// Builds (or reuses) the virtual environment of a repository's dependency set for
// the App: pip inside the install sandbox, reaching only the package index through
// the allow-list proxy, wheels only unless the config allows source builds, within a
// time and size limit; then checked from outside (its interpreter and pyvenv.cfg
// are rewritten by crashprobe, its paths must stay inside its folder) before any
// crash run uses it read-only and without network.
//
// The App only (app-provisioner.ts, when `harness.dependencies` is not off); the CLI and
// the Action take the project's environment (--python, the `python` input) instead.
//
// uv is used instead of pip when the App has it (ProvisionRequest.uv). PARTIAL (issue 11): uv
// itself is not installable on the machine the tests run on, so its path is tested with a
// stand-in executable (test/adapters/env/provision-uv.test.ts), not with real uv.
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readlink, rm, symlink, unlink, writeFile, lstat, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { SANDBOX_FIX } from '../harness/prepare.ts';
import { probePython, type PythonInfo } from '../harness/sandbox.ts';
import type { DependencySet } from './dependency-files.ts';
import { cacheKey, envDir, evict, folderBytes, readMeta, touch, withLock, writeMeta } from './env-cache.ts';
import { allowedHosts, startIndexProxy } from './index-proxy.ts';
import { installPlan, SANDBOX_UV } from './install-sandbox.ts';
import type { EnvSettings } from './settings.ts';

export interface ProvisionRequest {
  /** owner/name (with the installation): the cache is scoped to it. */
  repo: string;
  deps: DependencySet;
  /** The interpreter the environment is made from. */
  base: PythonInfo;
  /** A working bubblewrap: without one nothing is installed. */
  bwrap: string;
  allowSdist: boolean;
  /** uv on the App's server: it installs instead of pip. */
  uv?: string;
}

export type ProvisionResult =
  | { ok: true; python: PythonInfo; dir: string; key: string; built: boolean; seconds: number; evicted: number }
  | { ok: false; reason: string };

const inFlight = new Map<string, Promise<ProvisionResult>>();

/** An environment taken up this recently may still be under a review's crash runs (a job's time limit is about this long). */
const IN_USE_MS = 30 * 60_000;

export function provisionEnvironment(request: ProvisionRequest, settings: EnvSettings): Promise<ProvisionResult> {
  const key = cacheKey({
    python: [request.base.executable, request.base.version],
    mode: request.deps.mode,
    sources: request.deps.sources,
    requirements: request.deps.requirements,
    constraints: request.deps.constraints,
    index: settings.indexUrl,
    sdist: request.allowSdist,
    installer: request.uv ? 'uv' : 'pip',
  });
  const dir = envDir(settings.cacheDir, request.repo, key);
  const running = inFlight.get(dir);
  if (running) return running;
  const started = build(dir, key, request, settings).finally(() => inFlight.delete(dir));
  inFlight.set(dir, started);
  return started;
}

async function build(dir: string, key: string, request: ProvisionRequest, settings: EnvSettings): Promise<ProvisionResult> {
  const t0 = Date.now();
  await mkdir(settings.cacheDir, { recursive: true, mode: 0o700 });
  const staleMs = settings.timeoutMs + 60_000;
  return withLock(dir, staleMs, async () => {
    const existing = await readMeta(dir);
    if (existing) {
      const python = await checkedPython(dir, request.base).catch(() => undefined);
      if (python) {
        await touch(dir);
        return { ok: true as const, python, dir, key, built: false, seconds: (Date.now() - t0) / 1000, evicted: 0 };
      }
    }
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true, mode: 0o755 });
    const outcome = await install(dir, request, settings);
    if (!outcome.ok) {
      await rm(dir, { recursive: true, force: true });
      return outcome;
    }
    let python: PythonInfo;
    try {
      python = await checkedPython(dir, request.base, true);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      return { ok: false as const, reason: (error as Error).message };
    }
    const bytes = await folderBytes(dir);
    await writeMeta(dir, {
      format: 1,
      key,
      repo: request.repo,
      python: `${request.base.executable} ${request.base.version}`,
      sources: request.deps.sources.map((s) => s.path),
      bytes,
      createdAt: new Date().toISOString(),
    });
    const evicted = await evict(settings.cacheDir, settings.budgetBytes, dir, staleMs, IN_USE_MS);
    return { ok: true as const, python, dir, key, built: true, seconds: (Date.now() - t0) / 1000, evicted: evicted.length };
  });
}

async function install(dir: string, request: ProvisionRequest, settings: EnvSettings): Promise<{ ok: true } | { ok: false; reason: string }> {
  const inputDir = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-deps-'));
  const proxy = await startIndexProxy(allowedHosts(settings.indexUrl, settings.extraHosts));
  const index = new URL(settings.indexUrl);
  try {
    await writeFile(path.join(inputDir, 'requirements.txt'), request.deps.requirements.join('\n') + '\n');
    await writeFile(path.join(inputDir, 'constraints.txt'), request.deps.constraints.join('\n') + '\n');
    const plan = installPlan({
      bwrap: request.bwrap,
      python: request.base,
      envDir: dir,
      inputDir,
      proxyDir: path.dirname(proxy.socketPath),
      tmpBytes: settings.tmpBytes,
      uv: request.uv,
      scriptConfig: {
        venv: path.join(dir, 'venv'),
        index_url: settings.indexUrl,
        trusted_host: index.protocol === 'http:' ? index.hostname : undefined,
        only_binary: !request.allowSdist,
        constraints: request.deps.constraints.length > 0,
        max_file_bytes: settings.maxEnvBytes,
        memory_bytes: settings.memoryBytes,
        ...(request.uv ? { uv: SANDBOX_UV } : {}),
      },
    });
    const child = execa(plan.command, plan.args, {
      reject: false,
      extendEnv: false,
      env: {},
      timeout: settings.timeoutMs,
      killSignal: 'SIGKILL',
      stdin: 'ignore',
      all: true,
      maxBuffer: 4 * 1024 * 1024,
    });
    let tooBig = false;
    const watch = setInterval(() => {
      void folderBytes(dir).then((bytes) => {
        if (bytes > settings.maxEnvBytes && !tooBig) {
          tooBig = true;
          child.kill('SIGKILL');
        }
      });
    }, 1000);
    const result = await child.finally(() => clearInterval(watch));
    if (result.exitCode === 0 && !tooBig) return { ok: true };
    // A file over the limit (RLIMIT_FSIZE) fails its write with EFBIG (Python ignores SIGXFSZ), or ends a
    // writer that does not with SIGXFSZ, often before the watcher sees the folder grow.
    if (/\[Errno 27\] File too large|failed with exit code -25\b/.test(String(result.all ?? ''))) tooBig = true;
    const why = tooBig
      ? `the environment grew past ${Math.round(settings.maxEnvBytes / 1024 / 1024)} MB (CRASHPROBE_ENV_MAX_MB)`
      : result.timedOut
        ? `the install took longer than ${Math.round(settings.timeoutMs / 1000)} s (CRASHPROBE_ENV_TIMEOUT_SECONDS)`
        : !String(result.all ?? '').includes('crashprobe-install:')
          ? `the install sandbox (bubblewrap) did not start (${String(result.all ?? '').trim().split('\n').slice(-2).join(' / ').slice(0, 300) || `exit code ${result.exitCode}`}). Fix: ${SANDBOX_FIX}`
          : installerErrors(String(result.all ?? ''), request.uv ? 'uv' : 'pip');
    const refused = proxy.refused.length ? ` The install tried to reach ${proxy.refused.join(', ')}, which is not the package index; refused.` : '';
    return { ok: false, reason: `${why}${refused}` };
  } finally {
    await proxy.close();
    await rm(inputDir, { recursive: true, force: true });
  }
}

/** The installer's error lines (pip's `ERROR:`, uv's `error:` and `×`; what the maintainer needs), else the last lines of its output. */
export function installerErrors(output: string, installer: 'pip' | 'uv' = 'pip'): string {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  const errors = lines.filter((l) => (installer === 'pip' ? /^ERROR:/ : /^(error:|×)/).test(l));
  const chosen = (errors.length ? errors : lines.slice(-4)).slice(0, 4).map((l) => l.slice(0, 300));
  return chosen.length ? `${installer}: ${chosen.join(' ')}` : 'the install sandbox ended without output';
}

/**
 * The environment's interpreter, made trustworthy from outside: bin/python* are
 * replaced by crashprobe's own symlinks to the base interpreter and pyvenv.cfg
 * rewritten (code the install ran could have changed either, and the App probes the
 * interpreter outside any sandbox), and every path it reports must be the base's or
 * inside the environment's folder.
 */
async function checkedPython(dir: string, base: PythonInfo, rewrite = false): Promise<PythonInfo> {
  const venv = path.join(dir, 'venv');
  const bin = path.join(venv, 'bin');
  const baseBinary = realpathSync(base.executable);
  if (rewrite) {
    if ((await lstat(bin)).isSymbolicLink()) throw new Error('the environment\'s bin folder was replaced by a symlink during the install');
    for (const name of await readdir(bin)) {
      if (/^python[0-9.]*$/.test(name)) await unlink(path.join(bin, name));
    }
    for (const name of ['python', 'python3', `python${base.version}`]) await symlink(baseBinary, path.join(bin, name));
    const full = await execa(baseBinary, ['-I', '-S', '-c', 'import platform;print(platform.python_version())'], { extendEnv: false, env: {} });
    await writeFile(
      path.join(venv, 'pyvenv.cfg'),
      `home = ${path.dirname(baseBinary)}\ninclude-system-site-packages = false\nversion = ${String(full.stdout).trim()}\n`,
    );
  } else {
    const link = await readlink(path.join(bin, 'python')).catch(() => '');
    if (link !== baseBinary) throw new Error('the cached environment\'s interpreter is not crashprobe\'s own symlink');
  }
  const realDir = realpathSync(dir);
  const python = await probePython(path.join(bin, 'python'));
  const inside = (p: string) => p === realDir || p.startsWith(realDir + path.sep);
  const bad = python.readOnlyPaths.filter((p) => !inside(p) && !base.readOnlyPaths.some((b) => p === b || p.startsWith(b + path.sep)));
  if (bad.length || !python.isVenv) {
    throw new Error(`the built environment points outside its folder (${bad.join(', ') || 'not a virtual environment'}); not used`);
  }
  if (!python.sitePackages.every(inside)) throw new Error('the built environment\'s site-packages lead outside its folder; not used');
  return python;
}

export function hasEnvironment(dir: string): boolean {
  return existsSync(path.join(dir, 'meta.json'));
}
