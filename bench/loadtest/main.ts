// `npm run loadtest [-- --backend postgres|sqlite|both] [--pulls 100] [--harness]`: issue 14's load
// test. PostgreSQL (started here from the machine's packages): 2 web replicas, 3 workers, 3P signed
// deliveries, one worker killed with SIGKILL midway. SQLite: the same deliveries to one `npm start`
// process, killed with SIGKILL midway and started again. Exits 1 when a check fails.
import os from 'node:os';
import { startPostgres } from '../../test/support/postgres.ts';
import { runLoadTest, type LoadTestOptions, type LoadTestResult } from './run.ts';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const backends = option('backend', 'both') === 'both' ? (['postgres', 'sqlite'] as const) : [option('backend', 'postgres') as 'postgres' | 'sqlite'];
const pulls = Number(option('pulls', '100'));
const harness = process.argv.includes('--harness');
const base = { pulls, burst: 30, burstGapMs: 1_000, kill: true, harness, timeoutMs: 15 * 60_000, progress: (line: string) => console.log(`  ${line}`) };
const cores = os.availableParallelism();

function print(backend: string, result: LoadTestResult, shape: string): void {
  const f = result.figures;
  const ms = (n: number) => `${n.toFixed(0)} ms`;
  const s = (n: number) => `${n.toFixed(1)} s`;
  console.log(`\n== ${backend}: ${shape}; crash harness ${harness ? 'on' : 'off (the repository config says harness.enabled: false)'}`);
  console.log(`deliveries ${f.deliveries} for ${f.liveHeads + f.supersededHeads} heads (${f.liveHeads} live, ${f.supersededHeads} superseded); killed: ${result.killed ?? 'none'}`);
  console.log(`webhook answer   p50 ${ms(f.webhookMs.p50)}  p95 ${ms(f.webhookMs.p95)}  max ${ms(f.webhookMs.max)}`);
  console.log(`delivery→review  p50 ${s(f.reviewSeconds.p50)}  p95 ${s(f.reviewSeconds.p95)}  max ${s(f.reviewSeconds.max)}`);
  console.log(`reviews ${f.reviews}, check runs ${f.checkRuns}, ${f.reviewsPerMinute.toFixed(1)} reviews/minute`);
  console.log(`queue at the end (/metrics): ${result.metricsSample.join('  ')}`);
  console.log(result.problems.length ? `FAILED:\n  ${result.problems.join('\n  ')}` : 'checks passed: every live head one review and one completed check run; superseded heads none; nothing posted twice; every webhook answered under 1 s');
  console.log(`logs: ${result.logDir}`);
}

let failed = false;
for (const backend of backends) {
  let options: LoadTestOptions;
  let shape: string;
  const postgres = backend === 'postgres' ? await startPostgres() : undefined;
  try {
    if (postgres) {
      options = { ...base, backend, databaseUrl: await postgres.database('loadtest'), webs: 2, workers: 3, workerConcurrency: Math.max(1, Math.floor(cores / 2)) };
      shape = `2 web replicas, 3 workers × ${options.workerConcurrency}`;
    } else {
      options = { ...base, backend, webs: 1, workers: 0, workerConcurrency: cores };
      shape = `1 process (web + ${cores} workers)`;
    }
    console.log(`\n${backend}: starting (${shape})`);
    const result = await runLoadTest(options);
    print(backend, result, shape);
    failed ||= result.problems.length > 0;
  } finally {
    await postgres?.stop();
  }
}
process.exit(failed ? 1 : 0);
