// The CLI's main job on examples/shop: the review's wall time and how much of it is
// the crash harness, then a second review of the same head (cache hits, no harness).
import { rmSync } from 'node:fs';
import { buildExampleRepository } from '../scripts/example.ts';
import { gitSource } from '../src/adapters/cli/git-source.ts';
import { DEFAULT_CONFIG } from '../src/core/config/schema.ts';
import { runScenarioFiles } from '../src/adapters/harness/campaign.ts';
import { defaultConcurrency, prepareHarness } from '../src/adapters/harness/prepare.ts';
import { silentLogger, type HarnessRunner } from '../src/core/ports.ts';
import { reviewPullRequest } from '../src/core/review/review.ts';
import { memoryStore } from '../src/core/review/verdict-cache.ts';

export default async function bench(log: (line: string) => void): Promise<void> {
  const dir = await buildExampleRepository();
  try {
    const prepared = await prepareHarness({ python: 'python3', sandbox: 'auto', searchPath: ['/usr/bin', '/bin', '/usr/local/bin'] });
    let harnessMs = 0;
    let harnessCalls = 0;
    let runs = 0;
    const harness: HarnessRunner = {
      async run(files) {
        harnessCalls += 1;
        const started = performance.now();
        const result = await runScenarioFiles(files, { ...prepared.options, isolation: 'fork', concurrency: defaultConcurrency() });
        harnessMs += performance.now() - started;
        runs += result.runs;
        return result;
      },
    };
    const store = memoryStore();
    const review = async () => {
      const source = gitSource({ top: dir, base: 'main', head: 'HEAD' });
      const started = performance.now();
      try {
        await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store, logger: silentLogger });
      } finally {
        await source.dispose();
      }
      return performance.now() - started;
    };
    const firstMs = await review();
    const firstHarnessMs = harnessMs;
    const firstCalls = harnessCalls;
    const secondMs = await review();
    log(`first review: ${(firstMs / 1000).toFixed(2)} s wall, of which the crash harness ${(firstHarnessMs / 1000).toFixed(2)} s ` +
      `(${((100 * firstHarnessMs) / firstMs).toFixed(0)}%, ${runs} runs, ${firstCalls} harness call(s))`);
    log(`second review of the same head: ${(secondMs / 1000).toFixed(2)} s wall, harness calls ${harnessCalls - firstCalls} ` +
      `(cache hits: the functions and their scenarios did not change); ${(firstMs / secondMs).toFixed(1)}x faster`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
