// The rules against the reference suite's solutions (harness/reference), whose
// crash verdicts are known: code safe by design must draw no warning, and code
// safe only by sqlite3's default mode must draw one from a sqlite rule.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeModule } from '../../../../src/core/python/analyze.ts';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { rules } from '../../../../src/core/python/rules/index.ts';
import { referenceSolutions } from '../../../support/reference-solutions.ts';

const sqliteRules = new Set(rules.filter((rule) => rule.meta.category === 'sqlite-transaction').map((rule) => rule.meta.id));

interface Solution {
  name: string;
  verdict: string;
  findings: { ruleId: string; severity: string; line: number }[];
}

function solutions(): Solution[] {
  return referenceSolutions()
    .filter(({ dir }) => existsSync(join(dir, 'app')))
    .map(({ dir, name, expected }) => ({
      name,
      verdict: expected.class,
      findings: readdirSync(join(dir, 'app'))
        .filter((file) => file.endsWith('.py'))
        .flatMap((file) => analyzeModule(parseModule(`app/${file}`, readFileSync(join(dir, 'app', file)))))
        .flatMap((report) => report.findings.map((finding) => ({ ruleId: finding.ruleId, severity: finding.severity, line: finding.range.startLine }))),
    }));
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
