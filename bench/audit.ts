// The audit's deterministic parts, measured: the pass planner on the installed
// Python standard library as if every file had changed (passes, files per pass,
// tokens planned, and that a second plan is byte-identical), and the matcher on
// the labelled finding pairs, by the similarity signals alone and with a judge
// behind the filter. No network: the judge here is an oracle replaying the
// labels (so that figure measures what the filter lets through, not an LLM),
// and is said so in the output.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { duplicatePairs, type PairJudge } from '../src/core/audit/matching.ts';
import { DEFAULT_PLAN_OPTIONS, planJson, planPasses } from '../src/core/audit/planner.ts';
import { likelyPair, signals, signalsSayDuplicate, type MatchItem } from '../src/core/audit/similarity.ts';
import { buildRepoIndex, summarizeModule, type ModuleSummary } from '../src/core/python/callgraph.ts';
import { parseModule } from '../src/core/python/parse.ts';
import { stdlibPythonFiles, stdlibRoot } from './_stdlib.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

const ms = (since: number) => performance.now() - since;
const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

async function planStdlib(log: (line: string) => void): Promise<void> {
  const root = stdlibRoot();
  const files = stdlibPythonFiles(root).sort();
  let started = performance.now();
  const summaries: ModuleSummary[] = files.map((file) => summarizeModule(parseModule(path.relative(root, file).split(path.sep).join('/'), readFileSync(file))));
  const index = buildRepoIndex(summaries);
  log(`standard library ${root}: ${files.length} files parsed and indexed in ${(ms(started) / 1000).toFixed(1)} s (${index.edges.length.toLocaleString('en-US')} call edges)`);
  const targets = summaries.map((s) => s.path);
  started = performance.now();
  const plan = planPasses(index, targets);
  const planMs = ms(started);
  started = performance.now();
  const again = planJson(planPasses(buildRepoIndex(summaries), [...targets].reverse()));
  const identical = again === planJson(plan);
  const sizes = plan.passes.map((p) => p.files.length).sort((a, b) => a - b);
  const own = plan.passes.filter((p) => p.kind === 'own');
  const planned = plan.passes.flatMap((p) => p.files).length;
  const tokens = plan.passes.reduce((n, p) => n + p.tokens, 0);
  const partners = plan.passes.reduce((n, p) => n + p.callers.length + p.callees.length, 0);
  log(`planning every file as changed: ${planMs.toFixed(0)} ms (budget ${DEFAULT_PLAN_OPTIONS.tokenBudget.toLocaleString('en-US')} tokens a pass, own-pass score ${DEFAULT_PLAN_OPTIONS.ownPassScore})`);
  log(`  ${plan.passes.length} passes over ${planned} files (${plan.skipped.length} test files skipped); ${own.length} own passes (${((100 * own.length) / planned).toFixed(1)}% of files, cap 15%)`);
  log(`  files per pass: min ${sizes[0]}, median ${quantile(sizes, 0.5)}, p90 ${quantile(sizes, 0.9)}, max ${sizes.at(-1)}; oversize single files: ${plan.passes.filter((p) => p.oversize).length}`);
  log(`  tokens planned (code + partner snippets): ${tokens.toLocaleString('en-US')}, ${Math.round(tokens / plan.passes.length).toLocaleString('en-US')} a pass; partner snippets: ${partners.toLocaleString('en-US')}`);
  log(`  a second plan from a fresh index and reversed targets is byte-identical: ${identical ? 'yes' : 'NO'} (${ms(started).toFixed(0)} ms)`);
}

interface LabelledPair {
  label: 'same' | 'different';
  kind: string;
  a: MatchItem;
  b: MatchItem;
}

function score(said: readonly boolean[], pairs: readonly LabelledPair[]): string {
  const tp = pairs.filter((p, i) => p.label === 'same' && said[i]).length;
  const fp = pairs.filter((p, i) => p.label === 'different' && said[i]).length;
  const fn = pairs.filter((p, i) => p.label === 'same' && !said[i]).length;
  const precision = tp + fp ? tp / (tp + fp) : 1;
  const recall = tp + fn ? tp / (tp + fn) : 1;
  return `precision ${(100 * precision).toFixed(1)}%, recall ${(100 * recall).toFixed(1)}% (${tp} true, ${fp} false matches, ${fn} missed)`;
}

async function matcher(log: (line: string) => void): Promise<void> {
  const pairs: LabelledPair[] = JSON.parse(readFileSync(path.join(here, '../test/fixtures/audit/labelled-pairs.json'), 'utf8')).pairs;
  const same = pairs.filter((p) => p.label === 'same').length;
  log(`matcher on ${pairs.length} labelled pairs (${same} same bug, ${pairs.length - same} different; thresholds were set by hand with this table in view, so these are in-sample figures)`);
  const kept = pairs.map((p) => likelyPair(signals(p.a, p.b)));
  log(`  six-signal filter: sends ${kept.filter(Boolean).length} of ${pairs.length} pairs to the judge, keeping ${pairs.filter((p, i) => p.label === 'same' && kept[i]).length} of ${same} same-bug pairs`);
  const signalsOnly = pairs.map((p) => signalsSayDuplicate(signals(p.a, p.b)));
  log(`  signals only:               ${score(signalsOnly, pairs)}`);
  const hard = pairs.map((p, i) => [p, i] as const).filter(([p]) => p.kind !== 'easy');
  log(`  signals only, hard cases:   ${score(hard.map(([, i]) => signalsOnly[i]!), hard.map(([p]) => p))}`);
  const truth = new Map(pairs.map((p) => [p.a, p.label === 'same'] as const));
  const oracle: PairJudge = async (batch) => batch.map(([a]) => truth.get(a)!);
  const judged = await Promise.all(pairs.map(async (p) => (await duplicatePairs([p.a, p.b], oracle)).length === 1));
  log(`  filter + oracle judge:      ${score(judged, pairs)}`);
  log('  (the oracle replays the labels: no LLM runs in the bench, so this is the ceiling the filter allows a perfect judge, not a model\'s figure;');
  log("   PROBE's judge measured 98.8% precision, 97.6% recall; measure a model's with `crashprobe eval-audit` and an LLM configured)");
}

export default async function bench(log: (line: string) => void): Promise<void> {
  await planStdlib(log);
  await matcher(log);
}
