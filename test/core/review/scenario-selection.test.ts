// Which scenarios a review runs (issue 10, item 1), the verdict cache that keeps
// what each run imported and executed, head against base, and why a scenario was
// not run (issue 12, defect 6). The harness is faked with verdicts built here; the
// real harness runs in test/adapters/cli/review-regression.test.ts.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../src/core/config/schema.ts';
import { silentLogger } from '../../../src/core/ports.ts';
import { reviewPullRequest } from '../../../src/core/review/review.ts';
import { memoryStore } from '../../../src/core/review/verdict-cache.ts';
import { scenarioTargets } from '../../../src/core/review/scenario-files.ts';
import { fakeHarness, fakePr, type FakePr, type VerdictSpec } from './fake-pr.ts';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

// `put` writes through a helper on an object of unknown type: static analysis does not see it as a writer.
const QUEUE = `class Queue:
    def __init__(self, path):
        self.path = path

    def put(self, item):
        self.backend.push(item)
        return item
`;
const QUEUE_CHANGED = QUEUE.replace('        return item\n', '        self.backend.push(item)\n        return item\n');
const HELPERS = `def save(store, item):
    store.add(item)
`;
const HELPERS_CHANGED = `def save(store, item):
    store.add(item)
    store.add(item)
`;
const JOBS = `from lib.helpers import save


def run_job(store, item):
    save(store, item)
`;
const SCENARIOS = `from crashprobe import scenario


@scenario("lib/queue.py:Queue.put")
def put_one(world):
    from lib.queue import Queue
    return {"self": Queue(world.path("q")), "item": 1}


@scenario("lib/jobs.py:run_job")
def one_job(world):
    return {"store": None, "item": 1}
`;

const prs: FakePr[] = [];
afterEach(() => {
  for (const pr of prs.splice(0)) pr.dispose();
});

function pr(base: Record<string, string>, head: Record<string, string>, options?: Parameters<typeof fakePr>[2]): FakePr {
  const made = fakePr(base, head, options);
  prs.push(made);
  return made;
}

const files = (over: Record<string, string> = {}) => ({
  'lib/__init__.py': '',
  'lib/queue.py': QUEUE,
  'lib/helpers.py': HELPERS,
  'lib/jobs.py': JOBS,
  'crash_scenarios.py': SCENARIOS,
  ...over,
});

function harnessFor(source: FakePr, answer: (target: string, at: 'head' | 'base') => VerdictSpec) {
  return fakeHarness((_file, target, at) => answer(target, at), source, (rel) => (rel === 'crash_scenarios.py' ? scenarioTargets(SCENARIOS) : []));
}

describe('which scenarios a review runs', () => {
  it('runs a scenario whose target is touched even when static analysis sees no write in it', async () => {
    const source = pr(files(), files({ 'lib/queue.py': QUEUE_CHANGED }));
    const harness = harnessFor(source, (target, at) => ({ class: target.endsWith('put') && at === 'head' ? 'unsafe' : 'safe_by_design' }));
    const review = await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store: memoryStore(), logger: silentLogger });
    expect(harness.calls.map((c) => c.at)).toEqual(['head', 'base']);
    const put = review.functions.find((f) => f.qualname === 'Queue.put');
    expect(put).toMatchObject({ class: 'unsafe', path: 'lib/queue.py' });
    expect(put?.base).toMatchObject({ class: 'safe_by_design', change: 'regression', text: 'safe by design at base → unsafe at this head' });
    expect(review.summary).toContain('safe by design at base → unsafe at this head');
    expect(review.conclusion).toBe('failure');
  });

  it('runs a scenario whose last run executed a function the change touches, and not one whose run did not', async () => {
    const store = memoryStore();
    const executed = ['lib/jobs.py:run_job', 'lib/helpers.py:save'];
    // First review: a change to the scenario file itself runs both scenarios and records what they executed.
    const first = pr({ ...files(), 'crash_scenarios.py': SCENARIOS.replace('"item": 1}', '"item": 2}') }, files());
    const firstHarness = harnessFor(first, (target) => ({ class: 'safe_by_design', executed: target.endsWith('run_job') ? executed : [target] }));
    await reviewPullRequest(first, DEFAULT_CONFIG, { harness: firstHarness, store, logger: silentLogger });
    expect(firstHarness.calls.length).toBeGreaterThan(0);

    // Second review: only the helper changed. run_job is not touched, but its run executed save.
    const second = pr(files(), files({ 'lib/helpers.py': HELPERS_CHANGED }));
    const secondHarness = harnessFor(second, (target, at) => ({ class: at === 'head' ? 'unsafe' : 'safe_by_design', executed: target.endsWith('run_job') ? executed : [target] }));
    const review = await reviewPullRequest(second, DEFAULT_CONFIG, { harness: secondHarness, store, logger: silentLogger });
    expect(secondHarness.calls[0]).toEqual({ at: 'head', files: ['crash_scenarios.py'] });
    const job = review.functions.find((f) => f.qualname === 'run_job');
    expect(job).toMatchObject({ class: 'unsafe', affected: true });
    expect(job?.base?.change).toBe('regression');
  });

  it("shows and counts only the file's targets the change concerns, not every scenario of a file that runs", async () => {
    const source = pr(files(), files({ 'lib/queue.py': QUEUE_CHANGED }));
    const harness = harnessFor(source, (target) => ({ class: target.endsWith('run_job') ? 'unsafe' : 'safe_by_design' }));
    const review = await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store: memoryStore(), logger: silentLogger });
    // The file ran (Queue.put is touched), and run_job's scenario with it; run_job neither changed nor reaches the change.
    expect(harness.calls[0]?.files).toEqual(['crash_scenarios.py']);
    expect(review.functions.map((f) => f.qualname)).toEqual(['Queue.put']);
    expect(review.conclusion).toBe('success');
  });

  it('runs nothing when the change touches no target and no code a scenario reaches', async () => {
    const source = pr(files({ 'lib/other.py': 'X = 1\n' }), files({ 'lib/other.py': 'X = 2\n' }));
    const harness = harnessFor(source, () => ({ class: 'safe_by_design' }));
    await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store: memoryStore(), logger: silentLogger });
    expect(harness.calls).toEqual([]);
  });

  it('finds a never-run scenario that calls touched code through the call graph', async () => {
    const source = pr(files(), files({ 'lib/helpers.py': HELPERS_CHANGED }));
    const harness = harnessFor(source, () => ({ class: 'safe_by_design' }));
    const review = await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store: memoryStore(), logger: silentLogger });
    expect(harness.calls[0]?.files).toEqual(['crash_scenarios.py']);
    expect(review.functions.map((f) => f.qualname)).toContain('run_job');
  });
});

describe('the verdict cache', () => {
  it('serves a second review of the same head from the cache, at the head and at the base', async () => {
    const store = memoryStore();
    const review = async () => {
      const source = pr(files(), files({ 'lib/queue.py': QUEUE_CHANGED }));
      const harness = harnessFor(source, (_target, at) => ({ class: 'safe_by_design', imports: [{ path: 'lib/queue.py', sha256: sha(at === 'head' ? QUEUE_CHANGED : QUEUE) }] }));
      const result = await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store, logger: silentLogger });
      return { result, calls: harness.calls.length };
    };
    expect((await review()).calls).toBe(2);
    const again = await review();
    expect(again.calls).toBe(0);
    expect(again.result.functions.find((f) => f.qualname === 'Queue.put')).toMatchObject({ cached: true, base: { cached: true } });
  });

  it('re-runs when a file the run imported changed, though no target did', async () => {
    const store = memoryStore();
    const util = 'LIMIT = 1\n';
    const review = async (utilText: string) => {
      const source = pr(files({ 'lib/util.py': util }), files({ 'lib/queue.py': QUEUE_CHANGED, 'lib/util.py': utilText }));
      const harness = harnessFor(source, () => ({ class: 'safe_by_design', imports: [{ path: 'lib/util.py', sha256: sha(utilText) }] }));
      await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store, logger: silentLogger });
      return harness.calls.filter((c) => c.at === 'head').length;
    };
    expect(await review(util)).toBe(1);
    expect(await review(util)).toBe(0);
    expect(await review('LIMIT = 2\n')).toBe(1);
  });

  it('treats a cached value that does not parse as a miss, not as verdicts', async () => {
    const store = memoryStore();
    const source = pr(files(), files({ 'lib/queue.py': QUEUE_CHANGED }));
    const harness = harnessFor(source, () => ({ class: 'safe_by_design' }));
    await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store, logger: silentLogger });
    for (const key of [...store.entries.keys()].filter((k) => k.startsWith('verdict:'))) store.set(key, JSON.stringify([{ verdicts: [{ class: 'unsafe' }], imports: [], executed: [] }]));
    const again = pr(files(), files({ 'lib/queue.py': QUEUE_CHANGED }));
    const harness2 = harnessFor(again, () => ({ class: 'safe_by_design' }));
    const review = await reviewPullRequest(again, DEFAULT_CONFIG, { harness: harness2, store, logger: silentLogger });
    expect(harness2.calls.length).toBe(2);
    expect(review.functions.find((f) => f.qualname === 'Queue.put')?.class).toBe('safe_by_design');
  });
});

describe('head against base', () => {
  it('says an improvement and does not fail on it', async () => {
    const source = pr(files(), files({ 'lib/queue.py': QUEUE_CHANGED }));
    const harness = harnessFor(source, (target, at) => ({ class: target.endsWith('put') && at === 'base' ? 'not_working' : 'safe_by_design' }));
    const review = await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store: memoryStore(), logger: silentLogger });
    expect(review.functions.find((f) => f.qualname === 'Queue.put')?.base).toMatchObject({ change: 'improvement', text: 'not working at base → fixed (safe by design)' });
    expect(review.summary).toContain('**improvement**');
    expect(review.conclusion).toBe('success');
  });

  it('fails the check on a regression below the fail_on class, and only says it under fail_on: never', async () => {
    const run = async (failOn: 'unsafe' | 'never') => {
      const source = pr(files(), files({ 'lib/queue.py': QUEUE_CHANGED }));
      const harness = harnessFor(source, (target, at) => ({ class: target.endsWith('put') && at === 'head' ? 'safe_by_accident' : 'safe_by_design' }));
      return reviewPullRequest(source, { ...DEFAULT_CONFIG, fail_on: failOn }, { harness, store: memoryStore(), logger: silentLogger });
    };
    expect((await run('unsafe')).conclusion).toBe('failure');
    const never = await run('never');
    expect(never.conclusion).toBe('neutral');
    expect(never.summary).toContain('safe by design at base → safe by accident at this head');
  });

  it('calls a function new in this change new, without a base run', async () => {
    const base = files();
    delete (base as Record<string, string>)['lib/queue.py'];
    const source = pr(base, files());
    const harness = harnessFor(source, () => ({ class: 'safe_by_design' }));
    const review = await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store: memoryStore(), logger: silentLogger });
    expect(review.functions.find((f) => f.qualname === 'Queue.put')?.base).toMatchObject({ class: 'absent', change: 'new' });
  });
});

describe('a scenario that was not run says why (issue 12, defect 6)', () => {
  const WRITER = 'import sqlite3\n\n\ndef store(conn, key):\n    conn.execute("INSERT INTO kv VALUES (?)", (key,))\n    conn.commit()\n';
  const WRITER_SCENARIO = 'from crashprobe import scenario\n\n\n@scenario("app/kv.py:store")\ndef one(world):\n    return {}\n';

  it('on a fork: "not run: fork", never "no scenario", and no scenario file offered', async () => {
    const source = pr({ 'app/kv.py': WRITER, 'crash_scenarios.py': WRITER_SCENARIO }, { 'app/kv.py': WRITER.replace('(key,)', '(key.strip(),)'), 'crash_scenarios.py': WRITER_SCENARIO }, { fromFork: true });
    const review = await reviewPullRequest(source, DEFAULT_CONFIG, {
      store: memoryStore(),
      logger: silentLogger,
      harnessOffReason: 'The crash harness did not run: this pull request comes from a fork.',
    });
    const fn = review.functions.find((f) => f.qualname === 'store');
    expect(fn).toMatchObject({ class: 'untested', notRunBecause: 'fork' });
    expect(fn?.scenarioTemplate).toBeUndefined();
    expect(review.summary).toContain('not run: fork');
    expect(review.summary).not.toContain('no scenario');
    expect(review.summary).not.toContain('Scenario file to add');
  });

  it('with the harness off: "not run: harness off"; over the budget: "budget"', async () => {
    const head = { 'app/kv.py': WRITER.replace('(key,)', '(key.strip(),)'), 'crash_scenarios.py': WRITER_SCENARIO };
    const off = await reviewPullRequest(pr({ 'app/kv.py': WRITER, 'crash_scenarios.py': WRITER_SCENARIO }, head), DEFAULT_CONFIG, { store: memoryStore(), logger: silentLogger, harnessOffReason: 'The crash harness is off (--no-harness).' });
    expect(off.functions[0]?.notRunBecause).toBe('harness off');
    const source = pr({ 'app/kv.py': WRITER, 'crash_scenarios.py': WRITER_SCENARIO }, head);
    const harness = fakeHarness(() => ({ class: 'safe_by_design' }), source, () => ['app/kv.py:store']);
    const budget = await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store: memoryStore(), logger: silentLogger, maxScenarioFiles: 0 });
    expect(budget.functions[0]?.notRunBecause).toMatch(/^budget/);
    expect(harness.calls).toEqual([]);
  });

  it('a scenario file that ran but gave one function no verdict: the harness\'s error, else "no verdict", never "no scenario"', async () => {
    const TWO = `${WRITER}\n\ndef drop(conn, key):\n    conn.execute("DELETE FROM kv WHERE k = ?", (key,))\n    conn.commit()\n`;
    const TWO_SCENARIOS = `${WRITER_SCENARIO}\n\n@scenario("app/kv.py:drop")\ndef two(world):\n    return {}\n`;
    const changed = TWO.replace('(key,)', '(key.strip(),)').replace('(key,)', '(key.strip(),)');
    const review = async (error?: string) => {
      const source = pr({ 'app/kv.py': TWO, 'crash_scenarios.py': TWO_SCENARIOS }, { 'app/kv.py': changed, 'crash_scenarios.py': TWO_SCENARIOS });
      // The harness answers for `store` only: `drop`'s scenario failed to load (with an error, or silently).
      const inner = fakeHarness(() => ({ class: 'safe_by_design' }), source, () => ['app/kv.py:store']);
      const harness = {
        run: async (files: Parameters<typeof inner.run>[0]) => {
          const result = await inner.run(files);
          return error ? { ...result, errors: files.map((f) => ({ file: path.relative(f.root, f.file), message: error })) } : result;
        },
      };
      return reviewPullRequest(source, DEFAULT_CONFIG, { harness, store: memoryStore(), logger: silentLogger });
    };
    const silent = await review();
    expect(silent.functions.find((f) => f.qualname === 'store')).toMatchObject({ class: 'safe_by_design' });
    expect(silent.functions.find((f) => f.qualname === 'drop')).toMatchObject({ class: 'untested', notRunBecause: 'its scenario file gave no verdict for it' });
    expect(silent.summary).not.toContain('no scenario');
    const failed = await review('two: the setup raised KeyError');
    expect(failed.functions.find((f) => f.qualname === 'drop')).toMatchObject({ class: 'untested', notRunBecause: 'two: the setup raised KeyError' });
    expect(failed.summary).toContain('not run: two: the setup raised KeyError');
    expect(failed.summary).not.toContain('no scenario');
  });

  it('offers a scenario file only for a writer that has none', async () => {
    const head = { 'app/kv.py': WRITER.replace('(key,)', '(key.strip(),)') };
    const review = await reviewPullRequest(pr({ 'app/kv.py': WRITER }, head), DEFAULT_CONFIG, { store: memoryStore(), logger: silentLogger });
    expect(review.functions[0]?.scenarioTemplate).toContain('@scenario("app/kv.py:store")');
    expect(review.functions[0]?.notRunBecause).toBeUndefined();
  });
});
