import { describe, expect, it } from 'vitest';
import { chooseHarness, harnessOffReason } from '../../src/adapters/harness.ts';
import { parseConfig } from '../../src/core/config/schema.ts';
import { silentLogger } from '../../src/core/ports.ts';

describe('whether the Action runs the crash harness', () => {
  const defaults = parseConfig({});
  const forksOn = parseConfig({ harness: { forks: true } });

  it('runs it on a pull request from the same repository by default', () => {
    expect(harnessOffReason(defaults, { enabled: true, fromFork: false })).toBeUndefined();
  });

  it('keeps it off when the input or the config says so, and says which', () => {
    expect(harnessOffReason(defaults, { enabled: false, offBecause: "the Action's `harness` input is false", fromFork: false })).toMatch(/`harness` input is false/);
    expect(harnessOffReason(parseConfig({ harness: { enabled: false } }), { enabled: true, fromFork: false })).toMatch(/harness\.enabled: false/);
  });

  it("does not run a fork's code unless the config allows it", () => {
    expect(harnessOffReason(defaults, { enabled: true, fromFork: true })).toMatch(/comes from a fork/);
    expect(harnessOffReason(forksOn, { enabled: true, fromFork: true })).toBeUndefined();
  });

  it('goes on without it, saying why, when the interpreter does not run', async () => {
    const choice = await chooseHarness(
      defaults,
      { enabled: true, fromFork: false, python: '/nonexistent/python3', searchPath: [] },
      silentLogger,
    );
    expect(choice.harness).toBeUndefined();
    expect(choice.offReason).toMatch(/^The crash harness could not start: Python interpreter \/nonexistent\/python3 does not run/);
  });
});
