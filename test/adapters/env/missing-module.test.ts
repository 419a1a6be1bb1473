import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { explainMissingModule, importLine, missingModule } from '../../../src/adapters/env/missing-module.ts';
import { withDependencyNotes } from '../../../src/adapters/env/review-notes.ts';
import { sampleReview } from '../github/fixtures.ts';

describe('missing modules', () => {
  it('reads the module from the harness message, top level only', () => {
    expect(missingModule("x.py:3 (scenario s): target file a.py does not import: ModuleNotFoundError: No module named 'yaml.loader'")).toBe('yaml');
    expect(missingModule('target file a.py does not import: ImportError: cannot import name x')).toBeUndefined();
  });

  it.each([
    ['import tinydep', 1],
    ['import os, tinydep as t', 1],
    ['from tinydep.sub import x', 1],
    ['x = 1\n    import tinydep.sub', 2],
    ['import tinydepx', undefined],
    ['from other import tinydep', undefined],
    ['# import tinydep', undefined],
  ])('%j imports tinydep at line %s', (text, line) => {
    expect(importLine(text, 'tinydep')).toBe(line);
  });

  it('names the importing line, also in another file the target loads, and the fix for the mode', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-missing-'));
    mkdirSync(path.join(root, 'shop'));
    writeFileSync(path.join(root, 'shop', 'a.py'), 'from shop import b\n');
    writeFileSync(path.join(root, 'shop', 'b.py'), '"""b"""\n\nimport yaml\n');
    const error = { file: 'crash_scenarios.py', message: "crash_scenarios.py:4 (scenario s): target file shop/a.py does not import: ModuleNotFoundError: No module named 'yaml'" };
    expect(explainMissingModule(error, root, { mode: 'requirements', installedFrom: ['requirements.txt'] }).message).toBe(
      `${error.message}. \`yaml\` is imported at shop/b.py:3. Fix: add the package that provides \`yaml\` to requirements.txt (only what they list from the package index was installed).`,
    );
    const other = { file: 'x.py', message: 'x.py: no @scenario in this file' };
    expect(explainMissingModule(other, root, { mode: 'off' })).toBe(other);
  });
});

describe('withDependencyNotes', () => {
  it('adds an inert Dependencies section at the end of the summary and to the check run', () => {
    const review = withDependencyNotes(sampleReview(), ['requirements.txt:2: <img src=x> is a URL; not installed']);
    expect(review.summary).toMatch(/\n#### Dependencies\n\n- requirements\.txt:2: .*not installed$/);
    expect(review.summary).not.toContain('<img');
    expect(review.checkSummary).toContain('#### Dependencies');
    expect(withDependencyNotes(sampleReview(), [])).toEqual(sampleReview());
  });
});
