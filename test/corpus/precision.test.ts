// Precision of the static rules on real library code (issue 15): the scan re-run on each
// project's package (default excludes), every finding matched to the judgement recorded in
// judged-findings.json after reading the code. Fails when a finding appears that nobody has
// judged, when a judged one is no longer reported (it then belongs in `resolved`, with the
// fix), when the tuned set's precision falls below its floor, or when the unseen set's
// figure differs from the one recorded (no floor there: a drop must be recorded, not hidden).
// Debian projects (scripts/setup.sh installs them) are checked on every clone: a missing
// package or another version fails and says what to do. Fetched copies in
// test/corpus/libraries are optional: absent ones are logged NOT CHECKED.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ABSENT_NOTE,
  floorCheck,
  onlySet,
  presence,
  readJudged,
  scanCorpus,
  tally,
  unusedLibraryFolders,
  type CorpusFinding,
  type JudgedList,
  type Presence,
} from '../../bench/_corpus-precision.ts';

describe('precision on the corpus library code', () => {
  let judged: JudgedList;
  let where: Presence;
  let found: CorpusFinding[];
  beforeAll(async () => {
    judged = readJudged();
    where = presence(judged);
    for (const project of where.absent) console.warn(`precision: ${project} NOT CHECKED, ${ABSENT_NOTE}`);
    for (const folder of unusedLibraryFolders(judged)) console.warn(`precision: test/corpus/libraries/${folder} is not used (not a fetched project of judged-findings.json)`);
    found = await scanCorpus(where.present);
    // One scan of every project (59 of them, about 50 s alone on this machine): room for a loaded CI runner.
  }, 300_000);
  afterAll(() => where?.dispose());
  const scanned = (): string[] => Object.keys(where.present);
  const tuned = (): JudgedList => onlySet(judged, 'tuned');
  const tunedAbsent = (): string[] => where.absent.filter((p) => p in tuned().projects);

  it('scans every Debian project (only fetched copies may be absent)', () => {
    const debian = Object.entries(judged.projects).filter(([, p]) => p.from === 'debian').map(([name]) => name);
    expect(debian.filter((p) => !scanned().includes(p))).toEqual([]);
    expect(where.absent.every((p) => judged.projects[p]?.from === 'fetched')).toBe(true);
  });

  it('has a judgement for every finding the scan reports (judge a new one by reading the code, then list it)', () => {
    const unjudged = tally(found, judged, scanned()).unjudged.map((f) => `${f.project} ${f.file}:${f.line} ${f.function} ${f.rule} ${f.id}`);
    expect(unjudged).toEqual([]);
  });

  it('lists no judged finding of a project here that the scan no longer reports (move it to "resolved" with the fix)', () => {
    expect(tally(found, judged, scanned()).stale.map((j) => `${j.project} ${j.file}:${j.line} ${j.function} ${j.rule}`)).toEqual([]);
  });

  it('keeps the tuned set at or above the floor the judged list records, and the floor at the measured figure', () => {
    const check = floorCheck(tally(found, tuned(), scanned()), tunedAbsent());
    console.info(`precision (tuned): floor ${judged.floor} checked on ${check.basis}: ${check.precision}`);
    expect(check.precision ?? 0).toBeGreaterThanOrEqual(judged.floor);
    // A ratchet: when precision rises, raise the floor with it. Issue 15's aim (85%) is printed beside
    // the figure, and the whole corpus's, by `npm run bench -- precision`; both are below it (see `about`).
    expect((check.precision ?? 0) - judged.floor).toBeLessThan(0.02);
  });

  it('measures the unseen set as recorded: any change, up or down, is recorded again, never floored', () => {
    const t = tally(found, onlySet(judged, 'unseen'), scanned());
    const measured = { judged: t.total.true + t.total.latent + t.total.false, right: t.total.true + t.total.latent };
    console.info(`precision (unseen): ${measured.right} right of ${measured.judged} judged`);
    expect(measured).toEqual(judged.unseen);
  });

  it('fails on a Debian package that is not installed, or at another version, saying what to do', () => {
    const one = (spec: JudgedList['projects'][string]): JudgedList => ({ ...judged, projects: { probe: spec }, findings: [], resolved: [] });
    expect(() => presence(one({ from: 'debian', package: 'crashprobe-no-such-package', version: '1', target: 'x', set: 'tuned' }))).toThrow(/scripts\/setup\.sh/);
    const diskcache = judged.projects['diskcache'];
    if (diskcache?.from !== 'debian') throw new Error('diskcache is expected to come from Debian');
    expect(() => presence(one({ ...diskcache, version: `${diskcache.version}~other` }))).toThrow(/read the changed code again/);
  });

  it('in a clean clone (no test/corpus/libraries) checks every Debian project, names the absent fetched ones, and floors the tuned list as recorded', async () => {
    const noLibraries = mkdtempSync(path.join(tmpdir(), 'crashprobe-no-libraries-'));
    const clean = presence(judged, noLibraries);
    try {
      const fetched = Object.entries(judged.projects).filter(([, p]) => p.from === 'fetched').map(([name]) => name);
      expect(clean.absent.sort()).toEqual(fetched.sort());
      const t = tally(await scanCorpus(clean.present), judged, Object.keys(clean.present));
      expect(t.unjudged).toEqual([]);
      expect(t.stale).toEqual([]);
      const check = floorCheck(tally([], tuned(), []), clean.absent.filter((p) => p in tuned().projects));
      expect(check.basis).toContain(ABSENT_NOTE);
      const tunedFindings = tuned().findings;
      expect(check.precision).toBe(tunedFindings.filter((j) => j.judgement !== 'false').length / tunedFindings.length);
    } finally {
      clean.dispose();
      rmSync(noLibraries, { recursive: true, force: true });
    }
  }, 300_000);
});
