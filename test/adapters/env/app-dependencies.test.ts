// The App path of issue 11: a pull request whose crash target imports a package from the
// package index. With `harness.dependencies: requirements` the App builds the environment
// (local index, install sandbox) and the target gets a verdict; the review says what was
// installed. The real harness runs, inside bubblewrap, with the environment's interpreter.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appProvisioner } from '../../../src/adapters/env/app-provisioner.ts';
import { readEnvSettings } from '../../../src/adapters/env/settings.ts';
import { chooseHarness } from '../../../src/adapters/harness/choose.ts';
import type { CampaignResult } from '../../../src/core/crash/protocol.ts';
import { comment, ORDERS_PATCH, sampleReview } from '../github/fixtures.ts';
import { createTestApp, nockJobStart, webhookExample, type TestApp } from '../probot/helpers.ts';
import type { LocalIndex } from './local-index.ts';
import { fixtureRepo, tinydepIndex } from './fixture-repo.ts';

const OWNER = 'Codertocat';
const REPO = 'Hello-World';
const repo = `/repos/${OWNER}/${REPO}`;
let test: TestApp | undefined;
let index: LocalIndex;

beforeAll(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  index = await tinydepIndex();
});
afterAll(async () => {
  await index.close();
  nock.enableNetConnect();
});
afterEach(async () => {
  await test?.close();
  test = undefined;
  nock.cleanAll();
});

function nockJob(pr: Record<string, any>, configYaml: string, posted: { summary?: string }) {
  return nockJobStart(pr, { status: 200, body: configYaml })
    .get(`${repo}/commits/${pr.head.sha}/check-runs`)
    .query(true)
    .reply(200, { total_count: 0, check_runs: [] })
    .post(`${repo}/check-runs`)
    .reply(201, { id: 900 })
    .get(`${repo}/pulls/2/files`).query(true)
    .reply(200, [{ filename: 'shop/orders.py', status: 'modified', patch: ORDERS_PATCH }])
    .get(`${repo}/pulls/2/comments`).query(true)
    .reply(200, [])
    .post(`${repo}/pulls/2/reviews`)
    .reply(200, { id: 101 })
    .get(`${repo}/issues/2/comments`).query(true)
    .reply(200, [])
    .post(`${repo}/issues/2/comments`, (body) => ((posted.summary = body.body), true))
    .reply(201, { id: 6 })
    .patch(`${repo}/check-runs/900`)
    .reply(200, { id: 900 });
}

/** One pull_request.opened through the App, with the real harness and provisioner; what the review's harness gave, and the posted summary. */
async function reviewOnce(configYaml: string, requirements?: string) {
  const payload = webhookExample('pull_request', 'opened');
  const pr = payload.pull_request;
  const { root, scenarioFile } = fixtureRepo(requirements);
  const statePath = path.join(mkdtempSync(path.join(os.tmpdir(), 'crashprobe-state-')), 'state.db');
  const env = readEnvSettings({ CRASHPROBE_PIP_INDEX_URL: index.url }, statePath).settings;
  const searchPath = (process.env.PATH ?? '/usr/bin:/bin').split(':');
  const results: CampaignResult[] = [];
  const pythons: (string | undefined)[] = [];
  test = await createTestApp(
    // The review's crash step, as reviewPullRequest does it: the harness runs the scenario file in the checkout.
    async (source, _config, deps) => {
      results.push(await deps.harness!.run([{ file: scenarioFile, root }]));
      return sampleReview([comment('fp-send', 3)], { repository: `${OWNER}/${REPO}`, headSha: source.headSha });
    },
    {
      harness: (config, logger, python) => {
        pythons.push(python);
        return chooseHarness(config, { enabled: true, fromFork: false, python: python ?? 'python3', searchPath }, logger);
      },
      dependencies: appProvisioner(env, { python: 'python3', searchPath }),
    },
  );
  const posted: { summary?: string } = {};
  const scope = nockJob(pr, configYaml, posted);

  await test.probot.receive({ id: 'delivery-deps', name: 'pull_request', payload } as never);
  await test.app.pool.idle();

  expect(test.state.jobs().map((j) => j.status)).toEqual(['done']);
  scope.done();
  expect(results).toHaveLength(1);
  return { result: results[0]!, summary: posted.summary ?? '', pythons, env };
}

describe('the App with harness.dependencies', () => {
  it('builds the environment from requirements.txt and the target that imports it gets a verdict', async () => {
    const { result, summary: postedSummary, pythons, env } = await reviewOnce('harness:\n  dependencies: requirements\n');
    expect(result.errors).toEqual([]);
    expect(result.scenarios.map((s) => [s.name, s.target])).toEqual([['one_value', 'shop/doubler.py:record']]);
    expect(['unsafe', 'safe_by_accident', 'safe_by_design']).toContain(result.scenarios[0]!.class);
    // Prepared twice: with the App's interpreter (before the review), then with the environment's.
    expect(pythons[0]).toBeUndefined();
    expect(pythons[1]).toMatch(new RegExp(`^${env.cacheDir}/.+/venv/bin/python$`));
    expect(index.requests).toContain('GET /simple/tinydep/');
    expect(postedSummary).toContain('#### Dependencies');
    expect(postedSummary).toMatch(/Dependencies installed for crash tests: 1 requirement\(s\) from requirements\.txt, wheels only/);
  }, 120_000);

  it('without it, the review names the missing module, the line that imports it, and the fix', async () => {
    const { result, summary, pythons } = await reviewOnce('drafts: false\n');
    expect(result.scenarios).toEqual([]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.message).toMatch(
      /target file shop\/doubler\.py does not import: ModuleNotFoundError: No module named 'tinydep'\. `tinydep` is imported at shop\/doubler\.py:3\. Fix: list the package that provides `tinydep` in requirements\.txt or pyproject\.toml and set `harness\.dependencies: auto`/,
    );
    expect(pythons).toEqual([undefined]);
    expect(summary).not.toContain('#### Dependencies');
  }, 120_000);

  it('says why when the index does not have a package, and crash-tests with the App\'s interpreter', async () => {
    const { result, summary, pythons } = await reviewOnce('harness:\n  dependencies: auto\n', 'tinydep==1.0\nnosuchpkg==1.0\n');
    expect(pythons).toEqual([undefined]);
    expect(result.errors[0]!.message).toMatch(/No module named 'tinydep'.*Fix: see the dependency note of this review/);
    expect(summary).toMatch(/Dependencies were not installed \(crash tests ran with the App's interpreter\): pip: ERROR: .*nosuchpkg/);
  }, 120_000);
});
