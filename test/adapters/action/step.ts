// The Action's step as GitHub's runner runs it: `node action/dist/index.js` (the
// committed bundle) with the inputs as INPUT_* variables, the job's variables and
// nothing else of this process's environment, in the checked-out workspace. A new
// process per step: @actions/core caches the job summary's path, so in-process
// runs could not be repeated in one test file.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { expect } from 'vitest';
import { parse } from 'yaml';
import type { InputName } from '../../../src/adapters/action/settings.ts';
import { parseOutputs, type Job } from './fixture.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
export const DIST = path.join(root, 'action/dist');

/**
 * tree-sitter's prebuilt linux binary needs libstdc++ from GCC 13 (ubuntu-24.04 has
 * it; Debian 12, where this project's machines run, does not, so npm built one from
 * source into node_modules). node-gyp-build's TREE_SITTER_PREBUILD points the
 * bundle at that build only where the shipped binary cannot load: everything else
 * the bundle ships is still what runs.
 */
export async function nativeOverride(): Promise<Record<string, string>> {
  const probe = await execa(process.execPath, ['-e', `require(${JSON.stringify(path.join(DIST, 'node_modules/tree-sitter'))})`], { reject: false });
  if (probe.exitCode === 0) return {};
  expect(probe.stderr, 'the shipped tree-sitter binary fails for another reason than an old libstdc++').toMatch(/GLIBCXX/);
  const localBuild = path.join(root, 'node_modules/tree-sitter');
  expect(existsSync(path.join(localBuild, 'build/Release'))).toBe(true);
  return { TREE_SITTER_PREBUILD: localBuild };
}

export const TOKEN = 'ghs_e2e';

/** action.yml's inputs with their defaults, as the runner fills them in (`${{ github.token }}` is the job's token). */
async function defaultInputs(): Promise<Record<string, string>> {
  const action = parse(await readFile(path.join(DIST, '../action.yml'), 'utf8')) as { inputs: Record<string, { default?: string }> };
  return Object.fromEntries(
    Object.entries(action.inputs).map(([name, input]) => [name, name === 'github-token' ? TOKEN : String(input.default ?? '')]),
  );
}

export interface StepResult {
  exitCode: number;
  /** What the step printed: log lines and workflow commands (`::error file=…::`). */
  stdout: string;
  stderr: string;
  /** GITHUB_OUTPUT as GitHub reads it. */
  outputs: Record<string, string>;
  /** GITHUB_STEP_SUMMARY's markdown. */
  summary: string;
}

/** Runs the bundle once as a step of `job`; the runner's files are read after it ends (reset them for a new job). */
export async function runStep(job: Job, inputs: Partial<Record<InputName, string>> = {}): Promise<StepResult> {
  const given = { ...(await defaultInputs()), ...inputs };
  // As the runner passes them: names upper-cased, dashes kept.
  const inputEnv = Object.fromEntries(Object.entries(given).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value ?? '']));
  const result = await execa(process.execPath, [path.join(DIST, 'index.js')], {
    cwd: job.workspace,
    reject: false,
    extendEnv: false,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      ...job.env,
      ...(await nativeOverride()),
      ...inputEnv,
    },
  });
  return {
    exitCode: result.exitCode ?? -1,
    stdout: result.stdout,
    stderr: result.stderr,
    outputs: parseOutputs(await readFile(job.outputPath, 'utf8')),
    summary: await readFile(job.summaryPath, 'utf8'),
  };
}

/** The `::notice::…` workflow commands the step printed, unescaped (annotations at a file excluded). */
export function notices(stdout: string): string[] {
  return commands(stdout, 'notice').filter((c) => !c.properties.file).map((c) => c.message);
}

export interface WorkflowCommand {
  properties: Record<string, string>;
  message: string;
}

/** Every `::name props::message` line, with @actions/core's escapes undone. */
export function commands(stdout: string, name: string): WorkflowCommand[] {
  const found: WorkflowCommand[] = [];
  for (const line of stdout.split('\n')) {
    const match = new RegExp(`^::${name}(?: ([^:]*))?::(.*)$`).exec(line);
    if (!match) continue;
    const properties: Record<string, string> = {};
    for (const pair of (match[1] ?? '').split(',').filter(Boolean)) {
      const at = pair.indexOf('=');
      properties[pair.slice(0, at)] = unescapeProperty(pair.slice(at + 1));
    }
    found.push({ properties, message: unescapeData(match[2] ?? '') });
  }
  return found;
}

const ESCAPES: Record<string, string> = { '%25': '%', '%0D': '\r', '%0A': '\n', '%3A': ':', '%2C': ',' };

function unescapeData(text: string): string {
  return text.replace(/%(25|0D|0A)/g, (escape) => ESCAPES[escape] ?? escape);
}

function unescapeProperty(text: string): string {
  return text.replace(/%(25|0D|0A|3A|2C)/g, (escape) => ESCAPES[escape] ?? escape);
}
