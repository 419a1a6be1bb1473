// A repository whose target imports `tinydep`, a package only the local index has,
// with one crash scenario of it; and that index, serving tinydep 1.0.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildWheel, startLocalIndex, type LocalIndex } from './local-index.ts';

export const TARGET = [
  'import sqlite3',
  '',
  'import tinydep',
  '',
  '',
  'def record(conn, value):',
  '    conn.execute("INSERT INTO t(v) VALUES (?)", (tinydep.double(value),))',
  '    conn.commit()',
  '',
].join('\n');

export const SCENARIOS = [
  'from crashprobe import scenario',
  '',
  '',
  '@scenario("shop/doubler.py:record")',
  'def one_value(world):',
  '    world.seed_sqlite("d.db", "CREATE TABLE t(v INTEGER);")',
  '    return {"conn": world.sqlite("d.db"), "value": 21}',
  '',
].join('\n');

/** The repository, as a checkout would hold it; `requirements` is its requirements.txt (none when null). */
export function fixtureRepo(requirements: string | null = 'tinydep==1.0\n'): { root: string; scenarioFile: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-repo-'));
  mkdirSync(path.join(root, 'shop'));
  writeFileSync(path.join(root, 'shop', 'doubler.py'), TARGET);
  writeFileSync(path.join(root, 'shop', '__init__.py'), '');
  writeFileSync(path.join(root, 'crash_scenarios.py'), SCENARIOS);
  if (requirements !== null) writeFileSync(path.join(root, 'requirements.txt'), requirements);
  return { root, scenarioFile: path.join(root, 'crash_scenarios.py') };
}

export async function tinydepIndex(): Promise<LocalIndex> {
  const wheels = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-wheels-'));
  await buildWheel(wheels, { name: 'tinydep', version: '1.0', files: { 'tinydep/__init__.py': 'def double(x):\n    return 2 * x\n' } });
  return startLocalIndex(wheels);
}
