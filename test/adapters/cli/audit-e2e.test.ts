// The audit end to end through the CLI: `crashprobe review` on examples/shop's
// change, with OPENAI_BASE_URL pointing at a fake OpenAI-compatible server on
// 127.0.0.1 (node:http), the real crash harness, and then `crashprobe eval-audit`
// on the shipped reference set.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExampleRepository } from '../../../scripts/example.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const KEY = 'sk-fake-e2e-KEY-4242';

interface Seen {
  authorization?: string;
  body: { model: string; messages: { role: string; content: string }[]; response_format?: { type: string; json_schema?: { name: string } } };
}

function completion(content: string) {
  return JSON.stringify({
    id: 'chatcmpl-e2e',
    object: 'chat.completion',
    created: 1,
    model: 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
  });
}

/** Answers as a model would: a context document, or findings for the billing pass (one of them bogus). */
function answer(seen: Seen): string {
  const prompt = seen.body.messages.map((m) => m.content).join('\n');
  if (seen.body.response_format?.json_schema?.name === 'duplicate_verdicts') {
    // The judge keeps the audit finding apart from the static one, so both show.
    const pairs = prompt.match(/### Pair \d+/g) ?? [];
    return JSON.stringify({ verdicts: pairs.map((_, i) => ({ pair: i + 1, same_bug: false, reason: 'different emphasis' })) });
  }
  if (seen.body.response_format?.json_schema?.name !== 'audit_findings') return '## Purpose\nA shop backend: orders, refunds, a wallet, on sqlite3.';
  if (!prompt.includes('### shop/billing.py')) return JSON.stringify({ findings: [] });
  return JSON.stringify({
    findings: [
      {
        title: 'Receipt emailed before the payment is recorded',
        description: 'mark_paid sends the receipt before the UPDATE commits; a crash between them leaves the order pending and the retry emails the customer again.',
        file: 'shop/billing.py',
        start_line: 8,
        end_line: 10,
        function: 'mark_paid',
        category: 'effect-before-record',
        severity: 'high',
        confidence: 0.85,
        trigger: 'kill the worker after mailer.send returns, then re-run mark_paid',
        suggested_fix: 'Record the payment and an outbox row in one transaction; send the receipt from the outbox with an idempotency key.',
      },
      { title: 'Imaginary bug', description: 'A bug in a file that does not exist at all.', file: 'shop/ghost.py', start_line: 1, end_line: 2, function: '', category: 'crash', severity: 'low', confidence: 0.2, trigger: 'never', suggested_fix: '' },
    ],
  });
}

async function readBody(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text;
}

describe('crashprobe review with an OpenAI-compatible server', () => {
  let dir: string;
  let server: Server;
  let baseUrl: string;
  const seen: Seen[] = [];
  let first: { stdout: string; stderr: string; exitCode?: number };
  let second: { stdout: string; stderr: string };

  beforeAll(async () => {
    let failedOnce = false;
    server = createServer(async (request, response) => {
      const entry: Seen = { authorization: request.headers.authorization, body: JSON.parse(await readBody(request)) };
      seen.push(entry);
      if (!failedOnce) {
        // The first call meets a rate limit, as busy servers answer.
        failedOnce = true;
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
        response.end(JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests' } }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(completion(answer(entry)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
    dir = await buildExampleRepository();
    const env = { OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: KEY, CRASHPROBE_MODEL: 'fake-model', ANTHROPIC_API_KEY: '' };
    const run = () => execa('node', [path.join(root, 'bin/crashprobe.js'), 'review', '--base', 'main', '--head', 'HEAD', '--format', 'markdown'], { cwd: dir, env, reject: false });
    first = await run();
    const callsAfterFirst = seen.length;
    second = await run();
    (second as { calls?: number }).calls = seen.length - callsAfterFirst;
  }, 180_000);
  afterAll(() => {
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reviews the change and fails it as before (the example is meant to fail)', () => {
    expect(first.stderr).not.toMatch(/TypeError|at .*\.ts:\d+/);
    expect(first.exitCode).toBe(1);
  });

  it('sends the key as a bearer token, asks for structured output, and never prints the key', () => {
    expect(seen.every((s) => s.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(seen.some((s) => s.body.response_format?.type === 'json_schema')).toBe(true);
    expect(seen.every((s) => s.body.model === 'fake-model')).toBe(true);
    expect(first.stdout + first.stderr).not.toContain(KEY);
  });

  it('plans the changed files as targets: each audit prompt carries target code with line numbers', () => {
    const audits = seen.filter((s) => s.body.response_format?.json_schema?.name === 'audit_findings');
    const prompts = audits.map((s) => s.body.messages.at(-1)!.content);
    expect(prompts.some((p) => p.includes(' 8 |     mailer.send('))).toBe(true);
    for (const file of ['shop/billing.py', 'shop/refunds.py', 'shop/wallet.py']) expect(prompts.some((p) => p.includes(`### ${file}`))).toBe(true);
  });

  it('shows the audit finding with the crash scenario of its function, drops the bogus one with the reason', () => {
    expect(first.stdout).toContain('Receipt emailed before the payment is recorded');
    expect(first.stdout).toContain('audit/effect-before-record');
    expect(first.stdout).toMatch(/\*\*Crash-tested:\*\* a crash scenario of `mark_paid` fails/);
    expect(first.stdout).not.toContain('Imaginary bug');
    expect(first.stderr).toContain('names shop/ghost.py, which is not a target of this pass');
  });

  it('asks the judge whether the audit finding repeats a static finding of the same function', () => {
    const judged = seen.filter((s) => s.body.response_format?.json_schema?.name === 'duplicate_verdicts');
    expect(judged.length).toBeGreaterThan(0);
    expect(judged[0]!.body.messages.at(-1)!.content).toContain('shop/billing.py');
  });

  it('puts the plan and the token accounting in the summary, and no longer says no LLM is configured', () => {
    expect(first.stdout).toMatch(/LLM audit: \d+ pass\(es\) over 3 file\(s\)/);
    expect(first.stdout).toMatch(/LLM audit with fake-model: \d+ call\(s\), [\d,]+ input and [\d,]+ output tokens, cost unknown/);
    expect(first.stdout).not.toContain('No LLM is configured');
  });

  it('answers a second review of the same head from the response cache', () => {
    expect((second as { calls?: number }).calls).toBe(0);
    expect(second.stdout).toMatch(/answered from the cache/);
    expect(second.stdout).toContain('Receipt emailed before the payment is recorded');
  });
});

describe('crashprobe eval-audit', () => {
  it('scores the shipped example findings against the shop reference bugs', async () => {
    const { stdout } = await execa('node', [path.join(root, 'bin/crashprobe.js'), 'eval-audit', '--reference', 'examples/shop/audit/bugs.json', '--findings', 'examples/shop/audit/findings.json', '--no-judge'], { cwd: root });
    expect(stdout).toContain('recall     75.0%  (3 of 4 bugs found)');
    expect(stdout).toContain('precision  75.0%  (3 of 4 findings match a bug)');
    expect(stdout).toContain('missed SHOP-3');
  });

  it('says which field of a broken reference file to fix', async () => {
    const result = await execa('node', [path.join(root, 'bin/crashprobe.js'), 'eval-audit', '--reference', 'examples/shop/audit/findings.json', '--findings', 'examples/shop/audit/findings.json'], { cwd: root, reject: false });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/not a valid reference file at bugs: Required/);
  });
});
