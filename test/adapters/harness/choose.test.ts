import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { budgetedRunner, chooseHarness, harnessOffReason } from '../../../src/adapters/harness/choose.ts';
import { prepareHarness } from '../../../src/adapters/harness/prepare.ts';
import { parseConfig } from '../../../src/core/config/schema.ts';
import { silentLogger } from '../../../src/core/ports.ts';

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

describe("the review's harness budget (issue 9, requirement 10)", () => {
  const reference = path.resolve(import.meta.dirname, '../../../harness/reference/transfer_money');
  const files = ['with_conn_block', 'begin_rollback', 'autocommit_switch'].map((d) => ({ file: path.join(reference, d, 'crash_scenarios.py'), root: path.join(reference, d) }));

  it('runs at most harness.budget.scenario_files files and names the rest as not run, with the knob', async () => {
    const prepared = await prepareHarness({ python: 'python3', sandbox: 'none', searchPath: ['/usr/bin', '/bin', '/usr/local/bin'] });
    const runner = budgetedRunner({ ...prepared.options, isolation: 'fork', concurrency: 1 }, { ...parseConfig({}).harness.budget, scenario_files: 1 });
    const result = await runner.run(files.slice(0, 2));
    expect(new Set(result.scenarios.map((s) => s.root))).toEqual(new Set([files[0]!.root]));
    expect(result.errors).toEqual([{ file: 'crash_scenarios.py', message: expect.stringMatching(/^not run: .*1 scenario files \(harness\.budget\.scenario_files\)/) }]);
  }, 120_000);

  it('starts no file once the minutes are used up, across the head and base passes of one review', async () => {
    const prepared = await prepareHarness({ python: 'python3', sandbox: 'none', searchPath: ['/usr/bin', '/bin', '/usr/local/bin'] });
    let clock = 0;
    const runner = budgetedRunner({ ...prepared.options, isolation: 'fork', concurrency: 1 }, { ...parseConfig({}).harness.budget, minutes: 1 }, [], undefined, () => clock);
    const head = await runner.run([files[0]!]);
    expect(head.errors).toEqual([]);
    expect(head.scenarios.length).toBeGreaterThan(0);
    clock = 61_000;
    const base = await runner.run([files[1]!, files[2]!]);
    expect(base.scenarios).toEqual([]);
    expect(base.errors.map((e) => e.message)).toEqual([0, 1].map(() => expect.stringMatching(/budget of 1 minutes \(harness\.budget\.minutes\) was used up/)));
  }, 120_000);
});
