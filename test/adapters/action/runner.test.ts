// The runner's decisions with every port faked by an object literal: what it does
// with the event, the config file, a read-only token and fail-on. The end-to-end
// tests (e2e.test.ts) run the same path against a fake GitHub API.
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ActionIO, AnnotationPlace } from '../../../src/adapters/action/io.ts';
import { PULL_REQUEST_TARGET_REFUSAL, runAction, type ActionDeps } from '../../../src/adapters/action/runner.ts';
import { CHECKS_READ_ONLY, PULL_REQUEST_READ_ONLY } from '../../../src/adapters/action/deliver.ts';
import type { CheckOutcome } from '../../../src/adapters/github/check-run.ts';
import { GitHubApiError } from '../../../src/adapters/github/errors.ts';
import type { PublishReport } from '../../../src/adapters/github/publisher.ts';
import { readSettings, type InputName } from '../../../src/adapters/action/settings.ts';
import type { CrashprobeConfig } from '../../../src/core/config/schema.ts';
import { examplePayload } from './events.ts';
import { conclusionFor } from '../../../src/core/review/conclusion.ts';
import type { FunctionClass, Review } from '../../../src/core/model/review.ts';

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

  const posted: PublishReport = { pullRequest: 'posted', check: 'check-run', refusals: [] };

  /** The fake connection: the base's files are the workspace's here; the publisher records what it is asked. */
  function deps(classes: FunctionClass[], publish: (review: Review) => Promise<PublishReport> = async () => posted, extra: { refusal?: string } = {}) {
    const recorded = recordingIO();
    const seen: { config?: CrashprobeConfig; published: Review[]; concluded: CheckOutcome[]; started: number; harnessOff?: string; llmModel?: string; noLlmNote?: string } = {
      published: [],
      concluded: [],
      started: 0,
    };
    const fakes: ActionDeps = {
      io: recorded.io,
      connect: () => ({
        source: {} as never,
        publisher: {
          start: async () => void (seen.started += 1),
          publish: async (review) => {
            const report = await publish(review);
            seen.published.push(review);
            return report;
          },
          conclude: async (outcome) => {
            seen.concluded.push(outcome);
            return { pullRequest: 'not-attempted', check: 'check-run', refusals: [] };
          },
        },
        readBaseFile: (file) => readFile(path.join(workspace, file), 'utf8').catch(() => undefined),
        dispose: async () => {},
      }),
      review: async (_source, config, reviewDeps) => {
        seen.config = config;
        seen.harnessOff = reviewDeps.harnessOffReason;
        seen.llmModel = reviewDeps.llm?.model;
        seen.noLlmNote = reviewDeps.noLlmNote;
        return reviewOf(classes, config);
      },
      chooseHarness: async (config, options) =>
        extra.refusal
          ? { offReason: 'refused', refusal: extra.refusal }
          : options.enabled && config.harness.enabled
            ? { harness: { run: async () => ({ scenarios: [], errors: [], notes: [], runs: 0, seconds: 0 }) as never } }
            : { offReason: 'off' },
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
    expect(seen.started).toBe(1);
  });

  it('on a read-only token: the check run carries the annotations, so they are not printed again; the notice says what went where', async () => {
    const { fakes, said, summaries, outputs } = deps(['safe_by_accident'], async () => ({ pullRequest: 'read-only', check: 'check-run', refusals: ['403'] }));
    expect(await runAction(settingsWith(), fakes)).toBe(0);
    const notices = said.filter((s) => s.level !== 'info');
    expect(notices).toEqual([{ level: 'notice', message: expect.stringContaining(PULL_REQUEST_READ_ONLY), where: undefined }]);
    expect(notices[0]!.message).toContain('check run (with its annotations)');
    expect(summaries[0]).toContain(PULL_REQUEST_READ_ONLY);
    expect(summaries[0]).toContain('the summary');
    expect(outputs['safe-by-accident']).toBe('1');
  });

  it('with no check run nor status writable: prints the annotations itself, once', async () => {
    const { fakes, said } = deps(['safe_by_accident'], async () => ({ pullRequest: 'read-only', check: 'none', refusals: [] }));
    expect(await runAction(settingsWith(), fakes)).toBe(0);
    expect(said.filter((s) => s.level !== 'info')).toEqual([
      { level: 'notice', message: expect.stringContaining('and the annotations of this step'), where: undefined },
      { level: 'notice', message: expect.stringContaining(CHECKS_READ_ONLY), where: undefined },
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
  });

  it('without checks: write but with the review posted: one notice about the check run only, never "could not write the review"', async () => {
    const { fakes, said } = deps(['safe_by_design'], async () => ({ pullRequest: 'posted', check: 'commit-status', refusals: [] }));
    expect(await runAction(settingsWith(), fakes)).toBe(0);
    const notices = said.filter((s) => s.level === 'notice');
    expect(notices.map((n) => n.message)).toEqual([expect.stringContaining('the conclusion is the commit status `crashprobe`')]);
    expect(notices[0]!.message).not.toContain('pull request');
  });

  it('on any other posting error (a 5xx) keeps the outputs, summary and SARIF, fails the check run closed, and exits by fail-on', async () => {
    const { fakes, said, outputs, summaries, seen } = deps(['safe_by_accident'], async () => {
      throw new GitHubApiError('POST /repos/o/r/pulls/1/reviews', 502, 'Server Error');
    });
    expect(await runAction(settingsWith({ sarif: 'out.sarif', 'fail-on': 'unsafe' }), fakes)).toBe(0);
    expect(outputs).toMatchObject({ 'safe-by-accident': '1', conclusion: 'success' });
    expect(summaries[0]).toContain('the summary');
    expect(JSON.parse(await readFile(path.join(workspace, 'out.sarif'), 'utf8'))).toMatchObject({ version: '2.1.0' });
    expect(seen.concluded).toEqual([expect.objectContaining({ conclusion: 'failure', title: 'crashprobe could not post its review' })]);
    const warning = said.find((s) => s.level === 'warning')?.message ?? '';
    expect(warning).toMatch(/^crashprobe could not post its review to GitHub: GitHub POST .* failed with 502/);
    expect(said.map((s) => s.message).join('\n')).not.toMatch(/retried later/);
  });

  it("concludes a review whose sandbox was refused action_required, with the reason, and fails the step", async () => {
    const reason = 'crash tests skipped: bubblewrap could not create a user namespace';
    const { fakes, outputs, seen } = deps(['untested'], undefined, { refusal: reason });
    expect(await runAction(settingsWith({ 'fail-on': 'never' }), fakes)).toBe(1);
    expect(seen.harnessOff).toBe(reason);
    expect(seen.published[0]).toMatchObject({ conclusion: 'action_required', checkSummary: expect.stringContaining(reason) });
    expect(outputs.conclusion).toBe('action_required');
  });

  it('refuses pull_request_target with the harness on unless the workflow opts in', async () => {
    const refused = deps(['unsafe']);
    expect(await runAction(settingsWith({}, { GITHUB_EVENT_NAME: 'pull_request_target' }), refused.fakes)).toBe(1);
    expect(refused.said.find((s) => s.level === 'error')?.message).toBe(PULL_REQUEST_TARGET_REFUSAL);
    expect(refused.outputs.conclusion).toBe('action_required');
    expect(refused.seen.published).toHaveLength(0);
    expect(refused.seen.concluded).toEqual([expect.objectContaining({ conclusion: 'action_required' })]);
    const staticOnly = deps(['untested']);
    expect(await runAction(settingsWith({ harness: 'false' }, { GITHUB_EVENT_NAME: 'pull_request_target' }), staticOnly.fakes)).toBe(0);
    expect(staticOnly.seen.published).toHaveLength(1);
    const optedIn = deps(['untested']);
    expect(await runAction(settingsWith({ 'allow-pull-request-target-harness': 'true' }, { GITHUB_EVENT_NAME: 'pull_request_target' }), optedIn.fakes)).toBe(0);
    expect(optedIn.seen.published).toHaveLength(1);
  });

  it('says a broken config names the field, sets action_required and reviews nothing', async () => {
    await mkdir(path.join(workspace, '.github'));
    await writeFile(path.join(workspace, '.github/crashprobe.yml'), 'fail_on: sometimes\n');
    const { fakes, said, outputs, seen } = deps(['unsafe']);
    expect(await runAction(settingsWith(), fakes)).toBe(1);
    const error = said.find((s) => s.level === 'error');
    expect(error?.message).toMatch(/^\.github\/crashprobe\.yml \(at the base commit\) is not valid: fail_on: /);
    expect(error?.where?.file).toBe('.github/crashprobe.yml');
    expect(outputs).toMatchObject({ unsafe: '0', conclusion: 'action_required' });
    expect(seen.published).toHaveLength(0);
    expect(seen.concluded).toEqual([expect.objectContaining({ conclusion: 'action_required' })]);
  });

  it('says a config that is not YAML is not valid, and where', async () => {
    await mkdir(path.join(workspace, '.github'));
    await writeFile(path.join(workspace, '.github/crashprobe.yml'), 'fail_on: [unsafe\n');
    const { fakes, said, outputs } = deps(['unsafe']);
    expect(await runAction(settingsWith(), fakes)).toBe(1);
    expect(said.find((s) => s.level === 'error')?.message).toMatch(/^\.github\/crashprobe\.yml:\d+:\d+ \(at the base commit\): not valid YAML/);
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

  it("runs no LLM audit on a fork's pull request unless the base config sets audit.forks, and says why", async () => {
    const fork = examplePayload('pull_request', 'opened');
    fork.pull_request.head.repo = { ...fork.pull_request.head.repo, full_name: 'forker/Hello-World' };
    await writeFile(eventPath, JSON.stringify(fork));
    const inputs = { model: 'gpt-4o-mini', 'openai-api-key': 'sk-test', 'openai-base-url': 'http://127.0.0.1:9/v1' };
    const off = deps(['untested']);
    await runAction(settingsWith(inputs), off.fakes);
    expect(off.seen.llmModel).toBeUndefined();
    expect(off.seen.noLlmNote).toMatch(/comes from a fork.*audit\.forks: true/);
    await mkdir(path.join(workspace, '.github'), { recursive: true });
    await writeFile(path.join(workspace, '.github/crashprobe.yml'), 'audit:\n  forks: true\n');
    const on = deps(['untested']);
    await runAction(settingsWith(inputs), on.fakes);
    expect(on.seen.llmModel).toBe('gpt-4o-mini');
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
