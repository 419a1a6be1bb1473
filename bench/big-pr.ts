// The big pull request (issue 13): a generated change touching 200 functions with
// 30 scenario files, reviewed end to end as `crashprobe review` does it (the
// CLI's config file, harness choice, git source and output formatting; the
// harness on), at 50, 100 and 200 functions (scenario files in proportion),
// with the wall time of each stage and its growth from one size to the next:
// doubling the functions should about double every stage, never quadruple it.
//
// The stages are timed from the outside, through the ports the review calls
// (source, harness, logger), so the review itself carries no timing code:
//   discovery/scan  start → the first scenario file is read
//   head judging    → the base is first read (of which: the head's crash campaign)
//   base judging    → the base's crash campaign ends (of which: that campaign)
//   audit, repairs  → the review asks for the checkouts' skipped files (of which: repairs' crash tests)
//   rendering       → the review is returned, plus the CLI's text formatting
// BENCH_BIG_PR_SIZES=50,100 picks other sizes.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chooseHarness } from '../src/adapters/harness/choose.ts';
import { formatReview } from '../src/adapters/cli/commands/review.ts';
import { loadConfigFile } from '../src/adapters/cli/config-file.ts';
import { gitSource } from '../src/adapters/cli/git-source.ts';
import type { HarnessRunner, Logger, PullRequestSource } from '../src/core/ports.ts';
import { reviewPullRequest } from '../src/core/review/review.ts';
import { pathFilter } from '../src/core/review/scenario-files.ts';
import { memoryStore } from '../src/core/review/verdict-cache.ts';
import { buildBigPullRequest } from './_big-pr-repo.ts';

const AIM_SECONDS_200 = 300;
/** Doubling the functions may double a stage's time, with some noise; above this, the stage is called superlinear. */
const AIM_GROWTH_PER_DOUBLING = 2.6;
const SIZES = (process.env.BENCH_BIG_PR_SIZES ?? '50,100,200').split(',').map(Number);
const STAGES = ['discovery/scan', 'head judging', 'base judging', 'audit, repairs', 'rendering'] as const;
type Stage = (typeof STAGES)[number];

interface Timed {
  functions: number;
  scenarioFiles: number;
  scenarios: number;
  wall: number;
  stages: Record<Stage, number>;
  /** The review's own CPU time per stage, which a loaded machine does not stretch. */
  cpu: Record<Stage, number>;
  campaign: { head: number; base: number; repairs: number };
  runs: number;
  rows: number;
  comments: number;
  conclusion: string;
}

/** Milliseconds of wall time and of this process's CPU (user + system). */
interface Instant {
  wall: number;
  cpu: number;
}

function now(): Instant {
  const cpu = process.cpuUsage();
  return { wall: performance.now(), cpu: (cpu.user + cpu.system) / 1000 };
}

/** Stage boundaries, seen in the calls the review makes on its ports. */
class StageClock {
  private readonly started = now();
  private readonly marks = new Map<string, Instant>();
  readonly campaign = { head: 0, base: 0, repairs: 0 };
  /** Crash runs the harness made, all campaigns: seconds per run tells a slower harness from more runs. */
  runs = 0;
  private judging: 'head' | 'base' | undefined;

  mark(name: string): void {
    if (!this.marks.has(name)) this.marks.set(name, now());
  }

  judgingNext(commit: string): void {
    this.judging = commit === 'base' ? 'base' : 'head';
  }

  async harness<T extends { runs: number }>(run: () => Promise<T>): Promise<T> {
    const which = this.judging ?? 'repairs';
    this.judging = undefined;
    const started = performance.now();
    try {
      const result = await run();
      this.runs += result.runs;
      return result;
    } finally {
      this.campaign[which] += (performance.now() - started) / 1000;
      if (which === 'base') this.mark('base campaign done');
    }
  }

  /**
   * Seconds per stage, of wall time or of this process's CPU time (the review's own work: the harness's Python
   * processes are children, not counted); a boundary the review never reached (no base judged, say) leaves the next stage empty.
   */
  stages(finished: Instant, clock: keyof Instant): Record<Stage, number> {
    const at = (name: string, fallback: number) => this.marks.get(name)?.[clock] ?? fallback;
    const scenarios = at('scenario read', finished[clock]);
    const base = Math.max(scenarios, at('base read', scenarios));
    const baseDone = Math.max(base, at('base campaign done', base));
    const skipped = Math.max(baseDone, at('skipped', finished[clock]));
    const s = (from: number, to: number) => (to - from) / 1000;
    const started = this.started[clock];
    return {
      'discovery/scan': s(started, scenarios),
      'head judging': s(scenarios, base),
      'base judging': s(base, baseDone),
      'audit, repairs': s(baseDone, skipped),
      rendering: s(skipped, finished[clock]),
    };
  }
}

function timedSource(source: PullRequestSource, clock: StageClock, isScenario: (path: string) => boolean): PullRequestSource {
  const timed: PullRequestSource = Object.create(source) as PullRequestSource;
  timed.readFile = (p) => {
    if (isScenario(p)) clock.mark('scenario read');
    return source.readFile(p);
  };
  if (source.readBaseFile) timed.readBaseFile = (p) => (clock.mark('base read'), source.readBaseFile!(p));
  if (source.checkoutBase) timed.checkoutBase = () => (clock.mark('base read'), source.checkoutBase!());
  timed.skipped = async () => (clock.mark('skipped'), (await source.skipped?.()) ?? []);
  return timed;
}

async function reviewOnce(functions: number): Promise<Timed> {
  const scenarioFiles = Math.max(1, Math.round((30 * functions) / 200));
  const repo = await buildBigPullRequest(functions, scenarioFiles);
  try {
    const config = loadConfigFile(repo.dir);
    const clock = new StageClock();
    const logger: Logger = {
      info: (message) => {
        const judging = /^crash-testing \d+ scenario file\(s\) at the (\w+)/.exec(message);
        if (judging) clock.judgingNext(judging[1]!);
      },
      warn: () => {},
      error: () => {},
    };
    const searchPath = (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter);
    const choice = await chooseHarness(config, { enabled: true, fromFork: false, python: 'python3', searchPath, sandbox: 'auto' }, logger);
    if (!choice.harness) throw new Error(`the crash harness did not start: ${choice.offReason ?? choice.refusal ?? 'no reason given'}`);
    const inner = choice.harness;
    const harness: HarnessRunner = { run: (files) => clock.harness(() => inner.run(files)) };
    const source = gitSource({ top: repo.dir, base: 'main', head: 'HEAD' });
    const started = performance.now();
    try {
      const review = await reviewPullRequest(timedSource(source, clock, pathFilter(config.scenarios, [])), config, { harness, store: memoryStore(), logger });
      formatReview(review, 'text');
      const finished = now();
      return {
        functions,
        scenarioFiles,
        scenarios: repo.scenarios,
        wall: (finished.wall - started) / 1000,
        stages: clock.stages(finished, 'wall'),
        cpu: clock.stages(finished, 'cpu'),
        campaign: clock.campaign,
        runs: clock.runs,
        rows: review.functions.length,
        comments: review.comments.length,
        conclusion: review.conclusion,
      };
    } finally {
      await source.dispose();
    }
  } finally {
    rmSync(repo.dir, { recursive: true, force: true });
  }
}

function met(ok: boolean): string {
  return ok ? 'met' : 'NOT met';
}

export default async function bench(log: (line: string) => void): Promise<void> {
  const runs: Timed[] = [];
  for (const functions of SIZES) {
    const run = await reviewOnce(functions);
    runs.push(run);
    const campaign = run.campaign.head + run.campaign.base;
    log(`${run.functions} touched functions, ${run.scenarioFiles} scenario files (${run.scenarios} scenarios): ${run.wall.toFixed(2)} s wall; ` +
      `${run.rows} functions shown, ${run.comments} inline comments, conclusion ${run.conclusion}`);
    log(`  wall: ${STAGES.map((stage) => `${stage} ${run.stages[stage].toFixed(2)} s`).join(', ')}`);
    log(`  the review's own CPU: ${STAGES.map((stage) => `${stage} ${run.cpu[stage].toFixed(2)} s`).join(', ')}`);
    log(`  of which crash campaigns ${campaign.toFixed(2)} s (head ${run.campaign.head.toFixed(2)}, base ${run.campaign.base.toFixed(2)}), repairs' crash tests ${run.campaign.repairs.toFixed(2)} s; ` +
      `judging outside the harness ${(run.stages['head judging'] + run.stages['base judging'] - campaign).toFixed(2)} s; ` +
      `${run.runs} crash runs, ${((1000 * (campaign + run.campaign.repairs)) / Math.max(1, run.runs)).toFixed(1)} ms of harness wall time per run`);
  }
  // Each step, then first to last: on a loaded machine one step's ratio swings; the whole range says more.
  const pairs = runs.slice(1).map((run, i) => [runs[i]!, run] as const);
  if (runs.length > 2) pairs.push([runs[0]!, runs[runs.length - 1]!]);
  for (const [before, after] of pairs) {
    const doublings = Math.log2(after.functions / before.functions);
    const growth = (a: number, b: number) => (a > 0.005 ? Math.pow(b / a, 1 / doublings) : NaN);
    const list = (of: (run: Timed) => Record<Stage, number>) => {
      const per = STAGES.map((stage) => ({ stage, g: growth(of(before)[stage], of(after)[stage]) }));
      const worst = Math.max(...per.map((p) => (Number.isNaN(p.g) ? 0 : p.g)));
      return { text: per.map(({ stage, g }) => `${stage} ${Number.isNaN(g) ? '–' : `${g.toFixed(2)}x`}`).join(', '), worst };
    };
    const [wall, cpu] = [list((run) => run.stages), list((run) => run.cpu)];
    log(`growth per doubling, ${before.functions} → ${after.functions} functions (linear is 2x): wall ${growth(before.wall, after.wall).toFixed(2)}x; ` +
      `per stage, wall: ${wall.text}; the review's own CPU: ${cpu.text} (aim: the review's own CPU at most ${AIM_GROWTH_PER_DOUBLING}x per stage: ${met(cpu.worst <= AIM_GROWTH_PER_DOUBLING)})`);
  }
  const biggest = runs.find((run) => run.functions === 200);
  if (biggest) log(`200 functions reviewed in ${biggest.wall.toFixed(1)} s (aim: under ${AIM_SECONDS_200} s on this 2-core machine: ${met(biggest.wall < AIM_SECONDS_200)})`);
}

// Run alone (`npx tsx bench/big-pr.ts`), not when bench/run.ts imports it.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bench((line) => console.log(line));
}
