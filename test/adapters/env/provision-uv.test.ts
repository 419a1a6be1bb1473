// The uv path of the install sandbox. Real uv cannot be installed on this machine (no
// PyPI, no crates.io), so a stand-in executable takes its place: it records what it was
// given (arguments, proxy and uv variables) and installs with pip the way `uv pip
// install` would. What this proves: uv is bound and runs inside the sandbox, gets the
// allow-list proxy and the wheels-only flag, and reads no configuration of the App's.
// It does not prove that real uv honours those flags; that stays untested here.
import { chmodSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appProvisioner } from '../../../src/adapters/env/app-provisioner.ts';
import type { DependencySet } from '../../../src/adapters/env/dependency-files.ts';
import { provisionEnvironment } from '../../../src/adapters/env/provision.ts';
import { readEnvSettings, type EnvSettings } from '../../../src/adapters/env/settings.ts';
import { probePython, type PythonInfo } from '../../../src/adapters/harness/sandbox.ts';
import { parseConfig } from '../../../src/core/config/schema.ts';
import { silentLogger } from '../../../src/core/ports.ts';
import { fixtureRepo } from './fixture-repo.ts';
import { buildWheel, startLocalIndex, type LocalIndex } from './local-index.ts';

let index: LocalIndex;
let base: PythonInfo;
let settings: EnvSettings;
let uv: string;

/** `uv pip install --python V --no-cache <common> [--allow-insecure-host H]` done by pip, with a record of the call beside the venv. */
function standIn(python: string): string {
  return `#!${python} -I
import json, os, subprocess, sys
argv = sys.argv[1:]
venv_python = argv[argv.index("--python") + 1]
record = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(venv_python))), "uv-call.json")
keys = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "UV_NO_CONFIG", "UV_PYTHON_DOWNLOADS", "UV_CACHE_DIR", "HOME")
with open(record, "w") as f:
    json.dump({"argv": argv, "env": {k: os.environ.get(k) for k in keys}}, f)
assert argv[:2] == ["pip", "install"], argv
rest, translated, i = argv[2:], [], 0
while i < len(rest):
    a = rest[i]
    if a == "--python":
        i += 2
        continue
    if a == "--no-cache":
        translated.append("--no-cache-dir")
    elif a == "--allow-insecure-host":
        translated.append("--trusted-host")
    else:
        translated.append(a)
    i += 1
cmd = [sys.executable, "-m", "pip", "--python", venv_python, "install", "--disable-pip-version-check", "--proxy", os.environ["HTTPS_PROXY"]] + translated
sys.exit(subprocess.run(cmd).returncode)
`;
}

const deps = (requirements: string[]): DependencySet => ({
  mode: 'requirements',
  sources: [{ path: 'requirements.txt', text: requirements.join('\n') }],
  requirements,
  constraints: [],
  notes: [],
});

beforeAll(async () => {
  const wheels = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-wheels-'));
  await buildWheel(wheels, { name: 'tinydep', version: '1.0', files: { 'tinydep/__init__.py': 'def double(x):\n    return 2 * x\n' } });
  index = await startLocalIndex(wheels);
  base = await probePython('python3');
  const bin = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-uvbin-'));
  uv = path.join(bin, 'uv');
  writeFileSync(uv, standIn(realpathSync(base.executable)));
  chmodSync(uv, 0o755);
  const statePath = path.join(mkdtempSync(path.join(os.tmpdir(), 'crashprobe-state-')), 'state.db');
  settings = readEnvSettings({ CRASHPROBE_PIP_INDEX_URL: index.url, CRASHPROBE_ENV_TIMEOUT_SECONDS: '120' }, statePath).settings;
}, 60_000);
afterAll(async () => index?.close());

describe('provisionEnvironment with uv', () => {
  it('runs uv inside the sandbox with only the allow-list proxy, wheels only, and no configuration of its own', async () => {
    const result = await provisionEnvironment({ repo: 'acme/shop', deps: deps(['tinydep==1.0']), base, bwrap: '/usr/bin/bwrap', allowSdist: false, uv }, settings);
    if (!result.ok) throw new Error(result.reason);
    const call = JSON.parse(readFileSync(path.join(result.dir, 'uv-call.json'), 'utf8')) as { argv: string[]; env: Record<string, string | null> };
    expect(call.argv.slice(0, 5)).toEqual(['pip', 'install', '--python', path.join(result.dir, 'venv', 'bin', 'python'), '--no-cache']);
    expect(call.argv.join(' ')).toContain('--only-binary :all:');
    expect(call.argv.join(' ')).toContain(`--index-url ${settings.indexUrl}`);
    expect(call.env.HTTPS_PROXY).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(call.env.HTTPS_PROXY).not.toContain(String(new URL(index.url).port));
    expect(call.env).toMatchObject({ UV_NO_CONFIG: '1', UV_PYTHON_DOWNLOADS: 'never', HOME: '/tmp' });
    expect(index.requests).toContain('GET /simple/tinydep/');
    const run = await execa(result.python.executable, ['-c', 'import tinydep; print(tinydep.double(21))']);
    expect(run.stdout).toBe('42');
  }, 180_000);

  it('keeps the environments pip and uv build apart in the cache', async () => {
    const byUv = await provisionEnvironment({ repo: 'acme/shop', deps: deps(['tinydep==1.0']), base, bwrap: '/usr/bin/bwrap', allowSdist: false, uv }, settings);
    const byPip = await provisionEnvironment({ repo: 'acme/shop', deps: deps(['tinydep==1.0']), base, bwrap: '/usr/bin/bwrap', allowSdist: false }, settings);
    if (!byUv.ok || !byPip.ok) throw new Error('provisioning failed');
    expect(byUv.dir).not.toBe(byPip.dir);
  }, 180_000);
});

describe('CRASHPROBE_ENV_INSTALLER', () => {
  it('refuses an unknown installer by name', () => {
    expect(readEnvSettings({ CRASHPROBE_ENV_INSTALLER: 'conda' }, '/tmp/s.db').problems).toEqual(['CRASHPROBE_ENV_INSTALLER must be auto, pip or uv, not "conda"']);
  });

  it('says what to do when uv is asked for and the App has none', async () => {
    const bin = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-bin-'));
    symlinkSync('/usr/bin/bwrap', path.join(bin, 'bwrap'));
    const { root } = fixtureRepo('tinydep\n');
    const env = await appProvisioner({ ...settings, installer: 'uv' }, { python: 'python3', searchPath: [bin] })({
      repo: '1/a/b',
      root,
      config: parseConfig({ harness: { dependencies: 'requirements' } }),
      logger: silentLogger,
    });
    expect(env.python).toBeUndefined();
    expect(env.notes.at(-1)).toBe(
      "Dependencies were not installed: CRASHPROBE_ENV_INSTALLER is uv, but the App has no uv on its PATH. Fix: install uv on the App's server, or set CRASHPROBE_ENV_INSTALLER=auto to use pip.",
    );
  });
});
