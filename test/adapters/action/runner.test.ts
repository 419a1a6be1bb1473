// The runner's decisions with every port faked by an object literal: what it does
// with the event, the config file, a read-only token and fail-on. The end-to-end
// tests (e2e.test.ts) run the same path against a fake GitHub API.
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ActionIO, AnnotationPlace } from '../../../src/adapters/action/io.ts';
import { READ_ONLY_NOTICE, runAction, type ActionDeps } from '../../../src/adapters/action/runner.ts';
import { readSettings, type InputName } from '../../../src/adapters/action/settings.ts';
import type { CrashprobeConfig } from '../../../src/core/config/schema.ts';
import { examplePayload } from './events.ts';
import { conclusionFor } from '../../../src/core/review/conclusion.ts';
import type { FunctionClass, Review } from '../../../src/core/review/model.ts';

type Said = { level: 'info' | 'notice' | 'warning' | 'error'; message: string; where?: AnnotationPlace };

function recordingIO() {
  const said: Said[] = [];
  const outputs: Record<string, string> = {};
  const summaries: string[] = [];
  const io: ActionIO = {
    info: (message) => said.push({ level: 'info', message }),
    notice: (message, where) => said.push({ level: 'notice', message, where }),
    warning: (message, where) => said.push({ level: 'warning', message, where }),
    error: (message, where) => said.push({ level: 'error', message, where }),
    setOutput: (name, value) => void (outputs[name] = String(value)),
    appendSummary: async (markdown) => void summaries.push(markdown),
  };
  return { io, said, outputs, summaries };
}

/** A review of the given classes, concluded by the core's own rule for the config it is given. */
function reviewOf(classes: FunctionClass[], config: CrashprobeConfig): Review {
  const counts = { unsafe: 0, safe_by_accident: 0, safe_by_design: 0, not_working: 0, untested: 0 };
  for (const c of classes) counts[c] += 1;
  return {
    repository: 'Codertocat/Hello-World',
    headSha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
    functions: [],
    findings: [],
    summary: '## crashprobe\nthe summary',
    comments: [],
    conclusion: conclusionFor(classes, config.fail_on),
    checkTitle: 'crashprobe',
    checkSummary: '',
    annotations: [
      { path: 'shop/billing.py', startLine: 9, endLine: 10, level: 'failure', title: 'unsafe', message: 'email sent before the payment is recorded' },
      { path: 'shop/refunds.py', startLine: 4, endLine: 4, level: 'warning', title: 'safe by accident', message: 'relies on the implicit transaction' },
    ],
    counts,
    notes: [],
  };
}

describe('runAction with faked ports', () => {
  let workspace: string;
  let eventPath: string;

  beforeEach(async () => {
    workspace = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-action-'));
    eventPath = path.join(workspace, '..', `${path.basename(workspace)}-event.json`);
    await writeFile(eventPath, JSON.stringify(examplePayload('pull_request', 'opened')));
  });
  afterEach(async () => {
    await rm(workspace, { recursive: true, force: true });
    await rm(eventPath, { force: true });
  });

  function settingsWith(given: Partial<Record<InputName, string>> = {}, env: Record<string, string> = {}) {
    return readSettings((name) => given[name] ?? (name === 'github-token' ? 'ghs_x' : ''), {
      GITHUB_WORKSPACE: workspace,
      GITHUB_REPOSITORY: 'Codertocat/Hello-World',
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_STEP_SUMMARY: path.join(workspace, 'summary.md'),
      ...env,
    });
  }

  function deps(classes: FunctionClass[], publish: (review: Review) => Promise<void> = async () => {}) {
    const recorded = recordingIO();
    const seen: { config?: CrashprobeConfig; published: Review[]; harnessOff?: string; llmModel?: string } = { published: [] };
    const fakes: ActionDeps = {
      io: recorded.io,
      connect: () => ({
        source: {} as never,
        publish: async (review) => {
          await publish(review);
          seen.published.push(review);
        },
      }),
      review: async (_source, config, reviewDeps) => {
        seen.config = config;
        seen.harnessOff = reviewDeps.harnessOffReason;
        seen.llmModel = reviewDeps.llm?.model;
        return reviewOf(classes, config);
      },
      chooseHarness: async (config, options) =>
        options.enabled && config.harness.enabled ? { harness: { run: async () => ({ scenarios: [], errors: [], notes: [], runs: 0, seconds: 0 }) } } : { offReason: 'off' },
      sarif: (review) => ({ version: '2.1.0', runs: [{ results: review.annotations.length }] }),
    };
    return { fakes, ...recorded, seen };
  }

  it('fails per fail-on: unsafe fails only on unsafe, safe_by_accident also on safe by accident, never never', async () => {
    const cases: [string, FunctionClass[], number][] = [
      ['unsafe', ['unsafe', 'safe_by_design'], 1],
      ['unsafe', ['safe_by_accident'], 0],
      ['safe_by_accident', ['safe_by_accident'], 1],
      ['safe_by_accident', ['safe_by_design', 'untested'], 0],
      ['never', ['unsafe'], 0],
    ];
    for (const [failOn, classes, exitCode] of cases) {
      const { fakes, outputs } = deps(classes);
      expect(await runAction(settingsWith({ 'fail-on': failOn }), fakes), `${failOn} with ${classes}`).toBe(exitCode);
      expect(outputs.conclusion).toBe(exitCode ? 'failure' : failOn === 'never' ? 'neutral' : 'success');
    }
  });

  it('takes fail_on from the config file unless the input overrides it', async () => {
    await mkdir(path.join(workspace, '.github'));
    await writeFile(path.join(workspace, '.github/crashprobe.yml'), 'fail_on: safe_by_accident\n');
    const fromFile = deps(['safe_by_accident']);
    expect(await runAction(settingsWith(), fromFile.fakes)).toBe(1);
    expect(fromFile.seen.config?.fail_on).toBe('safe_by_accident');
    const overridden = deps(['safe_by_accident']);
    expect(await runAction(settingsWith({ 'fail-on': 'unsafe' }), overridden.fakes)).toBe(0);
  });

  it('sets one output per class and the conclusion', async () => {
    const { fakes, outputs, summaries, seen } = deps(['unsafe', 'unsafe', 'safe_by_design', 'untested']);
    await runAction(settingsWith({ 'fail-on': 'never' }), fakes);
    expect(outputs).toEqual({
      unsafe: '2',
      'safe-by-accident': '0',
      'safe-by-design': '1',
      'not-working': '0',
      untested: '1',
      conclusion: 'neutral',
    });
    expect(summaries).toEqual(['## crashprobe\nthe summary']);
    expect(seen.published).toHaveLength(1);
  });

  it('on a read-only token (403) turns the review into annotations and the job summary, with a notice, and does not fail for it', async () => {
    const forbidden = Object.assign(new Error('Resource not accessible by integration'), { status: 403 });
    const { fakes, said, summaries, outputs } = deps(['safe_by_accident'], async () => {
      throw forbidden;
    });
    expect(await runAction(settingsWith(), fakes)).toBe(0);
    expect(said.filter((s) => s.level !== 'info')).toEqual([
      { level: 'notice', message: READ_ONLY_NOTICE, where: undefined },
      {
        level: 'error',
        message: 'email sent before the payment is recorded',
        where: { title: 'unsafe', file: 'shop/billing.py', startLine: 9, endLine: 10 },
      },
      {
        level: 'warning',
        message: 'relies on the implicit transaction',
        where: { title: 'safe by accident', file: 'shop/refunds.py', startLine: 4, endLine: 4 },
      },
    ]);
    expect(summaries[0]).toContain(READ_ONLY_NOTICE);
    expect(summaries[0]).toContain('the summary');
    expect(outputs['safe-by-accident']).toBe('1');
  });

  it('lets any other posting error through', async () => {
    const { fakes } = deps(['unsafe'], async () => {
      throw Object.assign(new Error('Server Error'), { status: 500 });
    });
    await expect(runAction(settingsWith(), fakes)).rejects.toThrow('Server Error');
  });

  it('says a broken config names the field, sets action_required and reviews nothing', async () => {
    await mkdir(path.join(workspace, '.github'));
    await writeFile(path.join(workspace, '.github/crashprobe.yml'), 'fail_on: sometimes\n');
    const { fakes, said, outputs, seen } = deps(['unsafe']);
    expect(await runAction(settingsWith(), fakes)).toBe(1);
    const error = said.find((s) => s.level === 'error');
    expect(error?.message).toMatch(/^\.github\/crashprobe\.yml is not valid: fail_on: /);
    expect(error?.where?.file).toBe('.github/crashprobe.yml');
    expect(outputs).toEqual({ conclusion: 'action_required' });
    expect(seen.published).toHaveLength(0);
  });

  it('says a config that is not YAML is not valid, and where', async () => {
    await mkdir(path.join(workspace, '.github'));
    await writeFile(path.join(workspace, '.github/crashprobe.yml'), 'fail_on: [unsafe\n');
    const { fakes, said, outputs } = deps(['unsafe']);
    expect(await runAction(settingsWith(), fakes)).toBe(1);
    expect(said.find((s) => s.level === 'error')?.message).toMatch(/^\.github\/crashprobe\.yml:\d+:\d+: not valid YAML/);
    expect(outputs.conclusion).toBe('action_required');
  });

  it('reviews nothing on an event without a pull request', async () => {
    await writeFile(eventPath, JSON.stringify(examplePayload('push')));
    const { fakes, said, seen } = deps(['unsafe']);
    expect(await runAction(settingsWith({}, { GITHUB_EVENT_NAME: 'push' }), fakes)).toBe(0);
    expect(said).toEqual([{ level: 'notice', message: expect.stringContaining('this push event has none'), where: undefined }]);
    expect(seen.published).toHaveLength(0);
  });

  it('skips a draft unless the config reviews drafts', async () => {
    const draft = examplePayload('pull_request', 'opened');
    draft.pull_request.draft = true;
    await writeFile(eventPath, JSON.stringify(draft));
    const skipped = deps(['unsafe']);
    expect(await runAction(settingsWith(), skipped.fakes)).toBe(0);
    expect(skipped.seen.published).toHaveLength(0);
    await mkdir(path.join(workspace, '.github'));
    await writeFile(path.join(workspace, '.github/crashprobe.yml'), 'drafts: true\n');
    const reviewed = deps(['unsafe']);
    expect(await runAction(settingsWith(), reviewed.fakes)).toBe(1);
    expect(reviewed.seen.published).toHaveLength(1);
  });

  it('writes SARIF where asked and hands the audit model to the config', async () => {
    const { fakes, seen } = deps(['unsafe']);
    await runAction(settingsWith({ sarif: 'out.sarif', model: 'gpt-x', 'fail-on': 'never' }), fakes);
    expect(JSON.parse(await readFile(path.join(workspace, 'out.sarif'), 'utf8'))).toEqual({ version: '2.1.0', runs: [{ results: 2 }] });
    expect(seen.config?.audit.model).toBe('gpt-x');
  });

  it('gives the review an LLM client when the inputs name a model and an endpoint, and warns when half given', async () => {
    const configured = deps(['untested']);
    await runAction(settingsWith({ model: 'gpt-4o-mini', 'openai-api-key': 'sk-test', 'openai-base-url': 'http://127.0.0.1:9/v1' }), configured.fakes);
    expect(configured.seen.llmModel).toBe('gpt-4o-mini');
    expect(configured.said.filter((s) => s.level === 'warning')).toEqual([]);
    const halfGiven = deps(['untested']);
    await runAction(settingsWith({ model: 'gpt-4o-mini' }), halfGiven.fakes);
    expect(halfGiven.seen.llmModel).toBeUndefined();
    expect(halfGiven.said.find((s) => s.level === 'warning')?.message).toMatch(/^The LLM audit is off: audit\.model is gpt-4o-mini but no endpoint/);
  });

  it('passes the reason the harness is off into the review', async () => {
    const { fakes, seen } = deps(['untested']);
    await runAction(settingsWith({ harness: 'false' }), fakes);
    expect(seen.harnessOff).toBe('off');
  });
});
