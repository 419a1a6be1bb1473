import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crash } from './helpers.ts';

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/adversarial');

describe('a hostile target ends as a clear per-scenario error and the campaign goes on', () => {
  for (const sandbox of ['auto', 'none'] as const) {
    it(`with sandbox ${sandbox}`, async () => {
      const overrides = sandbox === 'none' ? { bwrap: undefined } : {};
      const result = await crash([FIXTURE], { ...overrides, limits: { wall_seconds: 3, cpu_seconds: 2 } });
      const errors = Object.fromEntries(result.scenarios.map((s) => [s.name, s.modes.default.error ?? '']));
      const classes = Object.fromEntries(result.scenarios.map((s) => [s.name, s.class]));
      // A write outside the run folder is refused by the harness: a harness refusal, reported as an error (issue 10 item 4).
      expect(result.errors.map((e) => e.scenario)).toEqual(['write_outside']);
      expect(result.errors[0]?.message).toMatch(/refused a write to \/tmp\/crashprobe-escape\.txt/);
      delete errors.write_outside;
      expect(Object.keys(errors)).toHaveLength(7);
      expect(errors.spin_forever).toMatch(/CPU-time limit|wall-clock limit/);
      expect(errors.block_forever).toMatch(/hangs|within the 3 s wall-clock limit/); // hang detection (issue 10) or the wall clock
      expect(errors.fork_without_end).toMatch(/BlockingIOError|wall-clock limit/);
      expect(errors.fill_memory).toMatch(/MemoryError/);
      expect(errors.fill_disk).toMatch(/File too large|No space left/);
      expect(errors.open_socket).toMatch(/no network|Network is unreachable/);
      for (const name of Object.keys(errors).filter((n) => n !== 'well_behaved')) expect(classes[name]).toBe('not_working');
      // The campaign went on past the hostile targets and judged the last one.
      expect(classes.well_behaved).toBe('unsafe');
      expect(existsSync('/tmp/crashprobe-escape.txt')).toBe(false);
    });
  }
});
