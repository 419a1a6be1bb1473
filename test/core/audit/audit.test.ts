// The audit run with a scripted LLM: answers validated (bad findings dropped with
// the reason, never fatal), repeated runs merged with recurrence, min_recurrence,
// the budget that stops passes and says so, the context document stored and
// reused, and findings matched to a failing crash scenario.
import { describe, expect, it } from 'vitest';
import { runAudit } from '../../../src/core/audit/audit.ts';
import { contextDocument, deterministicContext, gatherContextSources, treeDrift } from '../../../src/core/audit/context.ts';
import { validateFindings, type LlmFinding } from '../../../src/core/audit/findings.ts';
import { limitedClient } from '../../../src/core/audit/llm/wrappers.ts';
import { planPasses } from '../../../src/core/audit/planner.ts';
import { auditChange, matchToCrashScenarios, toReviewFinding } from '../../../src/core/audit/review-audit.ts';
import { DEFAULT_CONFIG } from '../../../src/core/config/schema.ts';
import type { LlmClient, LlmRequest, Logger } from '../../../src/core/ports.ts';
import { silentLogger } from '../../../src/core/ports.ts';
import { buildRepoIndex } from '../../../src/core/python/callgraph.ts';
import { parseModule } from '../../../src/core/python/parse.ts';
import type { FunctionVerdict, ReviewFinding } from '../../../src/core/model/review.ts';
import { memoryStore } from '../../../src/core/review/verdict-cache.ts';

const BILLING = [
  'def mark_paid(conn, mailer, order_id):',
  '    email, status = conn.execute("SELECT email, status FROM orders WHERE id = ?", (order_id,)).fetchone()',
  '    if status != "pending":',
  '        return',
  '    mailer.send(email, "Receipt", "Thanks")',
  '    conn.execute("UPDATE orders SET status = \'paid\' WHERE id = ?", (order_id,))',
  '    conn.commit()',
  '',
].join('\n');
const modules = [parseModule('shop/billing.py', BILLING), parseModule('shop/service.py', 'from shop.billing import mark_paid\n\ndef handle(conn, mailer, order_id):\n    mark_paid(conn, mailer, order_id)\n')];
const index = buildRepoIndex(modules);

const finding = (over: Partial<LlmFinding> = {}): LlmFinding => ({
  title: 'Receipt emailed before the payment is recorded',
  description: 'The receipt is sent before the status update commits; a crash between them makes the retry send it again.',
  file: 'shop/billing.py',
  start_line: 5,
  end_line: 7,
  function: 'mark_paid',
  category: 'effect-before-record',
  severity: 'high',
  confidence: 0.8,
  trigger: 'crash after mailer.send, then re-run',
  suggested_fix: 'Record the payment and an outbox row in one transaction; send from the outbox.',
  ...over,
});

function scripted(answers: (request: LlmRequest, call: number) => unknown, usage = { input: 1000, output: 200 }): LlmClient & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    model: 'scripted',
    requests,
    complete: async (request) => {
      requests.push(request);
      const answer = answers(request, requests.length - 1);
      return { text: typeof answer === 'string' ? answer : JSON.stringify(answer), inputTokens: usage.input, outputTokens: usage.output };
    },
  };
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => {}, warn: (m) => void warnings.push(m), error: (m) => void warnings.push(m) };
}

const OPTIONS = { runs: 1, minRecurrence: 1, budget: { tokens: 1_000_000 } };

describe('validateFindings', () => {
  const targets = new Map([['shop/billing.py', BILLING.split('\n')]]);
  it('keeps a finding on real lines of a target and attaches the cited code', () => {
    const { findings, dropped } = validateFindings(JSON.stringify({ findings: [finding()] }), targets, { run: 0, passId: 'P001' });
    expect(dropped).toEqual([]);
    expect(findings[0]!.snippet).toContain('mailer.send');
  });

  it('drops, with the reason, a finding in another file, on lines past the end, or breaking the schema', () => {
    const answer = { findings: [finding({ file: 'shop/other.py' }), finding({ start_line: 7, end_line: 40 }), { ...finding(), severity: 'catastrophic' }, { title: 'x' }] };
    const { findings, dropped } = validateFindings(JSON.stringify(answer), targets, { run: 0, passId: 'P001' });
    expect(findings).toEqual([]);
    expect(dropped.map((d) => d.reason)).toEqual([
      'names shop/other.py, which is not a target of this pass',
      'lines 7-40 do not exist in shop/billing.py (8 lines)',
      expect.stringMatching(/^breaks the schema at severity/),
      expect.stringMatching(/^breaks the schema at title/),
    ]);
  });

  it('reads JSON out of a fence or prose, and reports an answer that is not JSON', () => {
    expect(validateFindings('Here you go:\n```json\n{"findings": []}\n```', targets, { run: 0, passId: 'P1' })).toEqual({ findings: [], dropped: [] });
    expect(validateFindings('no bugs!', targets, { run: 0, passId: 'P1' }).dropped[0]!.reason).toMatch(/^answer is not JSON/);
  });
});

describe('runAudit', () => {
  const plan = planPasses(index, ['shop/billing.py', 'shop/service.py'], { ownPassScore: 1e9 });

  it('sends each pass its targets with line numbers, partners and the schema, and survives a malformed answer', async () => {
    const llm = scripted(() => ({ findings: [finding(), finding({ file: 'nowhere.py' })] }));
    const logger = recordingLogger();
    const result = await runAudit(plan, index, 'CONTEXT DOC', new Map([['shop/billing.py', [5]]]), OPTIONS, { llm, logger });
    expect(llm.requests).toHaveLength(1);
    const prompt = llm.requests[0]!.messages[0]!.content;
    expect(prompt).toContain('CONTEXT DOC');
    expect(prompt).toContain('5 |     mailer.send(email, "Receipt", "Thanks")');
    expect(prompt).toContain('- shop/billing.py: lines 5');
    expect(llm.requests[0]!.jsonSchema?.name).toBe('audit_findings');
    expect(result.findings.map((f) => f.title)).toEqual(['Receipt emailed before the payment is recorded']);
    expect(logger.warnings).toEqual([expect.stringContaining('names nowhere.py')]);
    expect(result.notes).toContain('1 audit finding(s) were dropped as malformed or naming code that does not exist.');
  });

  it('runs the plan k times with distinct requests, merges duplicates across runs and keeps recurrence as confidence', async () => {
    // Run 1 and 3 find the receipt bug (worded differently), run 2 finds only a one-off.
    const llm = scripted((request) => {
      const run = Number(/run (\d) of/.exec(request.system ?? '')?.[1]);
      if (request.messages[0]!.content.includes('You judge whether pairs')) return { verdicts: [{ pair: 1, same_bug: true, reason: 'same' }] };
      if (run === 2) return { findings: [finding({ title: 'Status not checked for None', category: 'crash', start_line: 2, end_line: 2, description: 'fetchone() may return None and unpacking it raises TypeError.', trigger: 'unknown id' })] };
      return { findings: [run === 1 ? finding() : finding({ title: 'Duplicate receipt on retry', description: 'Retrying after a crash sends the email twice since status is still pending.', category: 'double-apply' })] };
    });
    const result = await runAudit(plan, index, 'ctx', new Map(), { ...OPTIONS, runs: 3, minRecurrence: 2 }, { llm, logger: silentLogger });
    expect(new Set(llm.requests.filter((r) => r.system).map((r) => r.system)).size).toBe(3);
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({ recurrence: 2, runs: 3, members: 2, title: 'Receipt emailed before the payment is recorded' });
    expect(result.belowRecurrence).toBe(1);
    expect(result.notes.join('\n')).toContain('fewer than 2 of 3 runs');
  });

  it('stops planning passes the token budget cannot pay for, and says which files were left out', async () => {
    const two = planPasses(index, ['shop/billing.py', 'shop/service.py'], { ownPassScore: 1e9, tokenBudget: 60 });
    expect(two.passes).toHaveLength(2);
    const llm = scripted(() => ({ findings: [] }));
    const oneFits = two.passes[0]!.tokens + 1200 + 1500 + 10;
    const result = await runAudit(two, index, '', new Map(), { ...OPTIONS, budget: { tokens: oneFits } }, { llm, logger: silentLogger });
    expect(llm.requests).toHaveLength(1);
    expect(result.skippedPasses).toEqual(['P002']);
    expect(result.notes[0]).toMatch(/allowed 1 of 2 pass\(es\).*not audited: shop\/service\.py\. Raise audit\.token_budget/);
  });

  it('a failing pass is a note, not a failed review', async () => {
    const llm: LlmClient = { model: 'down', complete: async () => Promise.reject(new Error('http://x answered 500: boom (gave up after 5 attempts)')) };
    const result = await runAudit(plan, index, '', new Map(), OPTIONS, { llm, logger: silentLogger });
    expect(result.findings).toEqual([]);
    expect(result.notes[0]).toMatch(/Audit pass P001 \(run 1\) failed: .*500: boom/);
  });
});

describe('context document', () => {
  const files = ['README.md', 'pyproject.toml', 'shop/billing.py', 'shop/service.py'];
  const read = async (p: string) => ({ 'README.md': '# Shop\n\nA small shop backend: orders, refunds and a wallet, on sqlite3.\n', 'pyproject.toml': '[project]\nname = "shop"\n\n[project.scripts]\nshop = "shop.cli:main"\n' })[p];

  it('is assembled deterministically without an LLM, from README, manifests, entry points and tree', async () => {
    const sources = await gatherContextSources('acme/shop', files, read, index);
    const text = deterministicContext(sources);
    expect(text).toContain('A small shop backend');
    expect(text).toContain('shop = "shop.cli:main" (console script)');
    expect(text).toContain('shop: 2 Python file(s)');
    expect(deterministicContext(await gatherContextSources('acme/shop', [...files].reverse(), read, index))).toBe(text);
  });

  it('is written once by the LLM, stored, and reused until the tree drifts past the limit', async () => {
    const store = memoryStore();
    const llm = scripted(() => '## Purpose\nA shop backend written by the LLM, with enough words.');
    const sources = await gatherContextSources('acme/shop', files, read, index);
    const first = await contextDocument(sources, { store, llm, logger: silentLogger });
    const again = await contextDocument(sources, { store, llm, logger: silentLogger });
    expect([first.reused, again.reused, llm.requests.length]).toEqual([false, true, 1]);
    expect(llm.requests[0]!.messages[0]!.content).toContain('Intentional deviations');
    const moved = { ...sources, tree: [...sources.tree, 'a.py', 'b.py', 'c.py'] };
    expect(treeDrift(sources.tree, moved.tree)).toBeGreaterThan(0.2);
    expect((await contextDocument(moved, { store, llm, logger: silentLogger })).reused).toBe(false);
  });
});

describe('in the review', () => {
  it('audits the changed files, notes tokens and cost, and shows a finding with the crash scenario of its function', async () => {
    const llm = scripted((request) => (request.jsonSchema ? { findings: [finding()] } : 'A shop backend, written by the LLM for the audit passes.'));
    const worst = { scenario: 'receipt', mode: 'default', crash: 'soft', outcome: 'double-applied' } as unknown as FunctionVerdict['worst'];
    const verdict: FunctionVerdict = {
      path: 'shop/billing.py', qualname: 'mark_paid', range: { startLine: 1, startColumn: 0, endLine: 7, endColumn: 0 }, txStyle: 'none', effects: [],
      class: 'unsafe', worst, scenariosRun: 4, findingIds: [],
    };
    const source = { repository: 'acme/shop', listFiles: async () => ['shop/billing.py', 'shop/service.py'], readFile: async () => undefined };
    const change = { path: 'shop/billing.py', status: 'modified' as const, addedLines: [5], removalAnchors: [], hunkLines: new Set([3, 4, 5, 6, 7]) };
    const result = await auditChange({ source, audit: DEFAULT_CONFIG.audit, index, changes: [change], functions: [verdict], existing: [] }, { llm, store: memoryStore(), logger: silentLogger });
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({ source: 'audit', ruleId: 'audit/effect-before-record', severity: 'error', confirmedBy: worst, function: 'mark_paid' });
    expect(result.findings[0]!.message).toContain('**Crash-tested:**');
    expect(result.notes.at(-1)).toBe('LLM audit with scripted: 2 call(s), 2,000 input and 400 output tokens, cost unknown (no price for this model or server).');
  });

  it('folds an audit finding the judge matches to a static finding into it, instead of repeating it', async () => {
    const llm = scripted((request) => {
      const prompt = request.messages[0]!.content;
      if (prompt.includes('You judge whether pairs')) return { verdicts: [{ pair: 1, same_bug: true, reason: 'both: the email goes out before the record' }] };
      return request.jsonSchema ? { findings: [finding()] } : 'A shop backend, written by the LLM for the audit passes.';
    });
    const staticFinding: ReviewFinding = {
      fingerprint: 'static-1', ruleId: 'send-before-record', source: 'static', severity: 'error', path: 'shop/billing.py', function: 'mark_paid',
      range: { startLine: 5, startColumn: 4, endLine: 5, endColumn: 40 }, title: 'Outside effect before the record', message: 'mailer.send runs before the write that records it.',
    };
    const source = { repository: 'acme/shop', listFiles: async () => ['shop/billing.py'], readFile: async () => undefined };
    const change = { path: 'shop/billing.py', status: 'modified' as const, addedLines: [5], removalAnchors: [], hunkLines: new Set([5]) };
    const result = await auditChange({ source, audit: DEFAULT_CONFIG.audit, index, changes: [change], functions: [], existing: [staticFinding] }, { llm, store: memoryStore(), logger: silentLogger });
    expect(result.findings.map((f) => [f.fingerprint, f.source])).toEqual([['static-1', 'static']]);
    expect(result.findings[0]!.message).toBe('mailer.send runs before the write that records it. **The LLM audit agrees:** Receipt emailed before the payment is recorded.');
    expect(result.notes).toContain('1 audit finding(s) matched a static or crash finding and are shown with it.');
  });

  it('keeps the fingerprint when the code moves down the file', () => {
    const base = { ...finding(), run: 0, passId: 'P1', snippet: '    mailer.send(email)', recurrence: 1, runs: 1, members: 1 };
    expect(toReviewFinding(base).fingerprint).toBe(toReviewFinding({ ...base, start_line: 25, end_line: 27 }).fingerprint);
    expect(matchToCrashScenarios([toReviewFinding(base)], [])[0]!.confirmedBy).toBeUndefined();
  });
});

describe('limitedClient', () => {
  it('keeps at most the limit in flight', async () => {
    let active = 0;
    let peak = 0;
    const slow: LlmClient = {
      model: 'slow',
      complete: async () => {
        peak = Math.max(peak, ++active);
        await new Promise((r) => setTimeout(r, 5));
        active -= 1;
        return { text: '', inputTokens: 0, outputTokens: 0 };
      },
    };
    const limited = limitedClient(slow, 2);
    await Promise.all(Array.from({ length: 7 }, () => limited.complete({ messages: [] })));
    expect(peak).toBe(2);
  });
});
