// `crashprobe scan --json FILE` (issue 10, item 10): like `crash --json FILE`, the JSON goes to
// FILE and the text report to standard output, whichever side of the path the option stands.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanJsonSchema } from '../../../src/core/python/scan-report.ts';

const bin = join(import.meta.dirname, '../../../bin/crashprobe.js');
const repo = join(import.meta.dirname, '../../fixtures/callgraph-repo');

function scan(...args: string[]) {
  return spawnSync('node', [bin, 'scan', ...args], { encoding: 'utf8' });
}

describe('crashprobe scan --json FILE', () => {
  for (const order of ['path first', 'option first'] as const) {
    it(`writes the JSON to FILE and prints the text (${order})`, () => {
      const out = join(mkdtempSync(join(tmpdir(), 'scan-json-')), 'scan.json');
      const result = order === 'path first' ? scan(repo, '--json', out) : scan('--json', out, repo);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout).not.toMatch(/^\s*\{/);
      expect(result.stdout).toContain('shop/orders.py');
      const parsed = scanJsonSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
      expect(parsed.files.map((f) => f.path)).toContain('shop/orders.py');
    }, 30_000);
  }

  it('keeps `scan --json PATH` (JSON on standard output) and says what to give when the path is missing', () => {
    const old = scan('--json', repo);
    expect(old.status).toBe(0);
    expect(scanJsonSchema.parse(JSON.parse(old.stdout)).files.length).toBeGreaterThan(0);
    const dir = mkdtempSync(join(tmpdir(), 'scan-json-'));
    const missing = scan('--json', join(dir, 'out.json'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/give the folder or \.py file to scan/);
    expect(existsSync(join(dir, 'out.json'))).toBe(false);
  }, 30_000);

  it('takes --assume-autocommit: when-evident by default, unless-proven on request, and names a wrong value', () => {
    const registry = join(import.meta.dirname, '../../fixtures/repository-default-mode/must-report/a-P2');
    const rules = (result: ReturnType<typeof scan>) => scanJsonSchema.parse(JSON.parse(result.stdout)).files.flatMap((f) => f.functions.flatMap((fn) => fn.findings.map((x) => x.ruleId)));
    expect(rules(scan(registry, '--json'))).not.toContain('commit-without-begin');
    expect(rules(scan(registry, '--json', '--assume-autocommit', 'unless-proven'))).toContain('commit-without-begin');
    const wrong = scan(registry, '--assume-autocommit', 'never');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/--assume-autocommit never: give when-evident or unless-proven/);
  }, 60_000);

  it('takes --windows-only: a write reached only on native Windows is skipped by default, kept on request, and a wrong value is named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scan-windows-'));
    writeFileSync(join(dir, 'state.py'), [
      'import json, os',
      '',
      'def save(path, state):',
      "    if os.name == 'nt':",
      "        with open(path, 'w') as f:",
      '            json.dump(state, f)',
      '',
      'def load(path):',
      '    with open(path) as f:',
      '        return json.load(f)',
      '',
    ].join('\n'));
    const rules = (result: ReturnType<typeof scan>) => scanJsonSchema.parse(JSON.parse(result.stdout)).files.flatMap((f) => f.functions.flatMap((fn) => fn.findings.map((x) => x.ruleId)));
    expect(rules(scan(dir, '--json'))).not.toContain('in-place-file-rewrite');
    expect(rules(scan(dir, '--json', '--windows-only', 'report'))).toContain('in-place-file-rewrite');
    const wrong = scan(dir, '--windows-only', 'sometimes');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/--windows-only sometimes: give skip or report/);
  }, 60_000);
});
