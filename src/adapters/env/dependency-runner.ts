// The App's harness runner: when the config installs dependencies, on its first run
// the environment is provisioned from the checkout and the harness prepared again
// with that interpreter (lazy, so a review with nothing to crash-test installs
// nothing); in every mode, each "No module named" error gets the module's import
// line and the fix.
import path from 'node:path';
import type { CampaignResult } from '../../core/crash/protocol.ts';
import type { CrashprobeConfig } from '../../core/config/schema.ts';
import type { HarnessRunner, Logger } from '../../core/ports.ts';
import type { HarnessChoice } from '../harness/choose.ts';
import type { DependencyEnvironment, DependencyProvisioner } from './app-provisioner.ts';
import { explainMissingModule } from './missing-module.ts';

export interface DependencyRunnerOptions {
  /** The runner prepared with the App's interpreter: used when no environment is built. */
  fallback: HarnessRunner;
  mode: string;
  provision(root: string): Promise<DependencyEnvironment>;
  harnessFor(python: string): Promise<HarnessChoice>;
  /** Filled with the notes for the review. */
  notes: string[];
}

export function withDependencies(options: DependencyRunnerOptions): HarnessRunner {
  type Chosen = { runner: HarnessRunner; installedFrom?: string[] };
  let chosen: Promise<Chosen> | undefined;
  const choose = async (root: string): Promise<Chosen> => {
    let env: DependencyEnvironment;
    try {
      env = await options.provision(root);
    } catch (error) {
      env = { notes: [`Dependencies were not installed: ${(error as Error).message}`] };
    }
    options.notes.push(...env.notes);
    if (!env.python) return { runner: options.fallback };
    const choice = await options.harnessFor(env.python);
    if (choice.harness) return { runner: choice.harness, installedFrom: env.installedFrom };
    options.notes.push(`The crash harness could not start with the built environment (${choice.refusal ?? choice.offReason}); crash tests ran with the App's interpreter.`);
    return { runner: options.fallback };
  };
  return {
    async run(files): Promise<CampaignResult> {
      if (files.length === 0) return options.fallback.run(files);
      // The dependency files are read from the first run's root: the head's checkout, unless every head
      // verdict came from the cache and the base pass runs first (then the base's files are used).
      const { runner, installedFrom } = await (chosen ??= options.mode === 'off' ? Promise.resolve<Chosen>({ runner: options.fallback }) : choose(files[0]!.root));
      const result = await runner.run(files);
      const rootOf = (file: string) => files.find((f) => path.resolve(f.root, file) === f.file)?.root ?? files[0]!.root;
      return { ...result, errors: result.errors.map((e) => explainMissingModule(e, rootOf(e.file), { mode: options.mode, installedFrom })) };
    },
  };
}

export interface ReviewHarnessOptions {
  config: CrashprobeConfig;
  /** The cache scope: installation/owner/name. */
  repo: string;
  logger: Logger;
  /** Absent: this deployment builds no environments. */
  provision?: DependencyProvisioner;
  harnessFor(python: string): Promise<HarnessChoice>;
}

/** The review's harness choice with dependencies (and missing-module fixes) added, and the notes the review will carry. */
export function dependencyHarness(choice: HarnessChoice, options: ReviewHarnessOptions): { choice: HarnessChoice; notes: string[] } {
  const notes: string[] = [];
  const wanted = options.config.harness.dependencies !== 'off';
  if (!choice.harness) {
    if (wanted) notes.push('Dependencies were not installed: the crash harness does not run for this pull request.');
    return { choice, notes };
  }
  if (wanted && !options.provision) notes.push('Dependencies were not installed: this deployment of the App does not install them.');
  const { provision } = options;
  const harness = withDependencies({
    fallback: choice.harness,
    mode: provision ? options.config.harness.dependencies : 'off',
    provision: (root) => provision!({ repo: options.repo, root, config: options.config, logger: options.logger }),
    harnessFor: options.harnessFor,
    notes,
  });
  return { choice: { ...choice, harness }, notes };
}
