// Repairs on the reference suite: of the unsafe and safe-by-accident solutions, how
// many get a verified repair, deterministic or from the LLM (a fake one replaying the
// answers in test/fixtures/repair/llm-answers.json, written by hand: see their
// `source`), and how many candidates the crash test rejected. Safe-by-design
// solutions must get none.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultConcurrency, prepareHarness } from '../src/adapters/harness/prepare.ts';
import { repairReferenceSuite } from '../test/core/repair/reference-repairs.ts';
import { loadAnswers, replayLlm } from '../test/core/repair/replay-llm.ts';
import { tallyRepairs, tallyTable } from '../test/core/repair/tally.ts';

const ANSWERS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/repair/llm-answers.json');

export default async function bench(log: (line: string) => void): Promise<void> {
  const prepared = await prepareHarness({ python: 'python3', sandbox: 'auto', searchPath: ['/usr/bin', '/bin', '/usr/local/bin'] });
  const started = Date.now();
  const results = await repairReferenceSuite({ ...prepared.options, isolation: 'fork', concurrency: defaultConcurrency() }, replayLlm(loadAnswers(ANSWERS)));
  for (const line of tallyTable(tallyRepairs(results))) log(line);
  const design = results.filter((r) => r.intended === 'safe_by_design' && r.result?.attempts.length);
  log(`safe-by-design solutions given a repair: ${design.length} (must be 0)`);
  for (const r of results.filter((x) => x.intended !== 'safe_by_design')) {
    const tried = (r.result?.attempts ?? []).map((a) => `${a.candidate.strategies.join('+')}: ${a.verification.holds ? 'holds' : 'rejected'}`);
    log(`  ${r.solution}: ${tried.join('; ') || r.result?.skipped}`);
  }
  log(`wall time: ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

if (import.meta.url === `file://${process.argv[1]}`) await bench((line) => console.log(line));
