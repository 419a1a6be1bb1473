import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { crash } from './helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('clock, random and uuid values are masked by calibration, not guessed', () => {
  it('judges code that stamps rows with the clock and random tokens by what matters', async () => {
    const result = await crash([path.join(ROOT, 'test/fixtures/volatile')]);
    const byName = Object.fromEntries(result.scenarios.map((s) => [s.name, s]));
    const event = byName.one_event!;
    expect(event.class).toBe('safe_by_design');
    expect(event.fully_crash_safe).toBe(true);
    // A repeated request adds a second event: masking hides the values, never the extra row.
    expect(event.double_applies).toBe(true);
    expect(event.failures.every((f) => f.crash === 'none' && f.outcome === 'double-applied')).toBe(true);
    // A file named by the clock: the re-run writes another one ten minutes later.
    const report = byName.one_report!;
    expect(report.double_applies).toBe(true);
    expect(report.fully_crash_safe).toBe(false);
  });
});

describe('code that brings its own connection and cursor classes', () => {
  it('still gets the mode under test and a crash point before every statement', async () => {
    const result = await crash([path.join(ROOT, 'test/fixtures/factories')]);
    const [verdict] = result.scenarios;
    expect(verdict?.class).toBe('safe_by_accident');
    // two UPDATEs through the custom cursor and the commit, in each mode
    expect([verdict?.modes.default.crash_points, verdict?.modes.autocommit.crash_points]).toEqual([3, 3]);
  });
});

describe('Python versions', () => {
  it('the harness and the reference suite parse as Python 3.9', async () => {
    const script = `
import ast, pathlib, sys
bad = []
for folder in ("harness/crashprobe", "harness/reference"):
    for path in sorted(pathlib.Path(folder).rglob("*.py")):
        try:
            ast.parse(path.read_text(), filename=str(path), feature_version=(3, 9))
        except SyntaxError as exc:
            bad.append(f"{path}:{exc.lineno}: {exc.msg}")
print("\\n".join(bad))
`;
    const { stdout } = await execa('python3', ['-c', script], { cwd: ROOT });
    expect(stdout.trim()).toBe('');
  });
});
