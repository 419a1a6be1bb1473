// The promises of the App's storage (issue 14), held against every backend: sqlite-backend.test.ts
// and postgres-backend.test.ts run this same suite. Whatever depends on leases, back-offs or deadlines
// moves a manual clock (BackendOptions.now), so no sleep and no machine's speed decides what they see;
// leases that must not run out are an hour.
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_CONCLUSION_RUNS, conclusionStoppedMessage, type AppBackend, type BackendOptions, type JobInput } from '../../src/store/backend.ts';

export type OpenBackend = (options: BackendOptions) => Promise<AppBackend>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A push of head `sha` to pull request `pr`; `before`: the head it moved on from (a `synchronize`). */
const push = (pr: number, sha: string, before?: string, installationId = 1): JobInput => ({
  key: `octo/shop#${pr}@${sha}`,
  payload: { installationId, number: pr, headSha: sha },
  lane: `octo/shop#${pr}`,
  supersedes: before ? [`octo/shop#${pr}@${before}`] : [],
  supersedable: true,
});

/** A re-run someone asked for (a check run's re-run, `/crashprobe review`): in the lane, never superseded by a push. */
const rerun = (pr: number, delivery: string): JobInput => ({ key: `octo/shop#${pr}!${delivery}`, payload: { installationId: 1 }, lane: `octo/shop#${pr}` });

/** A clock the test moves: leases run out and back-offs end only when the test says so, however slow the machine. */
function manualClock(start = Date.now()) {
  let time = start;
  return { now: () => time, advance: (ms: number) => void (time += ms) };
}

const HOUR = 3_600_000;

export function backendContract(name: string, open: OpenBackend): void {
  describe(`${name} backend: the promises of issue 14`, () => {
    const opened: AppBackend[] = [];
    const backend = async (options: BackendOptions = {}) => {
      const b = await open({ retryDelayMs: () => 50, ...options });
      opened.push(b);
      return b;
    };
    afterEach(async () => {
      for (const b of opened.splice(0)) await b.close();
    });

    it('records a delivery once: a redelivery queues nothing, another delivery of the same head finds its job', async () => {
      const b = await backend();
      expect((await b.admit('d-1', 'pull_request', push(7, 'a'))).outcome).toBe('queued');
      expect((await b.admit('d-1', 'pull_request', push(7, 'a'))).outcome).toBe('duplicate');
      expect((await b.admit('d-2', 'pull_request', push(7, 'a'))).outcome).toBe('exists');
      expect((await b.admit('d-3', 'issue_comment')).outcome).toBe('ignored');
      expect((await b.jobs()).map((j) => [j.key, j.deliveryId])).toEqual([['octo/shop#7@a', 'd-1']]);
    });

    it('queues one job per head key when deliveries of the same head race', async () => {
      const b = await backend();
      const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => b.admit(`race-${i}`, 'pull_request', push(7, 'a'))));
      expect(outcomes.map((o) => o.outcome).sort()).toEqual(['exists', 'exists', 'exists', 'exists', 'exists', 'exists', 'exists', 'queued']);
      expect(await b.jobs()).toHaveLength(1);
    });

    it("cancels the older head's pending job when a newer push to the same pull request arrives; a running one finishes first", async () => {
      const b = await backend();
      await b.admit('d-1', 'pull_request', push(7, 'a'));
      const rerun: JobInput = { key: 'octo/shop#7!d-2', payload: { installationId: 1 }, lane: 'octo/shop#7' };
      await b.admit('d-2', 'issue_comment', rerun);
      const newer = await b.admit('d-3', 'pull_request', push(7, 'b', 'a'));
      expect(newer).toMatchObject({ outcome: 'queued', superseded: ['octo/shop#7@a'] });
      expect((await b.jobByKey('octo/shop#7@a'))).toMatchObject({ status: 'cancelled', lastError: 'superseded by octo/shop#7@b' });
      // A re-run someone asked for is not a push's review: it stays.
      expect((await b.jobByKey('octo/shop#7!d-2'))?.status).toBe('pending');
      const first = await b.claim('w1', HOUR);
      expect(first?.key).toBe('octo/shop#7!d-2');
      // A push while a job of the lane runs: the running job is not cancelled, the new one waits for the lane.
      const third = await b.admit('d-4', 'pull_request', push(7, 'c', 'b'));
      expect(third.superseded).toEqual(['octo/shop#7@b']);
      expect((await b.job(first!.id))?.status).toBe('running');
      expect(await b.claim('w2', HOUR)).toBeUndefined();
      await b.complete(first!.id, 'w1');
      expect((await b.claim('w2', HOUR))?.key).toBe('octo/shop#7@c');
      expect(await b.counts()).toMatchObject({ cancelled: 2, done: 1, running: 1, pending: 0 });
    });

    it('never lets a late delivery of an older head cancel the newer head it was replaced by', async () => {
      const b = await backend();
      // The push (b, moved on from a) arrives first, then the `opened` of a: a is reviewed-or-skipped, b still runs.
      expect(await b.admit('d-push', 'pull_request', push(8, 'b', 'a'))).toMatchObject({ outcome: 'queued', superseded: [] });
      expect(await b.admit('d-open', 'pull_request', push(8, 'a'))).toMatchObject({ outcome: 'queued', superseded: [] });
      expect((await b.jobByKey('octo/shop#8@b'))?.status).toBe('pending');
      // A later push names only the head it replaced.
      expect((await b.admit('d-push-2', 'pull_request', push(8, 'c', 'b'))).superseded).toEqual(['octo/shop#8@b']);
      expect((await b.jobByKey('octo/shop#8@a'))?.status).toBe('pending');
    });

    it('never runs two jobs of one lane side by side, even when many workers claim at once', async () => {
      const b = await backend();
      for (let pr = 1; pr <= 3; pr++) for (const sha of ['x', 'y']) await b.admit(`d-${pr}-${sha}`, 'pull_request', push(pr, sha));
      const running = new Map<string, number>();
      let overlaps = 0;
      const done: string[] = [];
      await Promise.all(
        Array.from({ length: 6 }, async (_, w) => {
          // Until all are done or a deadline, not a count of rounds: a loaded machine's claims are slow.
          const deadline = Date.now() + 30_000;
          while (done.length < 6 && Date.now() < deadline) {
            const job = await b.claim(`w${w}`, HOUR);
            if (!job) {
              await sleep(20);
              continue;
            }
            running.set(job.lane!, (running.get(job.lane!) ?? 0) + 1);
            if (running.get(job.lane!)! > 1) overlaps += 1;
            await sleep(30);
            running.set(job.lane!, running.get(job.lane!)! - 1);
            await b.complete(job.id, `w${w}`);
            done.push(job.key);
          }
        }),
      );
      expect(overlaps).toBe(0);
      expect(done.sort()).toEqual(['octo/shop#1@x', 'octo/shop#1@y', 'octo/shop#2@x', 'octo/shop#2@y', 'octo/shop#3@x', 'octo/shop#3@y']);
    });

    it("gives a job whose worker stopped heartbeating to another worker once the lease runs out, whoever's host it was on", async () => {
      const clock = manualClock();
      const b = await backend({ now: clock.now });
      await b.admit('d-1', 'pull_request', push(7, 'a'));
      const job = (await b.claim('other-host:4242:dead', 400))!;
      clock.advance(200);
      expect(await b.heartbeat(job.id, 'other-host:4242:dead', 400)).toBe(true);
      clock.advance(250);
      // Past the first lease, but the heartbeat kept it: nobody else may take it yet.
      expect(await b.claim('w2', 400)).toBeUndefined();
      clock.advance(300);
      const taken = await b.claim('w2', 400);
      expect(taken).toMatchObject({ id: job.id, owner: 'w2', attempts: 2 });
      // The stopped worker's late heartbeat or completion no longer counts.
      expect(await b.heartbeat(job.id, 'other-host:4242:dead', 400)).toBe(false);
      await b.complete(job.id, 'other-host:4242:dead');
      expect((await b.job(job.id))?.status).toBe('running');
      await b.complete(job.id, 'w2');
      expect((await b.job(job.id))?.status).toBe('done');
    });

    it('gives a job whose worker died on every attempt back once as a conclusion run, then fails it, saying why', async () => {
      const clock = manualClock();
      const b = await backend({ maxAttempts: 2, now: clock.now });
      await b.admit('d-1', 'pull_request', push(7, 'a'));
      const job = (await b.claim('w1', 50))!;
      expect(job.finalReason).toBeNull();
      clock.advance(80);
      expect((await b.claim('w2', 50))?.id).toBe(job.id);
      clock.advance(80);
      // Nobody said the job failed: one more claim, only to complete its check run with the reason.
      const conclusion = (await b.claim('w3', HOUR))!;
      expect(conclusion).toMatchObject({ id: job.id, finalReason: 'its worker stopped 2 time(s) before finishing' });
      expect(await b.fail(conclusion.id, 'w3', conclusion.finalReason!, { retryable: true })).toBe('failed');
      expect(await b.job(job.id)).toMatchObject({ status: 'failed', lastError: 'its worker stopped 2 time(s) before finishing' });
      expect(await b.claim('w4', 50)).toBeUndefined();
    });

    it('offers a conclusion run whose worker died again, a bounded number of times, then fails it saying no check run says why', async () => {
      const clock = manualClock();
      const b = await backend({ maxAttempts: 1, now: clock.now });
      await b.admit('d-1', 'pull_request', push(7, 'a'));
      await b.claim('w1', 1000);
      const reason = 'its worker stopped 1 time(s) before finishing';
      for (let run = 1; run <= MAX_CONCLUSION_RUNS; run++) {
        clock.advance(1001);
        // The previous worker (the review's, then each conclusion run's) died without a word.
        expect(await b.claim(`conclusion-${run}`, 1000)).toMatchObject({ key: 'octo/shop#7@a', finalReason: reason, conclusionStops: run - 1 });
      }
      clock.advance(1001);
      expect(await b.claim('w-last', 1000)).toBeUndefined();
      const failed = await b.jobByKey('octo/shop#7@a');
      expect(failed).toMatchObject({ status: 'failed', owner: null, conclusionStops: MAX_CONCLUSION_RUNS });
      expect(failed?.lastError).toBe(conclusionStoppedMessage(reason, MAX_CONCLUSION_RUNS));
      expect(failed?.lastError).toMatch(/^its worker stopped 1 time\(s\) before finishing; .*no check run says so.*re-run/);
      clock.advance(HOUR);
      expect(await b.claim('w-later', 1000)).toBeUndefined();
      expect(await b.counts()).toMatchObject({ failed: 1, pending: 0, running: 0 });
    });

    it("completes a conclusion run on a later offer when its first worker died, and a requeue starts its count afresh", async () => {
      const clock = manualClock();
      const b = await backend({ maxAttempts: 1, now: clock.now });
      await b.admit('d-1', 'pull_request', push(7, 'a'));
      await b.claim('w1', 1000);
      clock.advance(1001);
      expect((await b.claim('dies', 1000))?.finalReason).toMatch(/its worker stopped 1 time/);
      clock.advance(1001);
      const offered = (await b.claim('lives', 1000))!;
      expect(offered).toMatchObject({ key: 'octo/shop#7@a', conclusionStops: 1 });
      expect(await b.fail(offered.id, 'lives', offered.finalReason!, { retryable: false })).toBe('failed');
      expect(await b.jobByKey('octo/shop#7@a')).toMatchObject({ status: 'failed', lastError: 'its worker stopped 1 time(s) before finishing' });
      const again = await b.admit('d-2', 'pull_request', push(7, 'a'));
      expect(again).toMatchObject({ outcome: 'requeued', job: { status: 'pending', finalReason: null, conclusionStops: 0 } });
    });

    it('concludes a job failed once its overall time limit passes, running or waiting, and never retries it after', async () => {
      const clock = manualClock();
      const b = await backend({ jobTimeoutMs: 300, now: clock.now });
      await b.admit('d-1', 'pull_request', push(7, 'a'));
      await b.admit('d-2', 'pull_request', push(8, 'a'));
      await b.claim('w1', 100);
      clock.advance(350);
      const conclusions = [(await b.claim('w2', HOUR))!, (await b.claim('w2', HOUR))!];
      expect(conclusions.map((j) => j.key).sort()).toEqual(['octo/shop#7@a', 'octo/shop#8@a']);
      for (const j of conclusions) {
        expect(j.finalReason).toMatch(/did not finish within its time limit/);
        expect(await b.fail(j.id, 'w2', j.finalReason!, { retryable: true, retryInMs: 0 })).toBe('failed');
      }
      expect(await b.claim('w3', HOUR)).toBeUndefined();
      expect(await b.counts()).toMatchObject({ failed: 2, pending: 0, running: 0 });
      // A retry that would start after the deadline is not made.
      const c = await backend({ jobTimeoutMs: 1000, now: clock.now });
      await c.admit('d-9', 'pull_request', push(9, 'a'));
      const late = (await c.claim('w1', HOUR))!;
      expect(await c.fail(late.id, 'w1', 'GitHub 502', { retryable: true, retryInMs: 2000 })).toBe('failed');
    });

    it('keeps a job whose check run could not be completed as a conclusion run, claimed again after its delay', async () => {
      const clock = manualClock();
      const b = await backend({ now: clock.now });
      await b.admit('d-1', 'pull_request', push(9, 'a'));
      const job = (await b.claim('w1', HOUR))!;
      expect(await b.fail(job.id, 'w1', 'GitHub answered 502', { retryable: false, retryInMs: 200, concludeLater: 'the review failed: 502' })).toBe('pending');
      expect(await b.jobByKey('octo/shop#9@a')).toMatchObject({ status: 'pending', finalReason: 'the review failed: 502', lastError: 'GitHub answered 502' });
      expect(await b.claim('w2', HOUR)).toBeUndefined();
      clock.advance(199);
      expect(await b.claim('w2', HOUR)).toBeUndefined();
      clock.advance(1);
      expect(await b.claim('w2', HOUR)).toMatchObject({ key: 'octo/shop#9@a', finalReason: 'the review failed: 502' });
    });

    it('retries a retryable failure after its back-off (or the delay the error named), and fails a final one', async () => {
      const delays: number[] = [];
      const clock = manualClock();
      const b = await backend({ retryDelayMs: (attempt) => (delays.push(attempt), 250), now: clock.now });
      await b.admit('d-1', 'pull_request', push(7, 'a'));
      await b.admit('d-2', 'pull_request', push(8, 'a'));
      const flaky = (await b.claim('w1', HOUR))!;
      expect(await b.fail(flaky.id, 'w1', 'GitHub 502', { retryable: true })).toBe('pending');
      expect(delays).toEqual([1]);
      const other = (await b.claim('w1', HOUR))!;
      expect(other.key).toBe('octo/shop#8@a');
      expect(await b.fail(other.id, 'w1', 'secondary rate limit', { retryable: true, retryInMs: 600 })).toBe('pending');
      expect(await b.claim('w1', HOUR)).toBeUndefined();
      clock.advance(300);
      expect(await b.claim('w1', HOUR)).toMatchObject({ id: flaky.id, attempts: 2, lastError: 'GitHub 502' });
      expect(await b.claim('w1', HOUR)).toBeUndefined();
      clock.advance(350);
      expect((await b.claim('w1', HOUR))?.id).toBe(other.id);
      expect(await b.fail(other.id, 'w1', 'bad payload', { retryable: false })).toBe('failed');
      expect((await b.job(other.id))?.lastError).toBe('bad payload');
    });

    it("lets a newer head's job run while an older job of its pull request waits out a back-off, never side by side", async () => {
      const clock = manualClock();
      const b = await backend({ now: clock.now });
      // A re-run someone asked for met GitHub down: it waits ten minutes for its next try.
      await b.admit('d-1', 'issue_comment', rerun(7, 'd-1'));
      const waiting = (await b.claim('w1', HOUR))!;
      expect(await b.fail(waiting.id, 'w1', 'GitHub 502', { retryable: true, retryInMs: 600_000 })).toBe('pending');
      // The newer head's review is not held back by that wait (a re-run is not a push's review: not cancelled).
      expect(await b.admit('d-2', 'pull_request', push(7, 'b', 'a'))).toMatchObject({ outcome: 'queued', superseded: [] });
      const newer = (await b.claim('w2', HOUR))!;
      expect(newer).toMatchObject({ key: 'octo/shop#7@b', status: 'running' });
      // The back-off ends while the newer one runs: the lane stays the running job's.
      clock.advance(600_001);
      expect(await b.claim('w3', HOUR)).toBeUndefined();
      expect((await b.job(waiting.id))?.status).toBe('pending');
      await b.complete(newer.id, 'w2');
      expect(await b.claim('w3', HOUR)).toMatchObject({ id: waiting.id, attempts: 2, lastError: 'GitHub 502' });
    });

    it("cancels an older head's review waiting out a back-off when the newer push replaces that head", async () => {
      const clock = manualClock();
      const b = await backend({ now: clock.now });
      await b.admit('d-1', 'pull_request', push(7, 'a'));
      const older = (await b.claim('w1', HOUR))!;
      expect(await b.fail(older.id, 'w1', 'GitHub 502', { retryable: true, retryInMs: 600_000 })).toBe('pending');
      expect(await b.admit('d-2', 'pull_request', push(7, 'b', 'a'))).toMatchObject({ outcome: 'queued', superseded: ['octo/shop#7@a'] });
      expect(await b.job(older.id)).toMatchObject({ status: 'cancelled', lastError: 'superseded by octo/shop#7@b' });
      expect(await b.claim('w2', HOUR)).toMatchObject({ key: 'octo/shop#7@b' });
      clock.advance(600_001);
      expect(await b.claim('w3', HOUR)).toBeUndefined();
    });

    it('keeps a lane whose only jobs wait out back-offs for the one whose wait ends first', async () => {
      const clock = manualClock();
      const b = await backend({ now: clock.now });
      await b.admit('d-1', 'issue_comment', rerun(7, 'd-1'));
      await b.admit('d-2', 'issue_comment', rerun(7, 'd-2'));
      const long = (await b.claim('w1', HOUR))!;
      expect(await b.fail(long.id, 'w1', 'GitHub 502', { retryable: true, retryInMs: 600_000 })).toBe('pending');
      const short = (await b.claim('w1', HOUR))!;
      expect(short.key).toBe('octo/shop#7!d-2');
      expect(await b.fail(short.id, 'w1', 'GitHub 502', { retryable: true, retryInMs: 60_000 })).toBe('pending');
      expect(await b.claim('w2', HOUR)).toBeUndefined();
      clock.advance(60_001);
      expect(await b.claim('w2', HOUR)).toMatchObject({ id: short.id, attempts: 2 });
    });

    it('gives up after maxAttempts retryable failures', async () => {
      const clock = manualClock();
      const b = await backend({ maxAttempts: 2, retryDelayMs: () => 0, now: clock.now });
      await b.admit('d-1', 'pull_request', push(7, 'a'));
      let job = (await b.claim('w1', HOUR))!;
      expect(await b.fail(job.id, 'w1', 'GitHub 502', { retryable: true })).toBe('pending');
      clock.advance(20);
      job = (await b.claim('w1', HOUR))!;
      expect(await b.fail(job.id, 'w1', 'GitHub 502', { retryable: true })).toBe('failed');
    });

    it('queues a failed head again when asked (reopened, re-run), while a done one stays done', async () => {
      const b = await backend({ retryDelayMs: () => 0 });
      await b.admit('d-1', 'pull_request', push(7, 'a'));
      const job = (await b.claim('w1', HOUR))!;
      await b.setCheckRun(job.id, 904);
      await b.fail(job.id, 'w1', 'GitHub 502', { retryable: false });
      const again = await b.admit('d-2', 'pull_request', push(7, 'a'));
      expect(again.outcome).toBe('requeued');
      expect(again.job).toMatchObject({ status: 'pending', attempts: 0, lastError: null, deliveryId: 'd-2', checkRunId: 904 });
      const retaken = (await b.claim('w2', HOUR))!;
      expect(retaken.id).toBe(job.id);
      await b.complete(retaken.id, 'w2');
      expect((await b.admit('d-3', 'pull_request', push(7, 'a'))).outcome).toBe('exists');
    });

    it('hands a job back at once on a graceful stop, the attempt not counted', async () => {
      const b = await backend();
      await b.admit('d-1', 'pull_request', push(7, 'a'));
      const job = (await b.claim('w1', 60_000))!;
      await b.release(job.id, 'w1');
      expect(await b.claim('w2', 60_000)).toMatchObject({ id: job.id, owner: 'w2', attempts: 1 });
    });

    it('lets two connections claim each job once', async () => {
      const b = await backend();
      const c = await backend();
      for (let i = 0; i < 12; i++) await b.admit(`d-${i}`, 'pull_request', push(i, 'a'));
      const claimed = (await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? b : c).claim(`w${i}`, 60_000)))).flatMap((j) => (j ? [j.key] : []));
      expect(claimed).toHaveLength(12);
      expect(new Set(claimed).size).toBe(12);
    });

    it('rate-limits the reviews one installation queues in an hour', async () => {
      const b = await backend();
      const limit = (installationId: number) => ({ installationId, perHour: 2 });
      expect((await b.admit('d1', 'pull_request', push(1, 'a', undefined, 7), limit(7))).outcome).toBe('queued');
      expect((await b.admit('d2', 'pull_request', push(2, 'a', undefined, 7), limit(7))).outcome).toBe('queued');
      expect((await b.admit('d3', 'pull_request', push(3, 'a', undefined, 7), limit(7))).outcome).toBe('rate-limited');
      expect((await b.admit('d4', 'pull_request', push(4, 'a', undefined, 8), limit(8))).outcome).toBe('queued');
      expect((await b.admit('d5', 'pull_request', push(1, 'a', undefined, 7), limit(7))).outcome).toBe('exists');
    });

    it('keeps fingerprints, check runs and counts, and answers ping', async () => {
      const b = await backend();
      await b.fingerprints.record('octo/shop', 7, 'abc', ['fp-1', 'fp-2']);
      await b.fingerprints.record('octo/shop', 7, 'def', ['fp-2', 'fp-3']);
      expect([...(await b.fingerprints.posted('octo/shop', 7))].sort()).toEqual(['fp-1', 'fp-2', 'fp-3']);
      expect((await b.fingerprints.posted('octo/shop', 8)).size).toBe(0);
      const { job } = await b.admit('d-1', 'pull_request', push(7, 'a'));
      await b.setCheckRun(job!.id, 900);
      expect((await b.jobByKey('octo/shop#7@a'))?.checkRunId).toBe(900);
      expect(await b.counts()).toEqual({ pending: 1, running: 0, done: 0, failed: 0, cancelled: 0 });
      await expect(b.ping()).resolves.toBeUndefined();
    });

    it("keeps each tenant's cache apart and across jobs", async () => {
      const b = await backend();
      const evil = await b.cacheFor('7/evil/repo');
      evil.store.set('verdict:same\0scenario', '{"planted":true}');
      evil.store.set('verdict:é', 'ünïcode');
      await evil.flush();
      const victim = await b.cacheFor('8/octo/shop');
      expect(victim.store.get('verdict:same\0scenario')).toBeUndefined();
      // A scope cannot be forged from the key side.
      expect((await b.cacheFor('7/evil')).store.get('repo"\0verdict:same\0scenario')).toBeUndefined();
      const again = await b.cacheFor('7/evil/repo');
      expect(again.store.get('verdict:same\0scenario')).toBe('{"planted":true}');
      expect(again.store.get('verdict:é')).toBe('ünïcode');
      again.store.set('verdict:é', 'updated');
      await again.flush();
      expect((await b.cacheFor('7/evil/repo')).store.get('verdict:é')).toBe('updated');
    });

    it('forgets old deliveries and finished jobs, and keeps pending ones', async () => {
      const clock = manualClock();
      const b = await backend({ now: clock.now });
      await b.admit('old', 'pull_request', push(7, 'a'));
      const done = (await b.claim('w', HOUR))!;
      await b.complete(done.id, 'w');
      await b.admit('new', 'pull_request', push(8, 'a'));
      clock.advance(30);
      await b.prune(10);
      expect((await b.admit('old', 'pull_request')).outcome).toBe('ignored');
      expect((await b.jobs()).map((j) => j.key)).toEqual(['octo/shop#8@a']);
    });
  });
}
