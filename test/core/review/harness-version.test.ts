import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HARNESS_VERSION } from '../../../src/core/review/verdict-cache.ts';

describe('harness version', () => {
  it('the verdict cache keys on the version the Python harness declares', () => {
    const init = readFileSync(path.resolve(import.meta.dirname, '../../../harness/crashprobe/__init__.py'), 'utf8');
    expect(/HARNESS_VERSION = "([^"]+)"/.exec(init)?.[1]).toBe(HARNESS_VERSION);
  });
});
