// Precision of the static rules on real library code (issue 15): the scan of
// harness/corpus and test/corpus/libraries re-run, each finding matched to its judgement in
// test/corpus/judged-findings.json, counts per project and precision printed.
// A finding not yet judged is printed as UNJUDGED and left out of precision.
// test/corpus/libraries holds fetched copies that are not committed: a project absent here is said so, not scanned.
import { ABSENT_NOTE, floorCheck, percent, presence, readJudged, scanCorpus, tally } from './_corpus-precision.ts';

export default async function precision(log: (line: string) => void): Promise<void> {
  const judged = readJudged();
  const where = presence(judged);
  const found = await scanCorpus(where.present);
  const t = tally(found, judged, Object.keys(where.present));
  log('project          true  latent  false  unjudged');
  for (const [project, row] of t.perProject) {
    log(`${project.padEnd(16)} ${String(row.true).padStart(4)}  ${String(row.latent).padStart(6)}  ${String(row.false).padStart(5)}  ${String(row.unjudged).padStart(8)}`);
  }
  for (const project of where.absent) log(`${project.padEnd(16)} ${ABSENT_NOTE}`);
  const { total } = t;
  log(`${'all'.padEnd(16)} ${String(total.true).padStart(4)}  ${String(total.latent).padStart(6)}  ${String(total.false).padStart(5)}  ${String(total.unjudged).padStart(8)}`);
  const scope = where.absent.length ? `the ${Object.keys(where.present).length} project(s) present` : 'every project';
  log(`precision on library code, ${scope}: ${percent(t.precision)} of ${total.true + total.latent + total.false} judged finding(s) (true + latent over judged; aim 85%)`);
  const floor = floorCheck(t, where);
  log(`floor ${percent(judged.floor)} applies to ${floor.basis}: ${percent(floor.precision)}`);
  log(`at the first reading, before the rule fixes listed as resolved (${judged.resolved.length}): ${percent(t.precisionAsFirstJudged)}`);
  for (const f of t.unjudged) log(`UNJUDGED ${f.project} ${f.file}:${f.line} ${f.function} ${f.rule} (${f.id}): ${f.message}`);
  for (const j of t.stale) log(`no longer reported (move it to "resolved" with the fix, or remove it): ${j.project} ${j.file}:${j.line} ${j.function} ${j.rule}`);
}
