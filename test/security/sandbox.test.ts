// Issue 9, requirements 1, 3 and 4: a hostile pull request's target, run by the harness in the
// bubblewrap sandbox, can read no secret of the host and write nothing outside its run folder,
// and holds no privilege even when crashprobe runs as root (CI is root). Canaries: files in
// /etc, /var, /opt, /srv, /run, the home folder, /tmp and /dev/shm of the host, a fake state DB
// in the App's folder, an environment variable of the caller, the checkout's .git/config and a
// symlink in the repository pointing at a host secret. The target bypasses the harness's own
// Python guards (raw libc calls) and reports everything in its error text, the channel that
// reaches the review; no canary may appear in the harness's output.
//
// Three sandbox shapes: the one prepareHarness picks here (as root: nested, a user namespace and
// the host's nobody), the sudo path of GitHub's ubuntu-24.04 runners (simulated: a bwrap that is
// refused unless run through a fake passwordless sudo, and an unprivileged inner bwrap refused),
// and a single bwrap whose user namespace maps to root.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCampaign } from '../../src/adapters/harness/campaign.ts';
import { HARNESS_DIR, prepareHarness, type PreparedHarness } from '../../src/adapters/harness/prepare.ts';
import type { CampaignResult } from '../../src/core/crash/protocol.ts';

const SYSTEM_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];
const isRoot = process.getuid?.() === 0;
const hasBwrap = SYSTEM_PATH.some((dir) => existsSync(path.join(dir, 'bwrap')));
const nameId = randomBytes(6).toString('hex');
const TOKEN = `cpcanary-${randomBytes(8).toString('hex')}`;
const ENV_NAME = `CP_SECRET_${nameId}`;

const planted: string[] = [];
const writeTargets: string[] = [];
let repo = '';
let fakeBin = '';

function plant(file: string): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `secret ${TOKEN}\n`, { mode: 0o644 });
    planted.push(file);
  } catch {
    // not writable here (not root): that canary is not planted
  }
}

function hostileRepo(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cp-hostile-'));
  const etcSecret = `/etc/cp-secret-${nameId}`;
  const appFolder = path.join(process.cwd(), `.cp-state-${nameId}`);
  for (const file of [
    etcSecret,
    `/var/lib/cp-secret-${nameId}`,
    `/opt/cp-secret-${nameId}`,
    `/srv/cp-secret-${nameId}`,
    `/run/cp-secret-${nameId}`,
    `/tmp/cp-secret-${nameId}`,
    `/dev/shm/cp-secret-${nameId}`,
    path.join(os.homedir(), `.cp-secret-${nameId}`),
    path.join(appFolder, 'state.db'), // the App's state DB (CRASHPROBE_STATE) in its working folder
  ]) plant(file);
  planted.push(appFolder);
  for (const target of [
    path.join(dir, `pwned-${nameId}`),
    path.join(HARNESS_DIR, 'crashprobe', `pwned_${nameId}.py`),
    `/etc/pwned-${nameId}`,
    `/tmp/pwned-${nameId}`,
    `/dev/shm/pwned-${nameId}`,
    `/var/tmp/pwned-${nameId}`,
    path.join(appFolder, `pwned-${nameId}`),
    path.join(os.homedir(), `pwned-${nameId}`),
  ]) writeTargets.push(target);
  mkdirSync(path.join(dir, 'app'));
  mkdirSync(path.join(dir, '.git'));
  writeFileSync(path.join(dir, '.git', 'config'), `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${TOKEN}\n`);
  writeFileSync(path.join(dir, 'pyproject.toml'), '[project]\nname = "hostile"\n');
  writeFileSync(path.join(dir, 'app', '__init__.py'), '');
  symlinkSync(etcSecret, path.join(dir, 'leak.txt')); // a link "inside" the tree to a host secret
  const names = [...planted, path.join(dir, 'leak.txt'), '/proc/1/environ'];
  const source = readFileSync(path.join(import.meta.dirname, 'hostile-sandbox.py.txt'), 'utf8')
    .replace('__NAMES__', JSON.stringify(names))
    .replace('__WRITES__', JSON.stringify(writeTargets))
    .replace('__PREFIX__', '"cpcan" + "ary-"'); // never whole in the source, which the walk reads too
  writeFileSync(path.join(dir, 'app', 'hostile.py'), source);
  writeFileSync(
    path.join(dir, 'crash_scenarios.py'),
    [
      'import os',
      'from crashprobe import scenario',
      'ROOT = os.path.dirname(os.path.abspath(__file__))',
      '',
      '@scenario("app/hostile.py:attack")',
      'def attack(world):',
      '    return {"path": world.path(), "root": ROOT}',
      '',
    ].join('\n'),
  );
  chmodSync(dir, 0o755);
  return dir;
}

/**
 * A bwrap that is refused its user namespace ("AppArmor") unless started as root through the
 * fake sudo, and a passwordless sudo that only runs its command (marked so bwrap lets it through).
 */
function fakeRunnerBin(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cp-fakebin-'));
  const realBwrap = SYSTEM_PATH.map((d) => path.join(d, 'bwrap')).find((p) => existsSync(p));
  const realSetpriv = SYSTEM_PATH.map((d) => path.join(d, 'setpriv')).find((p) => existsSync(p));
  writeFileSync(
    path.join(dir, 'bwrap'),
    `#!/bin/sh\nif [ "$CP_FAKE_SUDO" = 1 ] && [ "$(id -u)" = 0 ]; then exec ${realBwrap} "$@"; fi\n` +
      'echo "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n',
    { mode: 0o755 },
  );
  writeFileSync(path.join(dir, 'sudo'), '#!/bin/sh\n[ "$1" = -n ] && shift\nexec env CP_FAKE_SUDO=1 "$@"\n', { mode: 0o755 });
  if (realSetpriv) symlinkSync(realSetpriv, path.join(dir, 'setpriv'));
  return dir;
}

interface AttackReport {
  uid: number;
  secrets: string[];
  CapEff: string;
  CapBnd: string;
  NoNewPrivs: string;
  git_visible: boolean;
  walked: number;
  pids: number[];
  writes: Record<string, string>;
  remount_root: string;
  remount_repo: string;
  mount_tmpfs: string;
  raw_socket: string;
  ptrace_1: string;
  userns_escape: string;
}

function reportOf(result: CampaignResult): AttackReport {
  const error = result.scenarios[0]?.modes.default.error ?? JSON.stringify(result.errors);
  const match = /REPORT (\{.*\}) \(at /.exec(error);
  if (!match) throw new Error(`the hostile target did not report: ${error}`);
  return JSON.parse(match[1]!) as AttackReport;
}

async function attack(options: PreparedHarness['options']): Promise<{ result: CampaignResult; report: AttackReport }> {
  const result = await runCampaign([repo], { ...options, isolation: 'fork', concurrency: 1, limits: { wall_seconds: 30, cpu_seconds: 20 } });
  return { result, report: reportOf(result) };
}

function expectContained({ result, report }: { result: CampaignResult; report: AttackReport }): void {
  // No canary in the harness's output (the JSON a review is built from).
  expect(JSON.stringify(result)).not.toContain(TOKEN);
  expect(report.secrets).toEqual([]);
  expect(report.walked).toBeGreaterThan(0);
  expect(report.git_visible).toBe(false);
  // No privilege, as root too.
  expect(report.uid).toBe(65534);
  expect(report.CapEff).toMatch(/^0+$/);
  expect(report.CapBnd).toMatch(/^0+$/);
  expect(report.NoNewPrivs).toBe('1');
  for (const key of ['remount_root', 'remount_repo', 'mount_tmpfs', 'raw_socket', 'ptrace_1'] as const) {
    expect({ [key]: report[key] }).not.toEqual({ [key]: 'ok' });
  }
  expect(report.userns_escape).not.toBe('wrote');
  // Its own pid namespace: none of the host's processes.
  expect(report.pids.length).toBeLessThan(20);
  // Nothing written outside the run folder: a write may succeed only into the sandbox's own tmpfs.
  for (const target of writeTargets) expect({ target, exists: existsSync(target) }).toEqual({ target, exists: false });
  for (const [target, outcome] of Object.entries(report.writes)) {
    if (outcome === 'ok') expect(target).toMatch(/^\/(tmp|dev\/shm)\//);
  }
}

describe.skipIf(!hasBwrap)('a hostile target in the sandbox reads, writes and escapes nothing (issue 9)', () => {
  beforeAll(() => {
    process.env[ENV_NAME] = TOKEN;
    repo = hostileRepo();
    fakeBin = fakeRunnerBin();
  });
  afterAll(() => {
    delete process.env[ENV_NAME];
    for (const p of [...planted, ...writeTargets, repo, fakeBin]) rmSync(p, { recursive: true, force: true });
  });

  it('plants its canaries where a real deployment keeps secrets', () => {
    // The test is only as strong as what it planted: as root (CI) every folder.
    if (isRoot) expect(planted.filter((p) => /^\/(etc|var|opt|srv|run)\//.test(p))).toHaveLength(5);
    expect(readFileSync(path.join(repo, 'leak.txt'), 'utf8')).toContain(TOKEN); // the link reads the secret on the host
  });

  it('holds in the sandbox prepareHarness picks here', async () => {
    const prepared = await prepareHarness({ python: 'python3', sandbox: 'bwrap', searchPath: SYSTEM_PATH });
    expect(prepared.options.bwrap).toBeDefined();
    expectContained(await attack(prepared.options));
  }, 120_000);

  it.skipIf(!isRoot)('holds in a single bwrap whose user namespace maps to root', async () => {
    const prepared = await prepareHarness({ python: 'python3', sandbox: 'bwrap', searchPath: SYSTEM_PATH });
    expectContained(await attack({ ...prepared.options, bwrapLaunch: { via: [] } }));
  }, 120_000);

  it.skipIf(!isRoot)('works through passwordless sudo where plain bwrap is refused (ubuntu-24.04 runners), and holds', async () => {
    // uid 1000: prepareHarness takes this process for the runner's unprivileged user.
    const prepared = await prepareHarness({ python: 'python3', sandbox: 'bwrap', searchPath: [fakeBin, ...SYSTEM_PATH], allowSudo: true, uid: 1000 });
    expect(prepared.options.bwrapLaunch?.via).toEqual([path.join(fakeBin, 'sudo'), '-n']);
    expect(prepared.notices.join('\n')).toMatch(/through sudo -n/);
    expectContained(await attack(prepared.options));
  }, 120_000);
});
