// Precision of the static rules on the real-world corpus's library code (issue 15):
// the scan re-run on each library's package (default excludes), every finding
// matched to the judgement recorded in judged-findings.json after reading the code.
// Fails when a finding appears that nobody has judged, when a judged one is no
// longer reported (it then belongs in `resolved`, with the fix), or when precision
// falls below the floor the judged list records.
// test/corpus/libraries holds fetched copies that are not committed (a clean clone has
// only harness/corpus): only the projects present are checked, and the rest are logged
// as not checked; the floor then applies to the judged list as recorded (floorCheck).
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ABSENT_NOTE,
  CORPUS_DIRS,
  corpusProjects,
  floorCheck,
  presence,
  readJudged,
  scanCorpus,
  tally,
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
    found = await scanCorpus(where.present);
  }, 60_000);
  const scanned = (): string[] => Object.keys(where.present);

  it('judges every corpus project that is here, and only fetched ones may be absent', () => {
    expect([...corpusProjects().keys()].sort()).toEqual(scanned().sort());
    expect(where.absent.every((project) => judged.fetched.includes(project))).toBe(true);
  });

  it('has a judgement for every finding the scan reports (judge a new one by reading the code, then list it)', () => {
    const unjudged = tally(found, judged, scanned()).unjudged.map((f) => `${f.project} ${f.file}:${f.line} ${f.function} ${f.rule} ${f.id}`);
    expect(unjudged).toEqual([]);
  });

  it('lists no judged finding of a project here that the scan no longer reports (move it to "resolved" with the fix)', () => {
    expect(tally(found, judged, scanned()).stale.map((j) => `${j.project} ${j.file}:${j.line} ${j.function} ${j.rule}`)).toEqual([]);
  });

  it('keeps precision at or above the floor the judged list records, and the floor at the measured figure', () => {
    const check = floorCheck(tally(found, judged, scanned()), where);
    console.info(`precision: floor ${judged.floor} checked on ${check.basis}: ${check.precision}`);
    expect(check.precision ?? 0).toBeGreaterThanOrEqual(judged.floor);
    // A ratchet: when precision rises, raise the floor with it.
    expect((check.precision ?? 0) - judged.floor).toBeLessThan(0.02);
  });

  it('reaches 85% precision on library code (issue 15)', () => {
    expect(floorCheck(tally(found, judged, scanned()), where).precision ?? 0).toBeGreaterThanOrEqual(0.85);
  });

  it('in a clean clone (harness/corpus only) checks the committed projects, names the absent ones, and floors the list as recorded', async () => {
    const committedOnly = corpusProjects(CORPUS_DIRS.filter((dir) => !dir.endsWith(path.join('test', 'corpus', 'libraries'))));
    const clean = presence(judged, committedOnly);
    expect(clean.absent.sort()).toEqual([...judged.fetched].sort());
    expect(Object.keys(clean.present).sort()).toEqual([...committedOnly.keys()].sort());
    const t = tally(await scanCorpus(clean.present, committedOnly), judged, Object.keys(clean.present));
    expect(t.unjudged).toEqual([]);
    expect(t.stale).toEqual([]);
    const check = floorCheck(t, clean);
    expect(check.basis).toContain(ABSENT_NOTE);
    expect(check.precision).toBe(judged.findings.filter((j) => j.judgement !== 'false').length / judged.findings.length);
  }, 60_000);
});
