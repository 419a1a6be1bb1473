// The deterministic repairs as text: each strategy on a small function, the
// helper added once per module, style and indentation kept. (Whether the repairs
// hold is the crash test's job: reference-suite.test.ts.)
import { describe, expect, it } from 'vitest';
import { analyzeModule } from '../../../src/core/python/analyze.ts';
import { parseModule } from '../../../src/core/python/parse.ts';
import { deterministicRepair, deterministicRepairs } from '../../../src/core/repair/deterministic.ts';
import { applyAnswer, parseAnswer } from '../../../src/core/repair/llm-repair.ts';
import { changedRegion, mergeRepairs, unifiedDiff } from '../../../src/core/repair/patch.ts';

function repair(source: string, qualname: string, resumable = false) {
  const module = parseModule('app/mod.py', source);
  const report = analyzeModule(module).find((r) => r.fn.qualname === qualname)!;
  return deterministicRepair({ module, qualname, ruleIds: new Set(report.findings.map((f) => f.ruleId)), resumable });
}

/** Every candidate, smallest first (the order the crash test tries them in). */
function repairs(source: string, qualname: string, resumable = false) {
  const module = parseModule('app/mod.py', source);
  const report = analyzeModule(module).find((r) => r.fn.qualname === qualname)!;
  return deterministicRepairs({ module, qualname, ruleIds: new Set(report.findings.map((f) => f.ruleId)), resumable });
}

const bodyOf = (source: string, name: string) => source.slice(source.indexOf(`def ${name}`));

describe('deterministic repairs', () => {
  it('gives writes committed without BEGIN a BEGIN before the first write, in the code\'s indent, keeping its commit()', () => {
    const source = ['def refund(conn, order_id):', '  conn.execute("UPDATE orders SET status = ? WHERE id = ?", ("refunded", order_id))', '  conn.execute("INSERT INTO refunds (order_id) VALUES (?)", (order_id,))', '  conn.commit()', ''].join('\n');
    const out = repair(source, 'refund')!;
    expect(out.strategies).toEqual(['begin-commit']);
    expect(out.source).toBe(
      ['def refund(conn, order_id):', '  if not conn.in_transaction:', '    conn.execute("BEGIN")', '  conn.execute("UPDATE orders SET status = ? WHERE id = ?", ("refunded", order_id))', '  conn.execute("INSERT INTO refunds (order_id) VALUES (?)", (order_id,))', '  conn.commit()', ''].join('\n'),
    );
  });

  it('keeps the helper-class transaction as the second candidate, for when the BEGIN lines do not hold', () => {
    const source = ['def refund(conn, order_id):', '  conn.execute("UPDATE orders SET status = ? WHERE id = ?", ("refunded", order_id))', '  conn.execute("INSERT INTO refunds (order_id) VALUES (?)", (order_id,))', '  conn.commit()', ''].join('\n');
    const [first, fallback] = repairs(source, 'refund');
    expect(first!.strategies).toEqual(['begin-commit']);
    expect(fallback!.strategies).toEqual(['own-transaction']);
    expect(bodyOf(fallback!.source, 'refund')).toBe(
      ['def refund(conn, order_id):', '  with _own_transaction(conn):', '    conn.execute("UPDATE orders SET status = ? WHERE id = ?", ("refunded", order_id))', '    conn.execute("INSERT INTO refunds (order_id) VALUES (?)", (order_id,))', ''].join('\n'),
    );
    // The module's two-space indent is kept in the helper too; BEGIN, or a SAVEPOINT inside a caller's transaction.
    expect(fallback!.source).toContain('  def __enter__(self):\n    self.savepoint = self.conn.in_transaction');
    expect(fallback!.source).toContain('"SAVEPOINT own_transaction" if self.savepoint else "BEGIN IMMEDIATE"');
  });

  it('begins inside `with conn:` (which only commits or rolls back); the fallback adds the helper once per module', () => {
    const source = [
      'def a(conn):', '    with conn:', '        conn.execute("INSERT INTO t VALUES (1)")', '        conn.execute("INSERT INTO u VALUES (1)")', '',
      '', 'def b(conn):', '    with conn:', '        conn.execute("INSERT INTO t VALUES (2)")', '        conn.execute("INSERT INTO u VALUES (2)")', '',
    ].join('\n');
    expect(repair(source, 'a')!.source).toContain('def a(conn):\n    with conn:\n        if not conn.in_transaction:\n            conn.execute("BEGIN")\n        conn.execute("INSERT INTO t VALUES (1)")\n');
    const first = repairs(source, 'a')[1]!;
    expect(first.source).toContain('def a(conn):\n    with _own_transaction(conn):\n');
    const second = repairs(first.source, 'b')[1]!;
    expect(second.source.match(/class _own_transaction/g)).toHaveLength(1);
    expect(second.source).toContain('def b(conn):\n    with _own_transaction(conn):\n');
  });

  it('keeps a multi-line string exactly as written', () => {
    const source = ['def f(conn):', '    conn.execute("""', 'UPDATE t SET x = 1', '""")', '    conn.execute("UPDATE u SET y = 1")', '    conn.commit()', ''].join('\n');
    expect(repair(source, 'f')!.source).toBe(['def f(conn):', '    if not conn.in_transaction:', '        conn.execute("BEGIN")', '    conn.execute("""', 'UPDATE t SET x = 1', '""")', '    conn.execute("UPDATE u SET y = 1")', '    conn.commit()', ''].join('\n'));
    // ... also when the fallback re-indents the body.
    expect(bodyOf(repairs(source, 'f')[1]!.source, 'f')).toBe(['def f(conn):', '    with _own_transaction(conn):', '        conn.execute("""', 'UPDATE t SET x = 1', '""")', '        conn.execute("UPDATE u SET y = 1")', ''].join('\n'));
  });

  it('makes per-item commits one commit after the loop, or begins per item for a resumable job', () => {
    const source = ['def run(conn, jobs):', '    for job in jobs:', '        conn.execute("UPDATE jobs SET done = 1 WHERE id = ?", (job,))', '        conn.commit()', '    return len(jobs)', ''].join('\n');
    expect(repair(source, 'run')!.source).toBe(
      ['def run(conn, jobs):', '    if not conn.in_transaction:', '        conn.execute("BEGIN")', '    for job in jobs:', '        conn.execute("UPDATE jobs SET done = 1 WHERE id = ?", (job,))', '    conn.commit()', '    return len(jobs)', ''].join('\n'),
    );
    expect(repair(source, 'run', true)!.source).toBe(
      ['def run(conn, jobs):', '    for job in jobs:', '        if not conn.in_transaction:', '            conn.execute("BEGIN")', '        conn.execute("UPDATE jobs SET done = 1 WHERE id = ?", (job,))', '        conn.commit()', '    return len(jobs)', ''].join('\n'),
    );
    expect(bodyOf(repairs(source, 'run')[1]!.source, 'run')).toBe(
      ['def run(conn, jobs):', '    with _own_transaction(conn):', '        for job in jobs:', '            conn.execute("UPDATE jobs SET done = 1 WHERE id = ?", (job,))', '    return len(jobs)', ''].join('\n'),
    );
  });

  it('passes an idempotency key derived from the row that records the send (Figure 3)', () => {
    const out = repair(
      ['def mark(conn, mailer, order_id):', '    mailer.send(', '        "a@b.c",', '        "Receipt",', '    )', '    conn.execute("UPDATE orders SET paid = 1 WHERE id = ?", (order_id,))', '    conn.commit()', ''].join('\n'),
      'mark',
    )!;
    expect(out.strategies[0]).toBe('idempotency-key');
    expect(out.source).toContain('        "Receipt",\n        idempotency_key=f"orders-{order_id}",\n    )');
  });

  it('rewrites a file through a temporary file, fsync and os.replace, importing os', () => {
    // load() reads the file back: it is state, not output (read-back.ts).
    const load = ['', '', 'def load(path):', '    with open(path) as f:', '        return json.load(f)', ''];
    const out = repair(['import json', '', '', 'def save(path, data):', '    with open(path, "w") as f:', '        json.dump(data, f)', ...load].join('\n'), 'save')!;
    expect(out.source).toBe(
      ['import json', 'import os', '', '', 'def save(path, data):', '    tmp_path = f"{path}.tmp"', '    with open(tmp_path, "w") as f:', '        json.dump(data, f)', '        f.flush()', '        os.fsync(f.fileno())', '    os.replace(tmp_path, path)', ...load].join('\n'),
    );
  });

  it('deletes the file after the commit that removes its row', () => {
    const out = repair(
      ['import os', '', '', 'def drop(conn, path, i):', '    os.remove(path)', '    conn.execute("DELETE FROM files WHERE id = ?", (i,))', '    conn.execute("UPDATE folders SET n = n - 1")', '    conn.commit()', '    return True', ''].join('\n'),
      'drop',
    )!;
    expect(out.strategies).toEqual(['record-before-delete', 'begin-commit']);
    expect(bodyOf(out.source, 'drop')).toBe(
      ['def drop(conn, path, i):', '    if not conn.in_transaction:', '        conn.execute("BEGIN")', '    conn.execute("DELETE FROM files WHERE id = ?", (i,))', '    conn.execute("UPDATE folders SET n = n - 1")', '    conn.commit()', '    os.remove(path)', '    return True', ''].join('\n'),
    );
  });

  it('puts BEGIN inside the code\'s own try, so its rollback() undoes the writes in autocommit too', () => {
    const source = [
      'def move(conn, a, b):', '    try:', '        conn.execute("UPDATE t SET n = n - 1 WHERE id = ?", (a,))', '        conn.execute("UPDATE t SET n = n + 1 WHERE id = ?", (b,))',
      '        conn.commit()', '    except Exception:', '        conn.rollback()', '        raise', '',
    ].join('\n');
    expect(repair(source, 'move')!.source).toBe(
      [
        'def move(conn, a, b):', '    try:', '        if not conn.in_transaction:', '            conn.execute("BEGIN")', '        conn.execute("UPDATE t SET n = n - 1 WHERE id = ?", (a,))',
        '        conn.execute("UPDATE t SET n = n + 1 WHERE id = ?", (b,))', '        conn.commit()', '    except Exception:', '        conn.rollback()', '        raise', '',
      ].join('\n'),
    );
  });

  it('names a file the database points at by its content, and switches the row in the same transaction', () => {
    const source = [
      'import json', 'import os', '', '', 'def publish(conn, out_dir, rows):', '    conn.isolation_level = None',
      '    for key, value in rows:', '        conn.execute("UPDATE settings SET value = ? WHERE key = ?", (value, key))',
      '    data = dict(conn.execute("SELECT key, value FROM settings").fetchall())',
      '    name = conn.execute("SELECT value FROM meta WHERE key = ?", ("export",)).fetchone()[0]',
      '    with open(os.path.join(out_dir, name), "w") as f:', '        json.dump(data, f)', '',
    ].join('\n');
    const module = parseModule('app/mod.py', source);
    const out = deterministicRepair({ module, qualname: 'publish', ruleIds: new Set(['in-place-file-rewrite', 'writes-rely-on-implicit-transaction']), resumable: false })!;
    expect(out.strategies).toEqual(['atomic-replace', 'begin-commit', 'content-named-file']);
    expect(out.source.startsWith('import hashlib\nimport json\nimport os\n')).toBe(true);
    expect(out.source).toContain(
      [
        '    os.replace(tmp_path, target_path)',
        '    conn.execute("UPDATE meta SET value = ? WHERE key = ?", (name, "export"))',
        '    conn.commit()',
      ].join('\n'),
    );
    expect(out.source).toContain('    name = f"{root.rsplit(\'-\', 1)[0]}-{digest}{ext}"');
    expect(out.source.match(/conn\.commit\(\)/g)).toHaveLength(1);
  });

  it('makes a committed record whose message carries a per-run token an outbox row: stored pending, token reused, keyed send, marked done', () => {
    const source = [
      'import secrets', '', '',
      'def invite(db, mailer, email):',
      '  if db.execute("SELECT 1 FROM invites WHERE email = ?", (email,)).fetchone():',
      '    raise ValueError("invited already")',
      '  token = secrets.token_hex(8)',
      '  db.execute("INSERT INTO invites (email, token, state) VALUES (?, ?, \'done\')", (email, token))',
      '  db.commit()',
      '  link = "https://x.test/?t=" + token',
      '  mailer.send(email, link)',
      '  return token', '',
    ].join('\n');
    const out = repair(source, 'invite', true)!;
    expect(out.strategies).toEqual(['outbox-row']);
    expect(bodyOf(out.source, 'invite')).toBe([
      'def invite(db, mailer, email):',
      '  if db.execute("SELECT 1 FROM invites WHERE email = ? AND state = \'done\'", (email,)).fetchone():',
      '    raise ValueError("invited already")',
      '  pending = db.execute("SELECT token FROM invites WHERE email = ?", (email,)).fetchone()',
      '  token = pending[0] if pending else secrets.token_hex(8)',
      '  if not pending:',
      '    db.execute("INSERT INTO invites (email, token, state) VALUES (?, ?, \'pending\')", (email, token))',
      '    db.commit()',
      '  link = "https://x.test/?t=" + token',
      '  mailer.send(email, link, idempotency_key=f"invites-{email}")',
      '  if not db.in_transaction:',
      '    db.execute("BEGIN")',
      '  db.execute("UPDATE invites SET state = \'done\' WHERE email = ?", (email,))',
      '  db.commit()',
      '  return token', '',
    ].join('\n'));
  });

  it('adds no BEGIN to a unit of one write when another unit of the function needs one (one write is atomic by itself)', () => {
    const source = [
      'def close(conn, i):',
      '    conn.execute("UPDATE a SET n = n - 1 WHERE id = ?", (i,))',
      '    conn.execute("UPDATE b SET n = n + 1 WHERE id = ?", (i,))',
      '    conn.commit()',
      '    conn.execute("UPDATE c SET done = 1 WHERE id = ?", (i,))',
      '    conn.commit()',
      '',
    ].join('\n');
    expect(repair(source, 'close')!.source).toBe([
      'def close(conn, i):',
      '    if not conn.in_transaction:',
      '        conn.execute("BEGIN")',
      '    conn.execute("UPDATE a SET n = n - 1 WHERE id = ?", (i,))',
      '    conn.execute("UPDATE b SET n = n + 1 WHERE id = ?", (i,))',
      '    conn.commit()',
      '    conn.execute("UPDATE c SET done = 1 WHERE id = ?", (i,))',
      '    conn.commit()',
      '',
    ].join('\n'));
  });

  it('keeps commit-then-send with no per-run value for the keyed send moved before the commit, not an outbox row', () => {
    const source = [
      'def cancel(conn, mailer, sub_id):',
      '    conn.execute("UPDATE subs SET status = \'cancelled\' WHERE id = ?", (sub_id,))',
      '    conn.commit()',
      '    mailer.send("a@b.c", "Cancelled")',
      '',
    ].join('\n');
    expect(repair(source, 'cancel')!.strategies[0]).toBe('keyed-send-before-commit');
    // A record with no literal done status has nowhere to say "pending": no outbox-row rewrite.
    const noStatus = ['import uuid', '', '', 'def f(conn, mailer, email):', '    token = uuid.uuid4().hex', '    conn.execute("INSERT INTO t (email, token) VALUES (?, ?)", (email, token))', '    conn.commit()', '    mailer.send(email, token)', ''].join('\n');
    expect(repairs(noStatus, 'f').flatMap((c) => c.strategies)).not.toContain('outbox-row');
  });

  it('leaves alone a function that manages its own transaction', () => {
    expect(repair(['def f(conn):', '    conn.execute("BEGIN")', '    conn.execute("INSERT INTO t VALUES (1)")', '    conn.commit()', ''].join('\n'), 'f')).toBeUndefined();
  });
});

describe('LLM answers', () => {
  const module = parseModule('app/mod.py', ['import json', '', '', 'class Jobs:', '    def run(self, conn):', '        conn.commit()', ''].join('\n'));

  it('validates the JSON and puts the new function where the old one was, re-indented', () => {
    const parsed = parseAnswer('Here you go:\n{"function": "def run(self, conn):\\n    with conn:\\n        pass", "imports": ["import os"], "explanation": "x"}');
    if (!parsed.success) throw new Error(`the answer should parse: ${parsed.error}`);
    const applied = applyAnswer(module, 'Jobs.run', parsed.data);
    expect(applied).toEqual({ source: ['import json', 'import os', '', '', 'class Jobs:', '    def run(self, conn):', '        with conn:', '            pass', ''].join('\n') });
  });

  it('says what is wrong with an answer it cannot use', () => {
    expect(parseAnswer('{}')).toMatchObject({ success: false, error: expect.stringContaining('function') });
    expect(parseAnswer('no json')).toMatchObject({ success: false });
    expect(applyAnswer(module, 'Jobs.run', { function: 'def other():\n    pass', imports: [], explanation: '' })).toEqual({ problem: 'the answer does not define run()' });
  });
});

describe('the repair as the review shows it', () => {
  it('finds the one changed region and renders it as a unified diff', () => {
    const before = 'a\nb\nc\nd\n';
    const after = 'a\nB\nB2\nc\nd\n';
    expect(changedRegion(before, after)).toEqual({ startLine: 2, endLine: 2, text: 'B\nB2' });
    expect(unifiedDiff('x.py', before, after)).toBe(['--- a/x.py', '+++ b/x.py', '@@ -1,5 +1,6 @@', ' a', '-b', '+B', '+B2', ' c', ' d', ' '].join('\n'));
  });

  it('joins two repairs of one file (--fix applies both) unless their lines overlap or both add the helper', () => {
    const source = ['def a(conn):', '    conn.execute("INSERT INTO t VALUES (1)")', '    conn.execute("INSERT INTO u VALUES (1)")', '    conn.commit()', '', '', 'def b(conn):', '    conn.execute("INSERT INTO t VALUES (2)")', '    conn.execute("INSERT INTO u VALUES (2)")', '    conn.commit()', ''].join('\n');
    const [a, aHelper] = repairs(source, 'a');
    const [b, bHelper] = repairs(source, 'b');
    const both = mergeRepairs(source, a!.source, b!.source)!;
    expect(both.match(/conn\.execute\("BEGIN"\)/g)).toHaveLength(2);
    expect(repairs(both, 'a')).toEqual([]);
    expect(repairs(both, 'b')).toEqual([]);
    expect(mergeRepairs(source, a!.source, a!.source.replace('def a(conn):', 'def a(conn, now):'))).toBeUndefined();
    expect(mergeRepairs(source, aHelper!.source, bHelper!.source)).toBeUndefined();
  });

  it('takes the line above for a pure insertion, so the suggestion replaces at least one line', () => {
    expect(changedRegion('a\nb\n', 'a\nnew\nb\n')).toEqual({ startLine: 1, endLine: 1, text: 'a\nnew' });
  });
});
