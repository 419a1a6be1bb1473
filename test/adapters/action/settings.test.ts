import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettings, SettingsError, type InputName } from '../../../src/adapters/action/settings.ts';

const runnerEnv = {
  GITHUB_WORKSPACE: '/home/runner/work/shop/shop',
  GITHUB_REPOSITORY: 'octo/shop',
  GITHUB_EVENT_PATH: '/home/runner/work/_temp/_github_workflow/event.json',
  GITHUB_EVENT_NAME: 'pull_request',
  GITHUB_API_URL: 'https://ghe.example.com/api/v3/',
  GITHUB_STEP_SUMMARY: '/tmp/summary.md',
  GITHUB_OUTPUT: '/tmp/output',
  PATH: '/usr/local/bin:/usr/bin',
};

/** Inputs as the runner passes them: action.yml defaults filled in, everything a string. */
function inputs(given: Partial<Record<InputName, string>> = {}): (name: InputName) => string {
  const defaults: Record<InputName, string> = {
    'github-token': 'ghs_token',
    'fail-on': '',
    config: '.github/crashprobe.yml',
    harness: 'true',
    python: '',
    model: '',
    'openai-api-key': '',
    'openai-base-url': '',
    'anthropic-api-key': '',
    'anthropic-base-url': '',
    sarif: '',
    'allow-pull-request-target-harness': 'false',
  };
  return (name) => given[name] ?? defaults[name];
}

describe('readSettings', () => {
  it('reads the defaults and the runner variables into one object', () => {
    const settings = readSettings(inputs(), runnerEnv);
    expect(settings).toMatchObject({
      token: 'ghs_token',
      failOn: undefined,
      configPath: path.join(runnerEnv.GITHUB_WORKSPACE, '.github/crashprobe.yml'),
      harness: true,
      allowPullRequestTargetHarness: false,
      sarifPath: undefined,
      github: {
        apiUrl: 'https://ghe.example.com/api/v3',
        repository: 'octo/shop',
        eventName: 'pull_request',
        eventPath: runnerEnv.GITHUB_EVENT_PATH,
        workspace: runnerEnv.GITHUB_WORKSPACE,
      },
      stepSummaryPath: '/tmp/summary.md',
      outputPath: '/tmp/output',
      python: 'python3',
      searchPath: ['/usr/local/bin', '/usr/bin'],
    });
  });

  it('accepts every fail-on value, also with a dash', () => {
    expect(readSettings(inputs({ 'fail-on': 'unsafe' }), runnerEnv).failOn).toBe('unsafe');
    expect(readSettings(inputs({ 'fail-on': 'safe-by-accident' }), runnerEnv).failOn).toBe('safe_by_accident');
    expect(readSettings(inputs({ 'fail-on': 'never' }), runnerEnv).failOn).toBe('never');
  });

  it('refuses a bad fail-on with an error naming the input and the choices', () => {
    expect(() => readSettings(inputs({ 'fail-on': 'sometimes' }), runnerEnv)).toThrow(SettingsError);
    expect(() => readSettings(inputs({ 'fail-on': 'sometimes' }), runnerEnv)).toThrow(
      "Input fail-on must be one of unsafe, safe_by_accident, never (or empty to use the config's fail_on), not 'sometimes'",
    );
  });

  it('refuses a harness value that is not a boolean', () => {
    expect(() => readSettings(inputs({ harness: 'yes' }), runnerEnv)).toThrow("Input harness must be true or false, not 'yes'");
    expect(readSettings(inputs({ harness: 'False' }), runnerEnv).harness).toBe(false);
  });

  it('resolves the config and SARIF paths against the workspace', () => {
    const settings = readSettings(inputs({ config: 'ci/crashprobe.yml', sarif: 'out/crashprobe.sarif' }), runnerEnv);
    expect(settings.configPath).toBe('/home/runner/work/shop/shop/ci/crashprobe.yml');
    expect(settings.configInput).toBe('ci/crashprobe.yml');
    expect(settings.sarifPath).toBe('/home/runner/work/shop/shop/out/crashprobe.sarif');
  });

  it('refuses a config path outside the repository (it is read at the base commit) and reads the pull_request_target opt-in', () => {
    expect(() => readSettings(inputs({ config: '../elsewhere.yml' }), runnerEnv)).toThrow(/^Input config must be a path inside the repository/);
    expect(() => readSettings(inputs({ config: '/etc/crashprobe.yml' }), runnerEnv)).toThrow(/^Input config must be a path inside the repository/);
    expect(readSettings(inputs({ 'allow-pull-request-target-harness': 'true' }), runnerEnv).allowPullRequestTargetHarness).toBe(true);
    expect(() => readSettings(inputs({ 'allow-pull-request-target-harness': 'yes' }), runnerEnv)).toThrow(/allow-pull-request-target-harness must be true or false/);
  });

  it('passes the LLM settings through', () => {
    const settings = readSettings(
      inputs({ model: 'claude-x', 'anthropic-api-key': 'sk-a', 'anthropic-base-url': 'http://127.0.0.1:9/', 'openai-api-key': 'sk-o' }),
      runnerEnv,
    );
    expect(settings.llm).toEqual({
      model: 'claude-x',
      openai: { apiKey: 'sk-o', baseUrl: undefined },
      anthropic: { apiKey: 'sk-a', baseUrl: 'http://127.0.0.1:9/' },
    });
  });

  it('defaults the API to github.com and names a missing runner variable', () => {
    const { GITHUB_API_URL: _api, ...withoutApi } = runnerEnv;
    expect(readSettings(inputs(), withoutApi).github.apiUrl).toBe('https://api.github.com');
    const { GITHUB_EVENT_PATH: _event, ...withoutEvent } = runnerEnv;
    expect(() => readSettings(inputs(), withoutEvent)).toThrow(/^GITHUB_EVENT_PATH is not set/);
  });

  it('refuses an empty token', () => {
    expect(() => readSettings(inputs({ 'github-token': '' }), runnerEnv)).toThrow(/^Input github-token is empty/);
  });
});
