// The crash harness for a review (CLI, Action or app), or the reason it stays off: one
// place that decides, so every adapter runs pull-request code the same contained way.
//
// The App and the Action require the sandbox (`sandbox` defaults to `bwrap`): when bubblewrap
// cannot start, the choice carries a `refusal` and no pull-request code runs. Only the operator
// can opt out, with CRASHPROBE_ALLOW_UNSANDBOXED=1 in the deployment's environment (never the
// repository's config, which a pull request controls). The CLI passes `auto`: on your own code it
// runs without the sandbox when it must, and says so.
import { pool, runScenarioFiles, type CampaignOptions, type CampaignProgress } from './campaign.ts';
import type { ScenarioFile } from '../../core/crash/discover.ts';
import { defaultConcurrency, prepareHarness, SandboxUnavailableError, type PreparedHarness } from './prepare.ts';
import type { CampaignResult } from '../../core/crash/protocol.ts';
import type { CrashprobeConfig } from '../../core/config/schema.ts';
import type { HarnessRunner, Logger } from '../../core/ports.ts';

export interface HarnessChoice {
  harness?: HarnessRunner;
  offReason?: string;
  /**
   * The sandbox is required and cannot start here: no pull-request code ran. Already phrased for
   * the review and the check run ("crash tests skipped: ... Fix: ..."); a review carrying it must
   * not pass.
   */
  refusal?: string;
}

/** The deployment variable by which the operator (never a repository) lets PR code run without the sandbox. */
export const ALLOW_UNSANDBOXED_ENV = 'CRASHPROBE_ALLOW_UNSANDBOXED';

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
  /** Default `bwrap` (required: the App and the Action); the CLI passes its flag (`auto` by default). */
  sandbox?: 'auto' | 'bwrap' | 'none';
  /**
   * The deployment's environment, read for CRASHPROBE_ALLOW_UNSANDBOXED only; default process.env.
   * Never built from the repository's config.
   */
  env?: Record<string, string | undefined>;
  /** Try `sudo -n bwrap` when plain bwrap is refused; default: when the sandbox is required. */
  allowSudo?: boolean;
  onProgress?: (progress: CampaignProgress) => void;
  /** Tests: the prepared harness to use instead of preparing one. */
  prepare?: typeof prepareHarness;
}

/** True when the operator's deployment environment allows running PR code without the sandbox. */
export function operatorAllowsUnsandboxed(env: Record<string, string | undefined>): boolean {
  const value = (env[ALLOW_UNSANDBOXED_ENV] ?? '').trim().toLowerCase();
  return value === '1' || value === 'true' || value === 'yes';
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
  const required = (options.sandbox ?? 'bwrap') === 'bwrap';
  const optedOut = required && operatorAllowsUnsandboxed(options.env ?? process.env);
  let prepared: PreparedHarness;
  try {
    prepared = await (options.prepare ?? prepareHarness)({
      python: options.python,
      // The operator's opt-out keeps the sandbox where it starts and runs without it (said) where it does not.
      sandbox: optedOut ? 'auto' : (options.sandbox ?? 'bwrap'),
      searchPath: options.searchPath,
      harnessDir: options.harnessDir,
      allowSudo: options.allowSudo ?? required,
    });
  } catch (error) {
    if (error instanceof SandboxUnavailableError) {
      logger.error(error.message);
      return { refusal: error.message };
    }
    // No usable Python on the runner: the static review still has value, so say why and go on.
    return { offReason: `The crash harness could not start: ${(error as Error).message}` };
  }
  const notices = prepared.notices.map((notice) =>
    optedOut && /no namespace sandbox/.test(notice) ? `${notice} (the operator set ${ALLOW_UNSANDBOXED_ENV})` : notice,
  );
  for (const notice of notices) logger.warn(notice);
  const limits = { wall_seconds: config.harness.timeout_seconds };
  const campaign: CampaignOptions = { ...prepared.options, isolation: config.harness.isolation, concurrency: defaultConcurrency(), limits };
  return { harness: budgetedRunner(campaign, config.harness.budget, notices, options.onProgress) };
}

export type HarnessBudget = CrashprobeConfig['harness']['budget'];

/**
 * A runner that keeps to the review's budget (requirement 10 of issue 9): at most
 * `scenario_files` files per pass, and no file starts once the review used its minutes, its
 * scenarios or its runs; a file still running when the minutes end is stopped. Every file not
 * run becomes an error naming the budget, which the review shows as "not run: ...". One runner
 * serves one review (the head and the base passes share its budget).
 */
export function budgetedRunner(
  options: CampaignOptions,
  budget: HarnessBudget,
  notices: string[] = [],
  onProgress?: (progress: CampaignProgress) => void,
  now: () => number = Date.now,
): HarnessRunner {
  let deadline: number | undefined;
  let scenarios = 0;
  let runs = 0;
  const budgetMs = budget.minutes * 60_000;
  return {
    async run(files: ScenarioFile[]): Promise<CampaignResult> {
      deadline ??= now() + budgetMs;
      const started = now();
      const results = new Map<ScenarioFile, CampaignResult>();
      const skipped = new Map<ScenarioFile, string>();
      let filesDone = 0;
      files.slice(budget.scenario_files).forEach((file) => skipped.set(file, `not run: the review's harness budget is ${budget.scenario_files} scenario files (harness.budget.scenario_files)`));
      await pool(files.slice(0, budget.scenario_files), options.concurrency, async (file) => {
        const left = (deadline as number) - now();
        const spent =
          left <= 0
            ? `not run: the review's harness budget of ${budget.minutes} minutes (harness.budget.minutes) was used up`
            : scenarios >= budget.scenarios
              ? `not run: the review's harness budget of ${budget.scenarios} scenarios (harness.budget.scenarios) was used up`
              : runs >= budget.runs
                ? `not run: the review's harness budget of ${budget.runs} runs (harness.budget.runs) was used up`
                : undefined;
        if (spent) {
          skipped.set(file, spent);
          return;
        }
        const result = await runScenarioFiles(
          [file],
          { ...options, concurrency: 1, fileTimeoutMs: Math.min(options.fileTimeoutMs, left) },
          (progress) => onProgress?.({ ...progress, filesDone: filesDone + (progress.done === undefined && progress.filesDone ? 1 : 0), filesTotal: files.length }),
        );
        filesDone += 1;
        scenarios += result.scenarios.length;
        runs += result.runs;
        results.set(file, result);
      });
      const merged: CampaignResult = { scenarios: [], errors: [], notes: [...notices], runs: 0, seconds: (now() - started) / 1000 };
      for (const file of files) {
        const result = results.get(file);
        if (result) {
          merged.scenarios.push(...result.scenarios);
          merged.errors.push(...result.errors);
          for (const note of result.notes) if (!merged.notes.includes(note)) merged.notes.push(note);
          merged.runs += result.runs;
        }
        const why = skipped.get(file);
        if (why) merged.errors.push({ file: relativeFile(file), message: why });
      }
      return merged;
    },
  };
}

function relativeFile({ file, root }: ScenarioFile): string {
  return file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file;
}
