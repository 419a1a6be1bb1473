import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { crash } from './helpers.ts';

const BROKEN = path.resolve(import.meta.dirname, '../../fixtures/broken');

describe('bad input gets a clear error naming the file and line, and the campaign goes on', () => {
  it('reports each broken scenario and still judges nothing it cannot load', async () => {
    const result = await crash([path.join(BROKEN, 'crash_scenarios.py'), path.join(BROKEN, 'more'), path.join(BROKEN, 'syntax')]);
    const messages = result.errors.map((e) => e.message).sort();
    expect(messages).toEqual([
      'crash_scenarios.py:4 (scenario target_file_missing): target file app/missing.py does not exist under the repository root ' + BROKEN,
      'more/crash_scenarios.py:4: scenario scenario_raises: the scenario function raised: RuntimeError: the seed data is not ready (at more/crash_scenarios.py:6)',
      'more/crash_scenarios.py:9 (scenario function_missing): app/jobs.py has no function no_such_function',
      "syntax/crash_scenarios.py: the scenario file does not import: SyntaxError: '(' was never closed (line 3)",
    ]);
    expect(result.scenarios).toEqual([]);
  });

  it('the command exits non-zero with those messages, and without a stack trace', async () => {
    const cli = path.resolve(import.meta.dirname, '../../../bin/crashprobe.js');
    const run = await execa('node', [cli, 'crash', path.join(BROKEN, 'more')], { reject: false });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('app/jobs.py has no function no_such_function');
    expect(run.stdout + run.stderr).not.toMatch(/\n\s+at .*\.ts:\d+/);
  });

  it('a path that is not a scenario file is refused up front', async () => {
    const cli = path.resolve(import.meta.dirname, '../../../bin/crashprobe.js');
    const run = await execa('node', [cli, 'crash', path.join(BROKEN, 'app/jobs.py')], { reject: false });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('not a scenario file');
  });
});
