// The static detector against the reference suite's hand labels: every
// solution's expected.json says which transaction style its target uses.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFunction } from '../../../src/core/python/analyze.ts';
import { buildRepoIndex, repoHelperResolver } from '../../../src/core/python/callgraph.ts';
import { functionsByQualname } from '../../../src/core/python/local-resolve.ts';
import { parseFolder, pythonFilesUnder } from './python-files.ts';
import { readdirSync } from 'node:fs';

const referenceRoot = join(import.meta.dirname, '../../../harness/reference');

interface Row {
  solution: string;
  target: string;
  expected: string;
  detected: string;
  evidence: string;
}

function expectedFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith('_') || entry.name.startsWith('.') ? [] : expectedFiles(full);
    return entry.name === 'expected.json' ? [full] : [];
  });
}

/** `"target": "app/x.py:func"` in expected.json, else the first `@scenario("path:func")` of the solution's (or task's) scenario file. */
function targetOf(solutionDir: string, expected: Record<string, unknown>): string {
  if (typeof expected.target === 'string') return expected.target;
  for (const file of [join(solutionDir, 'crash_scenarios.py'), join(dirname(solutionDir), 'task_scenarios.py')]) {
    if (!existsSync(file)) continue;
    const match = /@scenario\(\s*["']([^"':]+:[\w.]+)["']/.exec(readFileSync(file, 'utf8'));
    if (match) return match[1]!;
  }
  throw new Error(`${relative(referenceRoot, solutionDir)}: no "target" in expected.json and no @scenario("path:func") to read it from`);
}

function detect(solutionDir: string, target: string): { style: string; evidence: string } {
  const [path, qualname] = target.split(':') as [string, string];
  const modules = parseFolder(solutionDir);
  const module = modules.find((candidate) => candidate.path === path);
  if (!module) throw new Error(`${relative(referenceRoot, solutionDir)}: target file ${path} not found`);
  const fn = functionsByQualname(module).get(qualname);
  if (!fn) throw new Error(`${relative(referenceRoot, solutionDir)}: no function ${qualname} in ${path}`);
  const report = analyzeFunction(fn, module, repoHelperResolver(buildRepoIndex(modules)));
  return { style: report.txStyle.style, evidence: report.txStyle.evidence.map((found) => `${found.pattern}@${found.line}`).join(' ') };
}

describe('transaction style on the reference suite', () => {
  if (!existsSync(referenceRoot)) {
    it.skip('harness/reference does not exist yet: nothing to compare against', () => {});
    return;
  }

  it('matches every solution’s hand-labelled tx_style', () => {
    const rows: Row[] = expectedFiles(referenceRoot)
      .sort()
      .map((file) => {
        const solutionDir = dirname(file);
        const expected = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
        if (typeof expected.tx_style !== 'string') throw new Error(`${relative(referenceRoot, file)}: no "tx_style" field`);
        const target = targetOf(solutionDir, expected);
        const { style, evidence } = detect(solutionDir, target);
        return { solution: relative(referenceRoot, solutionDir), target, expected: expected.tx_style, detected: style, evidence };
      });
    expect(rows.length, 'harness/reference exists but holds no solution with an expected.json').toBeGreaterThan(0);
    const width = Math.max(...rows.map((row) => row.solution.length));
    const table = rows.map((row) => `${row.expected === row.detected ? 'ok  ' : 'MISS'} ${row.solution.padEnd(width)}  expected ${row.expected.padEnd(14)} detected ${row.detected.padEnd(14)} ${row.evidence}`);
    console.log(`transaction style, ${rows.length} reference solutions:\n${table.join('\n')}`);
    expect(rows.filter((row) => row.expected !== row.detected)).toEqual([]);
  });

  it('finds the Python files of every solution', () => {
    for (const file of expectedFiles(referenceRoot)) expect(pythonFilesUnder(dirname(file)).length).toBeGreaterThan(0);
  });
});
