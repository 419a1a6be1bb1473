// The real-world corpus: public libraries that write to sqlite3 and files, taken from the
// Debian packages scripts/setup.sh installs (no copy of their code is committed), with our
// scenarios in harness/corpus/<project> written against the contract, and in each
// project's expected.json the Debian version read and the class, double-applying and full
// crash safety judged by reading that version's code. Each project is assembled in a
// temporary folder (the library's own package, not its tests, plus our scenario files)
// and run with the fork server under the sandbox (when bubblewrap works here) and with a
// fresh interpreter per run and no sandbox: the verdicts must not depend on either. A
// verdict the harness is known to get wrong carries a `known_wrong` reason: it is asserted
// as still wrong, so a harness fix flips the test loudly and the entry's `known_wrong` is
// then removed.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCampaign } from '../../src/adapters/harness/campaign.ts';
import { prepareHarness } from '../../src/adapters/harness/prepare.ts';
import type { CampaignResult, ScenarioVerdict } from '../../src/core/crash/protocol.ts';
import { assembleProject, debianPackage, expectVersion, type DebianPackage } from '../support/debian-corpus.ts';

const CORPUS = path.resolve(import.meta.dirname, '../../harness/corpus');

const expectationSchema = z
  .object({
    class: z.enum(['unsafe', 'safe_by_accident', 'safe_by_design', 'not_working']),
    double_applies: z.boolean(),
    fully_crash_safe: z.boolean(),
    note: z.string(),
    /** Set while the harness judges this scenario differently from the reading: why. */
    known_wrong: z.string().optional(),
  })
  .strict();
const expectedFileSchema = z
  .object({
    /** The Debian package whose code the scenarios run on, and the version the judgements were read against. */
    debian: z
      .object({
        package: z.string(),
        version: z.string(),
        /** The library's own top-level modules and package folders under dist-packages. */
        modules: z.array(z.string()).min(1),
        /** Paths inside them left out (tests shipped inside the package). */
        without: z.array(z.string()),
      })
      .strict(),
    scenarios: z.record(expectationSchema),
  })
  .strict();

interface Project {
  name: string;
  /** Our committed files: scenarios, expected.json, SOURCE.md, pyproject.toml (the root marker). */
  ours: string;
  pkg: DebianPackage;
  /** The temporary folder the campaign runs in: the library plus our files. */
  dir: string;
  expected: z.infer<typeof expectedFileSchema>;
}

function readProjects(): Project[] {
  return readdirSync(CORPUS, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(CORPUS, d.name, 'expected.json')))
    .map((d) => {
      const ours = path.join(CORPUS, d.name);
      const expected = expectedFileSchema.parse(JSON.parse(readFileSync(path.join(ours, 'expected.json'), 'utf8')));
      const pkg = debianPackage(expected.debian.package);
      return { name: d.name, ours, pkg, expected, dir: '' };
    });
}

function judged(v: ScenarioVerdict) {
  return { class: v.class, double_applies: v.double_applies, fully_crash_safe: v.fully_crash_safe };
}

describe('the real-world corpus', () => {
  const runs: Record<string, CampaignResult> = {};
  let projects: Project[] = [];
  beforeAll(async () => {
    // A package not installed throws here, saying to run scripts/setup.sh: every test then fails.
    projects = readProjects();
    for (const p of projects) {
      expectVersion(p.pkg, p.expected.debian.version);
      p.dir = assembleProject(p.pkg, [p.ours], p.expected.debian.modules, p.expected.debian.without);
    }
    const sandboxed = await prepareHarness({ python: 'python3', sandbox: 'auto', searchPath: ['/usr/bin', '/bin', '/usr/local/bin'] });
    const bare = await prepareHarness({ python: 'python3', sandbox: 'none', searchPath: ['/usr/bin', '/bin', '/usr/local/bin'] });
    const dirs = projects.map((p) => p.dir);
    runs['fork, sandbox auto'] = await runCampaign(dirs, { ...sandboxed.options, isolation: 'fork', concurrency: 2 });
    runs['spawn, no sandbox'] = await runCampaign(dirs, { ...bare.options, isolation: 'spawn', concurrency: 2 });
  }, 240_000);
  afterAll(() => projects.forEach((p) => p.dir && rmSync(p.dir, { recursive: true, force: true })));

  it('has at least three projects, each from its Debian package at the version judged, with its copyright file', () => {
    expect(projects.length).toBeGreaterThanOrEqual(3);
    for (const p of projects) {
      expect(p.pkg.version, `${p.name}: Debian version`).toBe(p.expected.debian.version);
      expect(existsSync(p.pkg.copyright), `${p.name}: ${p.pkg.copyright}`).toBe(true);
      for (const module of p.expected.debian.modules) {
        expect(existsSync(path.join(p.dir, module)), `${p.name}: ${module} from ${p.pkg.name}`).toBe(true);
      }
      const source = readFileSync(path.join(p.ours, 'SOURCE.md'), 'utf8');
      expect(source, `${p.name}: SOURCE.md names the package`).toContain(p.pkg.name);
      expect(source, `${p.name}: SOURCE.md names the version`).toContain(p.pkg.version);
      expect(source, `${p.name}: SOURCE.md says where the license is`).toContain(p.pkg.copyright);
      // No copy of the library in the committed folder: only our own files.
      for (const module of p.expected.debian.modules) {
        expect(existsSync(path.join(p.ours, module)), `${p.name}: a copy of ${module} is committed; delete it`).toBe(false);
      }
    }
  });

  for (const mode of ['fork, sandbox auto', 'spawn, no sandbox']) {
    it(`classifies every scenario as the code reads (${mode}), known mismatches still as known`, () => {
      const result = runs[mode]!;
      expect(result.errors).toEqual([]);
      const mismatches: string[] = [];
      const stillWrong: string[] = [];
      for (const p of projects) {
        for (const [name, want] of Object.entries(p.expected.scenarios)) {
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
      const known = projects.flatMap((p) => Object.entries(p.expected.scenarios).filter(([, w]) => w.known_wrong).map(([n]) => `${p.name}/${n}`));
      expect(stillWrong).toEqual(known);
    });
  }

  it('gives the same verdicts with and without the sandbox, with the fork server and a fresh interpreter', () => {
    const name = (root: string) => projects.find((p) => p.dir === root)?.name ?? root;
    const verdicts = (result: CampaignResult) => result.scenarios.map((v) => `${name(v.root)}/${v.name}: ${JSON.stringify(judged(v))}`).sort();
    expect(verdicts(runs['spawn, no sandbox']!)).toEqual(verdicts(runs['fork, sandbox auto']!));
  });
});
