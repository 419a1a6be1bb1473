// The adversarial readers' repositories (test/fixtures/repository-default-mode, README there): every draft of
// the repository-wide default-mode proof quieted some of them though their writes can commit one by one. Each
// must stay reported by the three default-mode rules; the quiet ones must stay proven, and be reported when
// their modules are read alone (so the quiet comes from the repository, not from the module).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyzeModule } from '../../../../src/core/python/analyze.ts';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { scanRepository } from '../../../../src/core/python/scan.ts';
import type { PyModule } from '../../../../src/core/python/model.ts';
import type { AssumeAutocommit } from '../../../../src/core/python/callgraph.ts';

const CASES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/repository-default-mode');
const RULES = new Set(['commit-without-begin', 'writes-rely-on-implicit-transaction', 'with-conn-opens-no-transaction']);

function pythonFiles(root: string, dir = root): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    return statSync(full).isDirectory() ? pythonFiles(root, full) : entry.endsWith('.py') ? [path.relative(root, full)] : [];
  });
}

function modulesOf(dir: string): PyModule[] {
  return pythonFiles(dir).sort().map((file) => parseModule(file, readFileSync(path.join(dir, file), 'utf8')));
}

function repositoryFindings(dir: string, assumeAutocommit: AssumeAutocommit = 'unless-proven'): string[] {
  return scanRepository(modulesOf(dir), undefined, { assumeAutocommit }).files.flatMap((file) =>
    file.reports.flatMap((report) => report.findings.filter((finding) => RULES.has(finding.ruleId)).map((finding) => `${file.path}:${finding.range.startLine} ${finding.ruleId}`)),
  );
}

function aloneFindings(dir: string): number {
  return modulesOf(dir).reduce((sum, module) => sum + analyzeModule(module).reduce((n, report) => n + report.findings.filter((finding) => RULES.has(finding.ruleId)).length, 0), 0);
}

const cases = (kind: string) => readdirSync(path.join(CASES, kind)).sort();

describe('repository default-mode proof on the readers\' repositories', () => {
  it('has the cases', () => {
    expect(cases('must-report').length).toBeGreaterThan(100);
    expect(cases('quiet').length).toBeGreaterThan(3);
  });
  for (const name of cases('must-report')) {
    it(`keeps reporting ${name}`, () => {
      expect(repositoryFindings(path.join(CASES, 'must-report', name)).length).toBeGreaterThan(0);
    });
  }
  for (const name of cases('quiet')) {
    it(`proves ${name} from the repository`, () => {
      const dir = path.join(CASES, 'quiet', name);
      expect(repositoryFindings(dir)).toEqual([]);
      expect(aloneFindings(dir)).toBeGreaterThan(0);
    });
  }
});
