// The crash harness for a review in a workflow job, or the reason it stays off.
import { runScenarioFiles } from '../../core/crash/campaign.ts';
import { defaultConcurrency, prepareHarness } from '../../core/crash/prepare.ts';
import type { CrashprobeConfig } from '../../core/config/schema.ts';
import type { HarnessRunner, Logger } from '../../core/ports.ts';

export interface HarnessChoice {
  harness?: HarnessRunner;
  offReason?: string;
}

export interface HarnessOptions {
  /** The `harness` input: false turns it off whatever the config says. */
  enabled: boolean;
  fromFork: boolean;
  python: string;
  searchPath: string[];
  /** The bundle's own copy of the Python package; undefined: the repository's harness/. */
  harnessDir?: string;
}

/** Why the harness stays off for this pull request, or undefined when it may run. */
export function harnessOffReason(config: CrashprobeConfig, options: Pick<HarnessOptions, 'enabled' | 'fromFork'>): string | undefined {
  if (!options.enabled) return 'The crash harness is off (the Action\'s `harness` input is false).';
  if (!config.harness.enabled) return 'The crash harness is off (`harness.enabled: false` in the config).';
  if (options.fromFork && !config.harness.forks) {
    return 'The crash harness did not run: this pull request comes from a fork, whose code is not run unless the config sets `harness.forks: true`.';
  }
  return undefined;
}

export async function chooseHarness(config: CrashprobeConfig, options: HarnessOptions, logger: Logger): Promise<HarnessChoice> {
  const offReason = harnessOffReason(config, options);
  if (offReason) return { offReason };
  let prepared;
  try {
    prepared = await prepareHarness({
      python: options.python,
      sandbox: 'auto',
      searchPath: options.searchPath,
      harnessDir: options.harnessDir,
    });
  } catch (error) {
    // No usable Python on the runner: the static review still has value, so say why and go on.
    return { offReason: `The crash harness could not start: ${(error as Error).message}` };
  }
  for (const notice of prepared.notices) logger.warn(notice);
  const limits = { wall_seconds: config.harness.timeout_seconds };
  return {
    harness: {
      run: (files) =>
        runScenarioFiles(files, {
          ...prepared.options,
          isolation: config.harness.isolation,
          concurrency: defaultConcurrency(),
          limits,
        }),
    },
  };
}
