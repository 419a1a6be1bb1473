import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseModule } from '../../../src/core/python/parse.ts';
import { scanRepository } from '../../../src/core/python/scan.ts';
import { scanJson, scanJsonSchema, scanText } from '../../../src/core/python/scan-report.ts';
import { moduleOf, py } from './python-source.ts';

const helpers = moduleOf(py`
  def begin(conn):
      conn.execute("BEGIN IMMEDIATE")
`, 'app/db.py');
const orders = moduleOf(py`
  from app.db import begin

  def place(conn, order):
      begin(conn)
      conn.execute("INSERT INTO orders VALUES (?)", (order,))
      conn.commit()

  def untouched(conn):
      conn.execute("DELETE FROM orders")
`, 'app/orders.py');

const diff = `diff --git a/app/orders.py b/app/orders.py
--- a/app/orders.py
+++ b/app/orders.py
@@ -4,3 +4,3 @@ def place(conn, order):
     begin(conn)
-    conn.execute("INSERT INTO orders VALUES (1)")
+    conn.execute("INSERT INTO orders VALUES (?)", (order,))
     conn.commit()
diff --git a/app/gone.py b/app/gone.py
deleted file mode 100644
--- a/app/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-x = 1
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1 +1 @@
-a
+b
`;

describe('scanRepository', () => {
  it('analyses only touched functions, with cross-file helpers, and lists deleted files', () => {
    const { files } = scanRepository([helpers, orders], diff);
    expect(files.map((file) => [file.path, file.status, file.reports.map((r) => `${r.fn.qualname}:${r.txStyle.style}`)])).toEqual([
      ['app/orders.py', 'modified', ['place:explicit_begin']],
      ['app/gone.py', 'deleted', []],
    ]);
    const json = scanJson('.', files, true);
    expect(scanJsonSchema.safeParse(json).success).toBe(true);
    expect(json.summary).toEqual({ files: 2, functions: 1, writing: 1, findings: 0 });
    expect(json.files[0]!.functions[0]!.effects.map((e) => `${e.line} ${e.kind}${e.via ? ` via ${e.via.path}` : ''}`)).toEqual([
      '4 db-begin via app/db.py',
      '5 db-write',
      '6 db-commit',
    ]);
    expect(scanText(files, { all: true })).toContain('transaction style: explicit_begin (begin-via-helper@4)');
  });

  it('says which function nests too deep to analyse (3,000 nested calls) and analyses the others', () => {
    let path = 'x';
    for (let i = 0; i < 3000; i++) path = `os.path.join(${path}, "a")`;
    const deep = parseModule(
      'app/generated.py',
      `import os\n\ndef deep(x):\n    with open(${path}, "w") as h:\n        h.write("1")\n\ndef save(conn):\n    conn.execute("DELETE FROM t")\n    conn.execute("INSERT INTO t VALUES (1)")\n    conn.commit()\n`,
    );
    const [file] = scanRepository([deep]).files;
    expect(file!.notes).toEqual([expect.stringMatching(/^deep \(line 3\) not analysed: its code nests deeper than the analysis can follow/)]);
    expect(file!.reports.map((report) => [report.fn.qualname, report.findings.length > 0])).toEqual([
      ['deep', false],
      ['save', true],
    ]);
  });

  it('analyses every function without a diff', () => {
    const { files } = scanRepository([helpers, orders]);
    expect(files.flatMap((file) => file.reports.map((r) => r.fn.qualname))).toEqual(['begin', 'place', 'untouched']);
  });
});

describe('crashprobe scan (CLI)', () => {
  const bin = join(import.meta.dirname, '../../../bin/crashprobe.js');
  const repo = join(import.meta.dirname, '../../fixtures/callgraph-repo');

  it('prints JSON that matches the schema', () => {
    const out = execFileSync('node', [bin, 'scan', repo, '--json'], { encoding: 'utf8' });
    const parsed = scanJsonSchema.parse(JSON.parse(out));
    expect(parsed.files.map((file) => file.path)).toContain('shop/orders.py');
  });

  it('names the bad input and exits 2 without a stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scan-'));
    writeFileSync(join(dir, 'not-a-diff.txt'), 'hello\n');
    const result = spawnSync('node', [bin, 'scan', repo, '--diff', join(dir, 'not-a-diff.txt')], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`crashprobe scan: --diff ${join(dir, 'not-a-diff.txt')}: not a unified diff (no "diff --git" or "---" header)\n`);
    const missing = spawnSync('node', [bin, 'scan', join(dir, 'nope')], { encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('scan: what is left out by default', () => {
  const writes = 'def f(conn):\n    conn.execute("INSERT INTO t VALUES (1)")\n    conn.execute("INSERT INTO u VALUES (1)")\n    conn.commit()\n';
  const modules = ['app/store.py', 'tests/test_store.py', 'app/store_test.py', 'benchmarks/run.py', 'docs/conf.py', 'examples/demo.py'].map((p) => parseModule(p, writes));

  it('scans library code, not tests, benchmarks, examples or docs (the config can say otherwise)', () => {
    expect(scanRepository(modules).files.map((f) => f.path)).toEqual(['app/store.py']);
    expect(scanRepository(modules, undefined, { exclude: [] }).files).toHaveLength(6);
    const diff = modules.map((m) => `--- a/${m.path}\n+++ b/${m.path}\n@@ -1,1 +1,1 @@\n-def f(conn):\n+def f(conn):\n`).join('');
    expect(scanRepository(modules, diff).files.map((f) => f.path)).toEqual(['app/store.py']);
  });

  it('scans one file named on purpose, even a test', () => {
    expect(scanRepository([parseModule('test_store.py', writes)]).files).toHaveLength(1);
  });
});
