import { mkdtempSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appProvisioner } from '../../../src/adapters/env/app-provisioner.ts';
import { readEnvSettings } from '../../../src/adapters/env/settings.ts';
import { parseConfig } from '../../../src/core/config/schema.ts';
import { silentLogger } from '../../../src/core/ports.ts';
import { fixtureRepo } from './fixture-repo.ts';

const settings = () => readEnvSettings({ CRASHPROBE_PIP_INDEX_URL: 'http://127.0.0.1:9/simple/' }, path.join(mkdtempSync(path.join(os.tmpdir(), 'crashprobe-state-')), 's.db')).settings;
const config = (harness: Record<string, unknown>) => parseConfig({ harness });

describe('appProvisioner', () => {
  it('installs nothing without bubblewrap, and says how to fix it', async () => {
    // A PATH with python3 but no bwrap.
    const bin = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-bin-'));
    symlinkSync('/usr/bin/python3', path.join(bin, 'python3'));
    const { root } = fixtureRepo();
    const env = await appProvisioner(settings(), { python: 'python3', searchPath: [bin] })({ repo: '1/a/b', root, config: config({ dependencies: 'auto' }), logger: silentLogger });
    expect(env.python).toBeUndefined();
    expect(env.notes).toEqual([expect.stringMatching(/^Dependencies were not installed: they are installed only inside a bubblewrap sandbox, and bwrap is not installed .* Fix: install bubblewrap/)]);
  });

  it('says when there is nothing to install, or no python of the asked version', async () => {
    const { root } = fixtureRepo(null);
    const provision = appProvisioner(settings(), { python: 'python3', searchPath: ['/nonexistent'] });
    expect((await provision({ repo: '1/a/b', root, config: config({ dependencies: 'requirements' }), logger: silentLogger })).notes).toEqual([
      "`harness.dependencies: requirements` found no dependency file to install from; crash tests ran with the App's interpreter.",
    ]);
    const withReqs = fixtureRepo('tinydep\n').root;
    const notes = (await provision({ repo: '1/a/b', root: withReqs, config: config({ dependencies: 'auto', python_version: '3.99' }), logger: silentLogger })).notes;
    expect(notes[0]).toBe("harness.python_version is 3.99, but the App has no python3.99 on its PATH; its default interpreter was used.");
  });
});
