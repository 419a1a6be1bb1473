// The system temp folder (issue 10, item 4): tempfile.gettempdir(), TMPDIR and tempfile.tempdir
// point into each run's own folder, so a target that writes its temp file there (tempfile.mkstemp()
// without `dir=`) is judged alike with and without the sandbox, and never as a refused write.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crash } from './helpers.ts';

const FIXTURE = path.resolve(import.meta.dirname, 'fixtures/system-temp');

describe('a target that writes through the system temp folder', () => {
  for (const sandbox of ['auto', 'none'] as const) {
    it(`works and is judged by what it leaves (sandbox ${sandbox})`, async () => {
      const overrides = sandbox === 'none' ? { bwrap: undefined } : {};
      const result = await crash([FIXTURE], overrides);
      expect(result.errors).toEqual([]);
      const verdicts = Object.fromEntries(result.scenarios.map((s) => [s.name, s]));
      for (const name of ['report_through_mkstemp', 'report_through_tmpdir']) {
        const v = verdicts[name]!;
        expect(v.modes.default.error, name).toBeUndefined();
        expect(v.modes.default.works, name).toBe(true);
        // The temp file is replaced into place: a crash leaves the old state or the new one.
        expect({ class: v.class, fully: v.fully_crash_safe }, name).toEqual({ class: 'safe_by_design', fully: true });
        expect(v.notes.filter((n) => /refused/.test(n)), name).toEqual([]);
      }
    }, 120_000);
  }
});
