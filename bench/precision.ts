// Precision of the static rules on real library code (issue 15): each project of
// test/corpus/judged-findings.json scanned (Debian packages from scripts/setup.sh; local fetched
// copies in test/corpus/libraries when here), each finding matched to its judgement, counts per
// project (with each project's own precision) and precision printed apart for the tuned corpus
// and for unseen code.
// A finding not yet judged is printed as UNJUDGED and left out of precision.
import { ABSENT_NOTE, floorCheck, onlySet, percent, presence, readJudged, scanCorpus, tally, type CorpusSet, type ProjectTally } from './_corpus-precision.ts';

const SET_TITLES: Record<CorpusSet, string> = { tuned: 'tuned corpus', unseen: 'unseen code' };

export default async function precision(log: (line: string) => void): Promise<void> {
  const judged = readJudged();
  const where = presence(judged);
  let found;
  try {
    found = await scanCorpus(where.present);
  } finally {
    where.dispose();
  }
  for (const set of ['tuned', 'unseen'] as const) {
    const list = onlySet(judged, set);
    const scanned = Object.keys(where.present).filter((p) => p in list.projects);
    const absent = where.absent.filter((p) => p in list.projects);
    const t = tally(found, list, scanned);
    if (set === 'unseen' && Object.keys(list.projects).length === 0) {
      // buku was the unseen program until the rules were tuned on it: its first reading is in judged-findings.json's `about`.
      log(`-- ${SET_TITLES[set]}: no project now (recorded ${judged.unseen.right} right of ${judged.unseen.judged}); the first reading of the last one is in judged-findings.json "about"`);
      continue;
    }
    log(`-- ${SET_TITLES[set]}`);
    log('project          true  latent  false  unjudged  precision  from');
    for (const [project, row] of t.perProject) {
      const spec = list.projects[project]!;
      const from = spec.from === 'debian' ? `Debian ${spec.package} ${spec.version}` : 'fetched copy';
      log(`${project.padEnd(16)} ${String(row.true).padStart(4)}  ${String(row.latent).padStart(6)}  ${String(row.false).padStart(5)}  ${String(row.unjudged).padStart(8)}  ${rowPrecision(row).padStart(9)}  ${from}`);
    }
    for (const project of absent) log(`${project.padEnd(16)} ${ABSENT_NOTE}`);
    const { total } = t;
    log(`${'all'.padEnd(16)} ${String(total.true).padStart(4)}  ${String(total.latent).padStart(6)}  ${String(total.false).padStart(5)}  ${String(total.unjudged).padStart(8)}  ${rowPrecision(total).padStart(9)}`);
    const scope = absent.length ? `the ${scanned.length} project(s) present` : 'every project';
    log(`precision, ${SET_TITLES[set]}, ${scope}: ${percent(t.precision)} of ${total.true + total.latent + total.false} judged finding(s) (true + latent over judged; aim 85%)`);
    if (set === 'tuned') {
      const floor = floorCheck(t, absent);
      log(`floor ${percent(judged.floor)} applies to ${floor.basis}: ${percent(floor.precision)}`);
      log(`at the first reading, before the rule fixes listed as resolved (${list.resolved.length}): ${percent(t.precisionAsFirstJudged)}`);
    } else {
      log(`recorded for unseen code (no floor): ${judged.unseen.right} right of ${judged.unseen.judged} judged (${percent(judged.unseen.judged ? judged.unseen.right / judged.unseen.judged : undefined)})`);
    }
    for (const f of t.unjudged) log(`UNJUDGED ${f.project} ${f.file}:${f.line} ${f.function} ${f.rule} (${f.id}): ${f.message}`);
    for (const j of t.stale) log(`no longer reported (move it to "resolved" with the fix, or remove it): ${j.project} ${j.file}:${j.line} ${j.function} ${j.rule}`);
  }
  // Issue 15's figure is over the whole corpus's library code; the two sets above say how much of it the rules were tuned on.
  const whole = tally(found, judged, Object.keys(where.present));
  const { total } = whole;
  const scope = where.absent.length ? `the ${Object.keys(where.present).length} project(s) present` : 'every project';
  log(`-- whole corpus, ${scope}: ${rowPrecision(total)} (tuned and unseen together; aim 85%)`);
}

/** One row's right of judged, e.g. '2/3 67%' ('-' with nothing judged): a project's own figure, beside the set's. */
function rowPrecision(row: ProjectTally): string {
  const judged = row.true + row.latent + row.false;
  return judged ? `${row.true + row.latent}/${judged} ${percent((row.true + row.latent) / judged)}` : '-';
}
