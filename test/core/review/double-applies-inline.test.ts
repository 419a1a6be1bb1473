// Double-applies is a summary fact (issue 15): a re-run that applies the work again is posted
// inline only when the function takes a request id or idempotency key that failed to stop the
// repeat, or a scenario says the call must be idempotent (`@scenario(..., idempotent=True)`).
// The review runs the real harness on a counter whose `incr` adds on every call.
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioFiles } from '../../../src/adapters/harness/campaign.ts';
import { DEFAULT_CONFIG } from '../../../src/core/config/schema.ts';
import type { ScenarioVerdict } from '../../../src/core/crash/protocol.ts';
import { silentLogger, type HarnessRunner } from '../../../src/core/ports.ts';
import { postsDoubleAppliesInline } from '../../../src/core/review/double-applies-inline.ts';
import { reviewPullRequest } from '../../../src/core/review/review.ts';
import { memoryStore } from '../../../src/core/review/verdict-cache.ts';
import { harnessOptions } from '../crash/helpers.ts';
import { functionOf, moduleOf } from '../python/python-source.ts';
import { fakePr, type FakePr } from './fake-pr.ts';

const COUNTER = `def incr(conn, key):
    conn.execute("UPDATE counters SET n = n + 1 WHERE key = ?", (key,))
    conn.commit()
`;

const scenarios = (option: string) => `from crashprobe import scenario


@scenario("app/counter.py:incr"${option})
def count_one(world):
    world.seed_sqlite("c.db", "CREATE TABLE counters(key TEXT PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO counters VALUES ('hits', 0);")
    return {"conn": world.sqlite("c.db"), "key": "hits"}
`;

const verdict = (over: Partial<ScenarioVerdict>): ScenarioVerdict => ({ double_applies: true, ...over }) as ScenarioVerdict;

describe('postsDoubleAppliesInline', () => {
  const fnOf = (source: string) => functionOf(moduleOf(source), 'f');

  it('keeps a plain double-apply in the summary', () => {
    expect(postsDoubleAppliesInline(fnOf('def f(conn, key):\n    pass\n'), [verdict({})])).toBe(false);
  });
  it('posts it when a request id parameter failed to stop the repeat', () => {
    expect(postsDoubleAppliesInline(fnOf('def f(conn, key, request_id):\n    pass\n'), [verdict({})])).toBe(true);
  });
  it('posts it when a scenario that double-applies says idempotent=True, and not for another scenario', () => {
    const fn = fnOf('def f(conn, key):\n    pass\n');
    expect(postsDoubleAppliesInline(fn, [verdict({ idempotent: true })])).toBe(true);
    expect(postsDoubleAppliesInline(fn, [verdict({ idempotent: true, double_applies: false }), verdict({ idempotent: false })])).toBe(false);
  });
});

describe('a counter reviewed with the real harness', () => {
  const prs: FakePr[] = [];
  afterAll(() => {
    for (const pr of prs) pr.dispose();
  });

  async function review(option: string) {
    const head = { 'pyproject.toml': '[project]\nname = "app"\n', 'app/__init__.py': '', 'app/counter.py': COUNTER, 'crash_scenarios.py': scenarios(option) };
    const pr = fakePr({ 'pyproject.toml': head['pyproject.toml'], 'app/__init__.py': '' }, head, { withBase: false });
    prs.push(pr);
    const options = await harnessOptions();
    const harness: HarnessRunner = { run: (files) => runScenarioFiles(files, options) };
    return reviewPullRequest(pr, DEFAULT_CONFIG, { harness, store: memoryStore(), logger: silentLogger, repairs: false });
  }

  it('default: the double-apply is a fact of the table, no inline comment', async () => {
    const result = await review('');
    const incr = result.functions.find((f) => f.qualname === 'incr');
    expect(incr).toMatchObject({ class: 'safe_by_design', doubleApplies: true });
    expect(result.findings.filter((f) => f.ruleId.startsWith('crash/'))).toEqual([]);
  }, 120_000);

  it('idempotent=True: the harness passes the option on and the double-apply is posted inline', async () => {
    const result = await review(', idempotent=True');
    const incr = result.functions.find((f) => f.qualname === 'incr');
    expect(incr).toMatchObject({ class: 'safe_by_design', doubleApplies: true });
    const crashFindings = result.findings.filter((f) => f.ruleId.startsWith('crash/'));
    expect(crashFindings.map((f) => [f.ruleId, f.function])).toEqual([['crash/safe_by_design', 'incr']]);
    expect(result.comments.some((c) => c.path === 'app/counter.py' && c.body.includes('Double-applies'))).toBe(true);
  }, 120_000);
});
