// Every input and runner variable the Action uses, read once into one typed
// object (as actions/checkout's input-helper does). Nothing after this reads an
// input or the environment.
import path from 'node:path';
import type { LlmSettings } from '../llm/settings.ts';
import { failOnSchema, type CrashprobeConfig } from '../../core/config/schema.ts';

export type FailOn = CrashprobeConfig['fail_on'];

export interface ActionSettings {
  token: string;
  /** From the `fail-on` input; undefined leaves the config's `fail_on` in force. */
  failOn?: FailOn;
  /** Absolute path of the config file inside the workspace (what the head has; the base's is what applies). */
  configPath: string;
  /** The config path as the user gave it, relative to the repository's top: read at the base commit. */
  configInput: string;
  /** False turns the crash harness off whatever the config says. */
  harness: boolean;
  /** The workflow's explicit consent to run a pull request's code under pull_request_target (a write token, secrets). */
  allowPullRequestTargetHarness: boolean;
  /** The audit's LLM endpoint; `model` undefined leaves the config's `audit.model`. */
  llm: LlmSettings;
  /** Absolute path to write SARIF to, when asked. */
  sarifPath?: string;
  github: {
    apiUrl: string;
    repository: string;
    eventName: string;
    eventPath: string;
    /** The checkout of the pull request: the head files are on disk here. */
    workspace: string;
  };
  /** The runner's files for the job summary and step outputs; absent outside a runner. */
  stepSummaryPath?: string;
  outputPath?: string;
  python: string;
  /** Folders searched for bubblewrap. */
  searchPath: string[];
}

export type Environment = Readonly<Record<string, string | undefined>>;

export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

export const INPUT_NAMES = [
  'github-token',
  'fail-on',
  'config',
  'harness',
  'python',
  'model',
  'openai-api-key',
  'openai-base-url',
  'anthropic-api-key',
  'anthropic-base-url',
  'sarif',
  'allow-pull-request-target-harness',
] as const;
export type InputName = (typeof INPUT_NAMES)[number];

export const DEFAULT_CONFIG_PATH = '.github/crashprobe.yml';

/**
 * Reads the inputs (through `input`, e.g. `core.getInput`, which trims) and the
 * runner's variables. Throws a SettingsError naming the input or variable to fix.
 */
export function readSettings(input: (name: InputName) => string, env: Environment): ActionSettings {
  const optional = (name: InputName): string | undefined => input(name).trim() || undefined;
  const workspace = requiredVariable(env, 'GITHUB_WORKSPACE');
  const configInput = optional('config') ?? DEFAULT_CONFIG_PATH;
  if (path.isAbsolute(configInput) || path.posix.normalize(configInput).startsWith('..')) {
    throw new SettingsError(`Input config must be a path inside the repository (it is read at the base commit), not '${configInput}'`);
  }
  const sarif = optional('sarif');
  const token = optional('github-token');
  if (!token) {
    throw new SettingsError('Input github-token is empty: leave it unset to use ${{ github.token }}, or pass a token that may write pull request reviews');
  }
  return {
    token,
    failOn: parseFailOn(optional('fail-on')),
    configPath: path.resolve(workspace, configInput),
    configInput,
    harness: parseBoolean('harness', optional('harness') ?? 'true'),
    allowPullRequestTargetHarness: parseBoolean('allow-pull-request-target-harness', optional('allow-pull-request-target-harness') ?? 'false'),
    llm: {
      model: optional('model'),
      openai: { apiKey: optional('openai-api-key'), baseUrl: optional('openai-base-url') },
      anthropic: { apiKey: optional('anthropic-api-key'), baseUrl: optional('anthropic-base-url') },
    },
    sarifPath: sarif === undefined ? undefined : path.resolve(workspace, sarif),
    github: {
      apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
      repository: requiredVariable(env, 'GITHUB_REPOSITORY'),
      eventName: env.GITHUB_EVENT_NAME || 'pull_request',
      eventPath: requiredVariable(env, 'GITHUB_EVENT_PATH'),
      workspace: path.resolve(workspace),
    },
    stepSummaryPath: env.GITHUB_STEP_SUMMARY || undefined,
    outputPath: env.GITHUB_OUTPUT || undefined,
    python: pythonInput(optional('python'), workspace) ?? (env.CRASHPROBE_PYTHON || 'python3'),
    searchPath: (env.PATH || '/usr/bin:/bin').split(path.delimiter).filter(Boolean),
  };
}

/** The `python` input: a command name as given, a path resolved against the workspace (`.venv/bin/python`). */
function pythonInput(value: string | undefined, workspace: string): string | undefined {
  if (value === undefined) return undefined;
  return value.includes('/') ? path.resolve(workspace, value) : value;
}

function parseFailOn(value: string | undefined): FailOn | undefined {
  if (value === undefined) return undefined;
  const parsed = failOnSchema.safeParse(value.toLowerCase().replaceAll('-', '_'));
  if (parsed.success) return parsed.data;
  throw new SettingsError(
    `Input fail-on must be one of ${failOnSchema.options.join(', ')} (or empty to use the config's fail_on), not '${value}'`,
  );
}

/** The YAML 1.2 core schema's booleans, as `core.getBooleanInput` accepts them. */
function parseBoolean(name: InputName, value: string): boolean {
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  if (['false', 'False', 'FALSE'].includes(value)) return false;
  throw new SettingsError(`Input ${name} must be true or false, not '${value}'`);
}

function requiredVariable(env: Environment, name: string): string {
  const value = env[name];
  if (!value) {
    throw new SettingsError(`${name} is not set: crashprobe's Action runs inside a GitHub Actions job, which sets it (for a local run, set it by hand)`);
  }
  return value;
}
