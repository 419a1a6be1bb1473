// The README's main job, end to end: examples/shop's change reviewed from a real git
// history with the real harness, the rendered review snapshot-tested, and a second
// review of the same head served from the verdict cache without running the harness.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExampleRepository } from '../../../scripts/example.ts';
import { DEFAULT_CONFIG } from '../../../src/core/config/schema.ts';
import { runScenarioFiles } from '../../../src/adapters/harness/campaign.ts';
import type { HarnessRunner } from '../../../src/core/ports.ts';
import { silentLogger } from '../../../src/core/ports.ts';
import type { Review } from '../../../src/core/model/review.ts';
import { reviewPullRequest } from '../../../src/core/review/review.ts';
import { memoryStore } from '../../../src/core/review/verdict-cache.ts';
import { gitSource } from '../../../src/adapters/cli/git-source.ts';
import { formatReview } from '../../../src/adapters/cli/commands/review.ts';
import { harnessOptions } from '../../core/crash/helpers.ts';

describe('reviewing examples/shop', () => {
  let dir: string;
  let first: Review;
  let second: Review;
  let harnessCalls = 0;
  let harnessCallsOfFirst = 0;
  beforeAll(async () => {
    dir = await buildExampleRepository();
    const options = await harnessOptions();
    const harness: HarnessRunner = {
      run: (files) => {
        harnessCalls += 1;
        return runScenarioFiles(files, options);
      },
    };
    const store = memoryStore();
    const review = async () => {
      const source = gitSource({ top: dir, base: 'main', head: 'HEAD' });
      try {
        return await reviewPullRequest(source, DEFAULT_CONFIG, { harness, store, logger: silentLogger });
      } finally {
        await source.dispose();
      }
    };
    first = await review();
    harnessCallsOfFirst = harnessCalls;
    second = await review();
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('classifies the three touched writers as the example intends', () => {
    const classes = Object.fromEntries(first.functions.map((f) => [`${f.path}:${f.qualname}`, f.class]));
    expect(classes).toEqual({
      'shop/billing.py:mark_paid': 'unsafe',
      'shop/refunds.py:refund_order': 'safe_by_accident',
      'shop/wallet.py:transfer': 'safe_by_design',
    });
    expect(first.conclusion).toBe('failure');
    expect(first.counts).toMatchObject({ unsafe: 1, safe_by_accident: 1, safe_by_design: 1 });
  });

  it('shows the worst crash scenario as a before / after-crash / after-re-run table', () => {
    expect(first.summary).toContain('### Worst crash scenario: `shop/billing.py:mark_paid`');
    expect(first.summary).toContain('| emails sent | 0 | 1 | 2 | 1 |');
    expect(first.summary).toContain('the email goes out twice');
  });

  it('anchors every inline comment on a line of the diff with a fingerprint, and leaves the hidden markers to the GitHub publisher', () => {
    expect(first.comments.length).toBeGreaterThan(0);
    for (const comment of first.comments) {
      expect(comment.fingerprint).toMatch(/^[\w:-]+$/);
      expect(comment.body).not.toContain('<!--');
    }
    expect(first.summary).not.toContain('<!--');
  });

  it('offers a one-click suggestion that, applied to the commented lines, gives the crash-tested repair', () => {
    const suggested = first.comments.filter((c) => c.body.includes('```suggestion\n'));
    expect(suggested.map((c) => c.path)).toEqual(['shop/refunds.py']);
    for (const comment of suggested) {
      // GitHub replaces exactly the commented lines (startLine..line) with the block.
      const block = /```suggestion\n([\s\S]*?)\n```/.exec(comment.body)![1]!;
      const lines = readFileSync(path.join(dir, comment.path), 'utf8').split('\n');
      const from = comment.startLine ?? comment.line;
      const applied = [...lines.slice(0, from - 1), ...block.split('\n'), ...lines.slice(comment.line)].join('\n');
      const repair = first.repairs?.find((r) => r.path === comment.path);
      expect(repair).toBeDefined();
      expect(applied).toBe(repair!.source);
    }
  });

  it('posts the double-apply of transfer inline because its scenario says idempotent=True', () => {
    const wallet = first.comments.filter((c) => c.path === 'shop/wallet.py');
    expect(wallet.map((c) => c.body.split('\n')[0])).toEqual(['**Double-applies** · `crash/safe_by_design`']);
    // The verdict cache keeps the option: the review served from it posts the same comment.
    expect(second.comments.filter((c) => c.path === 'shop/wallet.py').map((c) => c.body)).toEqual(wallet.map((c) => c.body));
  });

  it('renders the same review every time (snapshot)', () => {
    expect(first.summary).toMatchSnapshot('summary');
    expect(first.comments.map((c) => ({ path: c.path, startLine: c.startLine, line: c.line, body: c.body }))).toMatchSnapshot('comments');
  });

  it('renders as SARIF 2.1.0 with stable fingerprints', () => {
    const sarif = JSON.parse(formatReview(first, 'sarif')) as { version: string; runs: { results: { partialFingerprints: Record<string, string> }[] }[] };
    expect(sarif.version).toBe('2.1.0');
    const fingerprints = sarif.runs[0]!.results.map((r) => r.partialFingerprints['crashprobe/v1']);
    expect(fingerprints.sort()).toEqual(first.findings.map((f) => f.fingerprint).sort());
  });

  it('serves a second review of the same head from the cache, without the harness', () => {
    // The first review runs the scenarios once and crash-tests each repair candidate; the second runs nothing.
    expect(harnessCalls).toBe(harnessCallsOfFirst);
    expect(second.functions.map((f) => [f.qualname, f.class, f.cached])).toEqual(first.functions.map((f) => [f.qualname, f.class, true]));
  });
});
