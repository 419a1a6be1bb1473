// A crash campaign over many scenario files: each file in its own harness process
// (its own repository root, so two repositories never mix), several at once.
import path from 'node:path';
import { discoverScenarioFiles, type ScenarioFile } from '../../core/crash/discover.ts';
import { runHarnessOnFile, type HarnessProcessOptions } from './harness-process.ts';
import {
  DEFAULT_LIMITS,
  type CampaignError,
  type CampaignResult,
  type HarnessLimits,
  type ScenarioVerdict,
} from '../../core/crash/protocol.ts';

export interface CampaignOptions extends HarnessProcessOptions {
  isolation: 'fork' | 'spawn';
  concurrency: number;
  limits?: Partial<HarnessLimits>;
  maxPoints?: number;
  root?: string;
}

export interface CampaignProgress {
  filesDone: number;
  filesTotal: number;
  file: string;
  scenario?: string;
  mode?: string;
  done?: number;
  total?: number;
}

/** Runs `work` on every item, at most `concurrency` at once. */
export async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(workers);
}

export async function runCampaign(
  paths: string[],
  options: CampaignOptions,
  onProgress: (progress: CampaignProgress) => void = () => {},
): Promise<CampaignResult> {
  const files = discoverScenarioFiles(paths, options.root);
  return runScenarioFiles(files, options, onProgress);
}

export async function runScenarioFiles(
  files: ScenarioFile[],
  options: CampaignOptions,
  onProgress: (progress: CampaignProgress) => void = () => {},
): Promise<CampaignResult> {
  const started = Date.now();
  const verdicts = new Map<string, ScenarioVerdict[]>();
  const errors: CampaignError[] = [];
  const notes = new Set<string>();
  let runs = 0;
  let filesDone = 0;
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  await pool(files, options.concurrency, async ({ file, root }) => {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const mine: ScenarioVerdict[] = [];
    verdicts.set(file, mine);
    await runHarnessOnFile(
      { scenario_file: file, root, isolation: options.isolation, limits, max_points: options.maxPoints ?? 40 },
      options,
      (message) => {
        switch (message.type) {
          case 'scenario': {
            const { type: _type, ...verdict } = message;
            mine.push({ ...verdict, file: rel, root });
            break;
          }
          case 'error':
            errors.push({ ...message, file: rel, message: message.message.replaceAll(file, rel) });
            break;
          case 'note':
            notes.add(message.message);
            break;
          case 'done':
            runs += message.runs;
            break;
          case 'progress':
            onProgress({ filesDone, filesTotal: files.length, file: rel, ...message });
            break;
        }
      },
    );
    filesDone += 1;
    onProgress({ filesDone, filesTotal: files.length, file: rel });
  });
  const scenarios = files.flatMap(({ file }) => verdicts.get(file) ?? []);
  return { scenarios, errors, notes: [...notes], runs, seconds: (Date.now() - started) / 1000 };
}

/** The public `--json` document of the contract (extended, never renamed). */
export function contractJson(result: CampaignResult): unknown {
  return {
    scenarios: result.scenarios,
    errors: result.errors,
    runs: result.runs,
    seconds: Number(result.seconds.toFixed(3)),
  };
}
