// The rules against the reference suite's solutions (harness/reference), whose
// crash verdicts are known: code safe by design must draw no warning, and code
// safe only by sqlite3's default mode must draw one from a sqlite rule.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyzeModule } from '../../../../src/core/python/analyze.ts';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { rules } from '../../../../src/core/python/rules/index.ts';

const referenceRoot = fileURLToPath(new URL('../../../../harness/reference/', import.meta.url));
const sqliteRules = new Set(rules.filter((rule) => rule.meta.category === 'sqlite-transaction').map((rule) => rule.meta.id));

interface Solution {
  name: string;
  verdict: string;
  findings: { ruleId: string; severity: string; line: number }[];
}

function solutions(): Solution[] {
  if (!existsSync(referenceRoot)) return [];
  const found: Solution[] = [];
  for (const task of readdirSync(referenceRoot, { withFileTypes: true })) {
    if (!task.isDirectory() || task.name.startsWith('_')) continue;
    for (const solution of readdirSync(join(referenceRoot, task.name), { withFileTypes: true })) {
      const dir = join(referenceRoot, task.name, solution.name);
      if (!solution.isDirectory() || !existsSync(join(dir, 'expected.json')) || !existsSync(join(dir, 'app'))) continue;
      const verdict = (JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as { class: string }).class;
      const findings = readdirSync(join(dir, 'app'))
        .filter((file) => file.endsWith('.py'))
        .flatMap((file) => analyzeModule(parseModule(`app/${file}`, readFileSync(join(dir, 'app', file)))))
        .flatMap((report) => report.findings.map((finding) => ({ ruleId: finding.ruleId, severity: finding.severity, line: finding.range.startLine })));
      found.push({ name: `${task.name}/${solution.name}`, verdict, findings });
    }
  }
  return found;
}

describe('rules on the reference suite', () => {
  const all = solutions();

  it.skipIf(all.length === 0)('leave every safe-by-design solution without a warning or error', () => {
    const flagged = all
      .filter((solution) => solution.verdict === 'safe_by_design')
      .flatMap((solution) => solution.findings.filter((finding) => finding.severity !== 'info').map((finding) => `${solution.name}:${finding.line} ${finding.ruleId}`));
    expect(flagged).toEqual([]);
  });

  it.skipIf(all.length === 0)('flag every safe-by-accident solution with a sqlite rule', () => {
    const missed = all
      .filter((solution) => solution.verdict === 'safe_by_accident')
      .filter((solution) => !solution.findings.some((finding) => sqliteRules.has(finding.ruleId) && finding.severity !== 'info'))
      .map((solution) => solution.name);
    expect(missed).toEqual([]);
  });
});
