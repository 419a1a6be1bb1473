// A generated git repository whose one change touches `functions` Python functions
// (spread over ten modules, so each module grows with the change too) and adds
// scenario files naming some of them: the big pull request of bench/big-pr.ts.
// Four kinds of change, in turn, so the review meets every class and finding:
// a second write through a helper in another module (safe only by accident),
// a commit between two writes (unsafe: repairs run), a commit per loop item
// (commit-in-loop), and an explicit BEGIN ... COMMIT (safe by design).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

export interface BigPullRequest {
  dir: string;
  functions: number;
  scenarioFiles: number;
  scenarios: number;
}

const MODULES = 10;
const SCENARIOS_PER_FILE = 2;

const SCHEMA = `
CREATE TABLE orders(id INTEGER PRIMARY KEY, status TEXT NOT NULL);
CREATE TABLE ledger(id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, note TEXT NOT NULL);
INSERT INTO orders VALUES (7, 'pending');
INSERT INTO orders VALUES (8, 'pending');
`;

interface Fn {
  module: number;
  name: string;
  kind: number;
}

function functionsOf(count: number): Fn[] {
  return Array.from({ length: count }, (_, i) => ({ module: i % MODULES, name: `pay_${i}`, kind: i % 4 }));
}

function baseBody(fn: Fn): string {
  const param = fn.kind === 2 ? 'order_ids' : 'order_id';
  const write = fn.kind === 2 ? '    for order_id in order_ids:\n        conn.execute("UPDATE orders SET status = \'paid\' WHERE id = ?", (order_id,))\n' : '    conn.execute("UPDATE orders SET status = \'paid\' WHERE id = ?", (order_id,))\n';
  return `def ${fn.name}(conn, ${param}):\n${write}    conn.commit()\n`;
}

function changedBody(fn: Fn): string {
  const update = `conn.execute("UPDATE orders SET status = 'paid' WHERE id = ?", (order_id,))`;
  switch (fn.kind) {
    case 0:
      return `def ${fn.name}(conn, order_id):\n    ${update}\n    record(conn, order_id, "${fn.name}")\n    conn.commit()\n`;
    case 1:
      return `def ${fn.name}(conn, order_id):\n    ${update}\n    conn.commit()\n    conn.execute("INSERT INTO ledger(order_id, note) VALUES (?, '${fn.name}')", (order_id,))\n    conn.commit()\n`;
    case 2:
      return `def ${fn.name}(conn, order_ids):\n    for order_id in order_ids:\n        ${update}\n        record(conn, order_id, "${fn.name}")\n        conn.commit()\n`;
    default:
      return `def ${fn.name}(conn, order_id):\n    conn.execute("BEGIN")\n    ${update}\n    record(conn, order_id, "${fn.name}")\n    conn.execute("COMMIT")\n`;
  }
}

function moduleText(fns: readonly Fn[], module: number, body: (fn: Fn) => string): string {
  const own = fns.filter((fn) => fn.module === module);
  return `from bigshop.ledger import record\n\n\n${own.map(body).join('\n\n')}`;
}

function scenarioFile(targets: readonly Fn[]): string {
  const scenarios = targets.map((fn) => {
    const args = fn.kind === 2 ? '"order_ids": [7, 8]' : '"order_id": 7';
    return `@scenario("bigshop/m${fn.module}.py:${fn.name}")\ndef run_${fn.name}(world):\n    world.seed_sqlite("shop.db", SCHEMA)\n    return {"conn": world.sqlite("shop.db"), ${args}}\n`;
  });
  return `from crashprobe import scenario\n\nSCHEMA = """${SCHEMA}"""\n\n\n${scenarios.join('\n\n')}`;
}

const CONFIG = `harness:
  budget:
    scenario_files: 500
    scenarios: 5000
    runs: 1000000
    minutes: 120
`;

const LEDGER = `def record(conn, order_id, note):\n    conn.execute("INSERT INTO ledger(order_id, note) VALUES (?, ?)", (order_id, note))\n`;

/** The base commit on `main`, the change on `big-change`, checked out. */
export async function buildBigPullRequest(functions: number, scenarioFiles: number): Promise<BigPullRequest> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-big-pr-'));
  const git = (...args: string[]) =>
    execa('git', ['-c', 'user.name=crashprobe bench', '-c', 'user.email=bench@crashprobe.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir });
  const write = (relative: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    writeFileSync(path.join(dir, relative), text);
  };
  const fns = functionsOf(functions);
  await git('init', '--quiet', '--initial-branch=main');
  write('pyproject.toml', '[project]\nname = "bigshop"\nversion = "0.1.0"\n');
  write('.github/crashprobe.yml', CONFIG);
  write('bigshop/__init__.py', '');
  write('bigshop/ledger.py', LEDGER);
  for (let m = 0; m < MODULES; m++) write(`bigshop/m${m}.py`, moduleText(fns, m, baseBody));
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'base');
  await git('checkout', '--quiet', '-b', 'big-change');
  for (let m = 0; m < MODULES; m++) write(`bigshop/m${m}.py`, moduleText(fns, m, changedBody));
  // Targets spread evenly over the functions, so every kind of change is crash-tested.
  const targets = Math.min(fns.length, scenarioFiles * SCENARIOS_PER_FILE);
  const step = fns.length / targets;
  const chosen = Array.from({ length: targets }, (_, i) => fns[Math.floor(i * step)]!);
  for (let s = 0; s < scenarioFiles; s++) write(`crash_scenarios/s${s}.py`, scenarioFile(chosen.slice(s * SCENARIOS_PER_FILE, (s + 1) * SCENARIOS_PER_FILE)));
  await git('add', '-A');
  await git('commit', '--quiet', '-m', `touch ${functions} functions, add ${scenarioFiles} scenario files`);
  return { dir, functions, scenarioFiles, scenarios: chosen.length };
}
