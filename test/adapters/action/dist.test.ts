// action/dist is committed (an Action runs what is in the repository, with no
// install step): rebuilding it from the sources must give the same bytes.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAction, DEFAULT_OUT_DIR } from '../../../scripts/build-action.ts';

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    // Bytecode the harness compiles for itself at run time (git ignores it): not part of what is built.
    if (entry.name === '__pycache__') continue;
    const relative = path.posix.join(prefix, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(path.join(dir, entry.name), relative)));
    else files.push(relative);
  }
  return files.sort();
}

describe('action/dist', () => {
  let fresh: string;
  beforeAll(async () => {
    fresh = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-dist-'));
    await buildAction(fresh);
  }, 120_000);
  afterAll(() => rm(fresh, { recursive: true, force: true }));

  it('is what `npm run build:action` builds from the current sources', async () => {
    const committed = await listFiles(DEFAULT_OUT_DIR);
    const rebuilt = await listFiles(fresh);
    expect(committed, 'action/dist is missing or has other files: run npm run build:action and commit action/dist').toEqual(rebuilt);
    const stale: string[] = [];
    for (const file of rebuilt) {
      const [before, after] = await Promise.all([readFile(path.join(DEFAULT_OUT_DIR, file)), readFile(path.join(fresh, file))]);
      if (!before.equals(after)) stale.push(file);
    }
    expect(stale, 'action/dist is stale: commit the sources, then run npm run build:action -- --from-commit HEAD and commit action/dist').toEqual([]);
  });

  it('ships the Python harness and the native addons for Linux', async () => {
    const files = await listFiles(fresh);
    expect(files).toContain('harness/crashprobe/__init__.py');
    expect(files).toContain('node_modules/tree-sitter/prebuilds/linux-x64/tree-sitter.node');
    expect(files).toContain('node_modules/tree-sitter-python/prebuilds/linux-x64/tree-sitter-python.node');
    expect((await readdir(path.join(fresh, 'harness/crashprobe'))).filter((f) => f === '__pycache__')).toEqual([]);
  });

  it('stays small: one minified bundle under 1.5 MB', async () => {
    const main = await readFile(path.join(fresh, 'main.js'));
    expect(main.byteLength).toBeLessThan(1_500_000);
  });

  it('is what action.yml runs', async () => {
    const actionYml = await readFile(path.join(fileURLToPath(new URL('../../../action/action.yml', import.meta.url))), 'utf8');
    expect(actionYml).toMatch(/^runs:\n {2}using: node24\n {2}main: dist\/index\.js$/m);
  });
});
