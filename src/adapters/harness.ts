// The crash harness for a review (CLI, Action or app), or the reason it stays off: one
// place that decides, so every adapter runs pull-request code the same contained way.
import { runScenarioFiles, type CampaignProgress } from '../core/crash/campaign.ts';
import { defaultConcurrency, prepareHarness } from '../core/crash/prepare.ts';
import type { CrashprobeConfig } from '../core/config/schema.ts';
import type { HarnessRunner, Logger } from '../core/ports.ts';

export interface HarnessChoice {
  harness?: HarnessRunner;
  offReason?: string;
}

export interface HarnessOptions {
  /** False turns it off whatever the config says (an Action input, a CLI flag). */
  enabled: boolean;
  /** What turned it off when `enabled` is false, for the summary: e.g. "the Action's `harness` input is false". */
  offBecause?: string;
  fromFork: boolean;
  python: string;
  searchPath: string[];
  /** The bundle's own copy of the Python package; undefined: the repository's harness/. */
  harnessDir?: string;
  sandbox?: 'auto' | 'bwrap' | 'none';
  onProgress?: (progress: CampaignProgress) => void;
}

/** Why the harness stays off for this pull request, or undefined when it may run. */
export function harnessOffReason(config: CrashprobeConfig, options: Pick<HarnessOptions, 'enabled' | 'fromFork' | 'offBecause'>): string | undefined {
  if (!options.enabled) return `The crash harness is off (${options.offBecause ?? 'turned off for this review'}).`;
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
      sandbox: options.sandbox ?? 'auto',
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
        runScenarioFiles(
          files,
          { ...prepared.options, isolation: config.harness.isolation, concurrency: defaultConcurrency(), limits },
          options.onProgress,
        ),
    },
  };
}
