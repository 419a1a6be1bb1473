// The real-world corpus (harness/corpus): pinned files of public libraries that
// write to sqlite3 and files, scenarios written against the contract, and in each
// project's expected.json the class, double-applying and full crash safety judged
// by reading the code. Run with the fork server under the sandbox (when bubblewrap
// works here) and with a fresh interpreter per run and no sandbox: the verdicts
// must not depend on either. A verdict the harness is known to get wrong carries a
// `known_wrong` reason: it is asserted as still wrong, so a harness fix flips the
// test loudly and the entry's `known_wrong` is then removed.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCampaign } from '../../src/adapters/harness/campaign.ts';
import { prepareHarness } from '../../src/adapters/harness/prepare.ts';
import type { CampaignResult, ScenarioVerdict } from '../../src/core/crash/protocol.ts';

const CORPUS = path.resolve(import.meta.dirname, '../../harness/corpus');

const expectationSchema = z.object({
  class: z.enum(['unsafe', 'safe_by_accident', 'safe_by_design', 'not_working']),
  double_applies: z.boolean(),
  fully_crash_safe: z.boolean(),
  note: z.string(),
  /** Set while the harness judges this scenario differently from the reading: why. */
  known_wrong: z.string().optional(),
});
const expectedFileSchema = z.record(expectationSchema);

const projects = readdirSync(CORPUS, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(path.join(CORPUS, d.name, 'expected.json')))
  .map((d) => ({
    name: d.name,
    dir: path.join(CORPUS, d.name),
    expected: expectedFileSchema.parse(JSON.parse(readFileSync(path.join(CORPUS, d.name, 'expected.json'), 'utf8'))),
  }));

function judged(v: ScenarioVerdict) {
  return { class: v.class, double_applies: v.double_applies, fully_crash_safe: v.fully_crash_safe };
}

describe('the real-world corpus', () => {
  const runs: Record<string, CampaignResult> = {};
  beforeAll(async () => {
    const sandboxed = await prepareHarness({ python: 'python3', sandbox: 'auto', searchPath: ['/usr/bin', '/bin', '/usr/local/bin'] });
    const bare = await prepareHarness({ python: 'python3', sandbox: 'none', searchPath: ['/usr/bin', '/bin', '/usr/local/bin'] });
    const dirs = projects.map((p) => p.dir);
    runs['fork, sandbox auto'] = await runCampaign(dirs, { ...sandboxed.options, isolation: 'fork', concurrency: 2 });
    runs['spawn, no sandbox'] = await runCampaign(dirs, { ...bare.options, isolation: 'spawn', concurrency: 2 });
  }, 240_000);

  it('has at least four projects, each with its license and its source commit recorded', () => {
    expect(projects.length).toBeGreaterThanOrEqual(4);
    for (const p of projects) {
      const files = readdirSync(p.dir);
      expect(files.some((f) => /^LICEN[CS]E/i.test(f)), `${p.name}: LICENSE`).toBe(true);
      expect(readFileSync(path.join(p.dir, 'SOURCE.md'), 'utf8'), `${p.name}: SOURCE.md`).toMatch(/[0-9a-f]{40}/);
    }
  });

  for (const mode of ['fork, sandbox auto', 'spawn, no sandbox']) {
    it(`classifies every scenario as the code reads (${mode}), known mismatches still as known`, () => {
      const result = runs[mode]!;
      expect(result.errors).toEqual([]);
      const mismatches: string[] = [];
      const stillWrong: string[] = [];
      for (const p of projects) {
        for (const [name, want] of Object.entries(p.expected)) {
          const verdict = result.scenarios.find((v) => v.root === p.dir && v.name === name);
          if (!verdict) {
            mismatches.push(`${p.name}/${name}: no verdict`);
            continue;
          }
          const got = judged(verdict);
          const { known_wrong: knownWrong, note: _note, ...wanted } = want;
          const same = JSON.stringify(got) === JSON.stringify(wanted);
          if (knownWrong) {
            // Still wrong, as recorded; when it matches, the harness was fixed: drop known_wrong from expected.json.
            if (same) mismatches.push(`${p.name}/${name}: judged right now; remove its known_wrong ("${knownWrong}")`);
            else stillWrong.push(`${p.name}/${name}`);
          } else if (!same) {
            mismatches.push(`${p.name}/${name}: ${JSON.stringify(got)}, read as ${JSON.stringify(wanted)}`);
          }
        }
      }
      expect(mismatches).toEqual([]);
      const known = projects.flatMap((p) => Object.entries(p.expected).filter(([, w]) => w.known_wrong).map(([n]) => `${p.name}/${n}`));
      expect(stillWrong).toEqual(known);
    });
  }

  it('gives the same verdicts with and without the sandbox, with the fork server and a fresh interpreter', () => {
    const verdicts = (result: CampaignResult) => result.scenarios.map((v) => `${path.basename(v.root)}/${v.name}: ${JSON.stringify(judged(v))}`).sort();
    expect(verdicts(runs['spawn, no sandbox']!)).toEqual(verdicts(runs['fork, sandbox auto']!));
  });
});
