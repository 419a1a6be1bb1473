// End to end on this machine: wheels built by make_wheel.py, served by a local PEP 503
// index, installed by pip inside the install sandbox that reaches only that index.
import { mkdtempSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DependencySet } from '../../../src/adapters/env/dependency-files.ts';
import { cacheKey, envDir } from '../../../src/adapters/env/env-cache.ts';
import { provisionEnvironment } from '../../../src/adapters/env/provision.ts';
import { readEnvSettings, type EnvSettings } from '../../../src/adapters/env/settings.ts';
import { probePython, type PythonInfo } from '../../../src/adapters/harness/sandbox.ts';
import { buildWheel, startLocalIndex, type LocalIndex } from './local-index.ts';

let index: LocalIndex;
let wheels: string;
let base: PythonInfo;
let settings: EnvSettings;

const deps = (requirements: string[], text = requirements.join('\n')): DependencySet => ({
  mode: 'requirements',
  sources: [{ path: 'requirements.txt', text }],
  requirements,
  constraints: [],
  notes: [],
});

beforeAll(async () => {
  wheels = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-wheels-'));
  await buildWheel(wheels, { name: 'tinydep', version: '1.0', files: { 'tinydep/__init__.py': 'def double(x):\n    return 2 * x\n' } });
  await buildWheel(wheels, { name: 'tinydep', version: '2.0', requires: ['helperdep>=1'], files: { 'tinydep/__init__.py': 'from helperdep import VALUE\ndef double(x):\n    return VALUE * x\n' } });
  await buildWheel(wheels, { name: 'helperdep', version: '1.0', files: { 'helperdep/__init__.py': 'VALUE = 2\n' } });
  index = await startLocalIndex(wheels);
  base = await probePython('python3');
  const statePath = path.join(mkdtempSync(path.join(os.tmpdir(), 'crashprobe-state-')), 'state.db');
  settings = readEnvSettings({ CRASHPROBE_PIP_INDEX_URL: index.url, CRASHPROBE_ENV_TIMEOUT_SECONDS: '120' }, statePath).settings;
}, 60_000);
afterAll(async () => index?.close());

const envDirOf = (requirements: string[]) => {
  const key = cacheKey({ python: [base.executable, base.version], mode: 'requirements', sources: deps(requirements).sources, requirements, constraints: [], index: settings.indexUrl, sdist: false, installer: 'pip' });
  return envDir(settings.cacheDir, 'acme/shop', key);
};

const request = (set: DependencySet) => ({ repo: 'acme/shop', deps: set, base, bwrap: '/usr/bin/bwrap', allowSdist: false });

describe('provisionEnvironment', () => {
  it('installs a fixture package from the local index, then reuses the cached environment', async () => {
    const first = await provisionEnvironment(request(deps(['tinydep==1.0'])), settings);
    if (!first.ok) throw new Error(first.reason);
    expect(first.built).toBe(true);
    expect(first.python.isVenv).toBe(true);
    expect(first.dir.startsWith(settings.cacheDir)).toBe(true);
    const run = await execa(first.python.executable, ['-c', 'import tinydep; print(tinydep.double(21))']);
    expect(run.stdout).toBe('42');
    expect(index.requests).toContain('GET /simple/tinydep/');

    const seen = index.requests.length;
    const second = await provisionEnvironment(request(deps(['tinydep==1.0'])), settings);
    if (!second.ok) throw new Error(second.reason);
    expect(second).toMatchObject({ built: false, dir: first.dir, key: first.key });
    expect(index.requests.length).toBe(seen);
  }, 180_000);

  it('builds a new environment when a requirement changes', async () => {
    const first = await provisionEnvironment(request(deps(['tinydep==1.0'])), settings);
    const changed = await provisionEnvironment(request(deps(['tinydep==2.0'])), settings);
    if (!first.ok || !changed.ok) throw new Error('provisioning failed');
    expect(changed.built).toBe(true);
    expect(changed.dir).not.toBe(first.dir);
    const run = await execa(changed.python.executable, ['-c', 'import tinydep, helperdep; print(tinydep.double(4), helperdep.VALUE)']);
    expect(run.stdout).toBe('8 2');
  }, 180_000);

  it('says which package the index does not have, and leaves no environment behind', async () => {
    const result = await provisionEnvironment(request(deps(['nosuchpkg==1.0'])), settings);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toMatch(/nosuchpkg/);
    expect(result.reason).toMatch(/^pip: ERROR/);
    expect(readdirSync(path.dirname(envDirOf(['nosuchpkg==1.0'])))).not.toContain(path.basename(envDirOf(['nosuchpkg==1.0'])));
  }, 180_000);

  it('gives code that runs during the install no way out but the index', async () => {
    // A .pth file runs when the new interpreter first starts (the install's last step, inside the sandbox).
    const outside = http.createServer((req, res) => {
      reached.push(req.url ?? '');
      res.end('reached');
    });
    const reached: string[] = [];
    await new Promise<void>((resolve) => outside.listen(0, '127.0.0.1', () => resolve()));
    const port = (outside.address() as AddressInfo).port;
    const probe = [
      'import urllib.request',
      'for url, proxy in ((f"http://127.0.0.1:{PORT}/direct", {}), (f"http://127.0.0.1:{PORT}/proxied", None)):',
      '    try: urllib.request.build_opener(urllib.request.ProxyHandler(proxy)).open(url, timeout=3)',
      '    except Exception: pass',
    ].join('\n').replaceAll('{PORT}', String(port));
    await buildWheel(wheels, {
      name: 'leaky',
      version: '1.0',
      files: { 'leaky/__init__.py': '', 'leaky_probe.py': probe + '\n', 'leaky.pth': 'import leaky_probe\n' },
    });
    try {
      const result = await provisionEnvironment(request(deps(['leaky==1.0'])), settings);
      expect(reached).toEqual([]);
      // The environment itself is fine: the code only failed to reach anything.
      expect(result.ok).toBe(true);
    } finally {
      await new Promise((resolve) => outside.close(resolve));
    }
  }, 180_000);

  it('stops an install that grows past the size limit, and says which limit', async () => {
    await buildWheel(wheels, { name: 'hugedep', version: '1.0', files: { 'hugedep/__init__.py': '' }, sized: { 'hugedep/blob.bin': 20 * 1024 * 1024 } });
    const small = { ...settings, maxEnvBytes: 16 * 1024 * 1024 };
    const result = await provisionEnvironment(request(deps(['hugedep==1.0'])), small);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/past 16 MB \(CRASHPROBE_ENV_MAX_MB\)/);
  }, 180_000);

  it('stops an install that takes longer than the time limit, and says which limit', async () => {
    const hanging = http.createServer(() => undefined);
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/simple/`;
    try {
      const result = await provisionEnvironment(request(deps(['tinydep==1.0'])), { ...settings, indexUrl: url, timeoutMs: 4000 });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toBe('the install took longer than 4 s (CRASHPROBE_ENV_TIMEOUT_SECONDS)');
    } finally {
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    }
  }, 60_000);

  it('installs nothing when bubblewrap does not start', async () => {
    const seen = index.requests.length;
    const result = await provisionEnvironment({ ...request(deps(['helperdep==1.0'])), bwrap: '/bin/false' }, settings);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/^the install sandbox \(bubblewrap\) did not start \(exit code 1\)\. Fix: install bubblewrap/);
    expect(index.requests.length).toBe(seen);
  }, 60_000);
});
