import { describe, expect, it } from 'vitest';
import { dependencyHarness, withDependencies } from '../../../src/adapters/env/dependency-runner.ts';
import type { CampaignResult } from '../../../src/core/crash/protocol.ts';
import { parseConfig } from '../../../src/core/config/schema.ts';
import { silentLogger, type HarnessRunner } from '../../../src/core/ports.ts';

const empty = (): CampaignResult => ({ scenarios: [], errors: [], notes: [], runs: 0, seconds: 0 });
const runner = (name: string, used: string[]): HarnessRunner => ({
  run: async () => (used.push(name), empty()),
});

describe('withDependencies', () => {
  it('provisions once, on the first run with files, and runs with the environment\'s harness', async () => {
    const used: string[] = [];
    const provisioned: string[] = [];
    const notes: string[] = [];
    const wrapped = withDependencies({
      fallback: runner('app', used),
      mode: 'auto',
      provision: async (root) => (provisioned.push(root), { python: '/envs/x/venv/bin/python', installedFrom: ['requirements.txt'], notes: ['installed'] }),
      harnessFor: async (python) => ({ harness: runner(python, used) }),
      notes,
    });
    await wrapped.run([]);
    expect(provisioned).toEqual([]);
    await wrapped.run([{ file: '/head/s.py', root: '/head' }]);
    await wrapped.run([{ file: '/base/s.py', root: '/base' }]);
    expect(provisioned).toEqual(['/head']);
    expect(used).toEqual(['app', '/envs/x/venv/bin/python', '/envs/x/venv/bin/python']);
    expect(notes).toEqual(['installed']);
  });

  it('falls back to the App\'s interpreter, and says so, when the harness does not start with the environment', async () => {
    const used: string[] = [];
    const notes: string[] = [];
    const wrapped = withDependencies({
      fallback: runner('app', used),
      mode: 'auto',
      provision: async () => ({ python: '/envs/x/venv/bin/python', notes: [] }),
      harnessFor: async () => ({ offReason: 'it broke' }),
      notes,
    });
    await wrapped.run([{ file: '/head/s.py', root: '/head' }]);
    expect(used).toEqual(['app']);
    expect(notes).toEqual(["The crash harness could not start with the built environment (it broke); crash tests ran with the App's interpreter."]);
  });

  it('with dependencies off, provisions nothing', async () => {
    const used: string[] = [];
    let asked = false;
    const wrapped = withDependencies({
      fallback: runner('app', used),
      mode: 'off',
      provision: async () => ((asked = true), { notes: [] }),
      harnessFor: async () => ({}),
      notes: [],
    });
    await wrapped.run([{ file: '/head/s.py', root: '/head' }]);
    expect(asked).toBe(false);
    expect(used).toEqual(['app']);
  });

  it('for a review: says why nothing is installed when the harness does not run or the deployment builds no environments', async () => {
    const config = parseConfig({ harness: { dependencies: 'auto' } });
    const options = { config, repo: '1/a/b', logger: silentLogger, harnessFor: async () => ({}) };
    expect(dependencyHarness({ offReason: 'fork' }, options)).toEqual({
      choice: { offReason: 'fork' },
      notes: ['Dependencies were not installed: the crash harness does not run for this pull request.'],
    });
    const used: string[] = [];
    const { choice, notes } = dependencyHarness({ harness: runner('app', used) }, options);
    await choice.harness!.run([{ file: '/head/s.py', root: '/head' }]);
    expect(used).toEqual(['app']);
    expect(notes).toEqual(['Dependencies were not installed: this deployment of the App does not install them.']);
    expect(dependencyHarness({ offReason: 'fork' }, { ...options, config: parseConfig({}) }).notes).toEqual([]);
  });
});
