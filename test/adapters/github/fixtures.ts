// A fixed Review and the pull-request files it was made from, for the GitHub adapter's tests.
import { ProbotOctokit } from 'probot';
import type { ChangedFile } from '../../../src/core/ports.ts';
import type { InlineComment, Review, ReviewFinding } from '../../../src/core/model/review.ts';

export const HEAD = 'abc1234567890abc1234567890abc1234567890a';
export const BASE = 'bbb1234567890abc1234567890abc1234567890b';
export const API = 'https://api.github.com';
export const PR = { owner: 'octo', repo: 'shop', number: 7 };

/** Octokit as Probot builds it, with retry and throttling off so a test sees each request once. */
export function testOctokit(): InstanceType<typeof ProbotOctokit> {
  return new ProbotOctokit({ auth: { token: 'test-token' }, retry: { enabled: false }, throttle: { enabled: false } });
}

export const ORDERS_PATCH = [
  '@@ -1,4 +1,6 @@',
  ' def refund(conn, order_id):',
  '-    conn.execute("UPDATE orders SET refunded = 1 WHERE id = ?", (order_id,))',
  '+    conn.execute("INSERT INTO refunds (order_id) VALUES (?)", (order_id,))',
  '+    send_email(order_id)',
  '+    conn.execute("UPDATE orders SET refunded = 1 WHERE id = ?", (order_id,))',
  '     conn.commit()',
  ' ',
].join('\n');

export const FILES: ChangedFile[] = [{ path: 'shop/orders.py', status: 'modified', patch: ORDERS_PATCH }];

export function comment(fingerprint: string, line: number, severity: InlineComment['severity'] = 'error', path = 'shop/orders.py'): InlineComment {
  return {
    path,
    line,
    severity,
    fingerprint,
    body: `**Sends before it records** · \`send-before-record\`\n\nThe e-mail goes out before the refund is committed.\n<!-- crashprobe:fp=${fingerprint} -->\n`,
  };
}

export function finding(fingerprint: string, line: number): ReviewFinding {
  return {
    fingerprint,
    ruleId: 'send-before-record',
    source: 'static',
    severity: 'error',
    path: 'shop/orders.py',
    function: 'refund',
    range: { startLine: line, startColumn: 4, endLine: line, endColumn: 24 },
    title: 'Sends before it records',
    message: 'The e-mail goes out before the refund is committed.',
    hint: 'Record first, send after the commit.',
  };
}

export function sampleReview(comments: InlineComment[] = [comment('fp-send', 3)], overrides: Partial<Review> = {}): Review {
  return {
    repository: 'octo/shop',
    headSha: HEAD,
    functions: [],
    findings: comments.map((c) => finding(c.fingerprint, c.line)),
    summary: '## crashprobe: 1 unsafe\n\n| function | class |\n|---|---|\n| `shop/orders.py:refund` | ❌ unsafe |\n<!-- crashprobe:summary -->\n',
    comments,
    conclusion: 'failure',
    checkTitle: 'crashprobe: 1 unsafe',
    checkSummary: '## crashprobe: 1 unsafe',
    annotations: comments.map((c) => ({ path: c.path, startLine: c.line, endLine: c.line, level: 'failure' as const, title: 'Sends before it records', message: 'The e-mail goes out first.' })),
    counts: { unsafe: 1, safe_by_accident: 0, safe_by_design: 0, not_working: 0, untested: 0 },
    notes: [],
    ...overrides,
  };
}

export const BOT = { login: 'crashprobe[bot]', type: 'Bot' };

/** Timestamps change every run; a snapshot keeps their presence, not their value. */
export function withoutTimes<T extends object>(body: T): T {
  const copy = { ...body } as Record<string, unknown>;
  for (const key of ['started_at', 'completed_at']) if (key in copy) copy[key] = '<time>';
  return copy as T;
}
