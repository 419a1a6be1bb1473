import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseModule } from '../../../src/core/python/parse.ts';
import { scanRepository } from '../../../src/core/python/scan.ts';
import { scanJson } from '../../../src/core/python/scan-report.ts';
import { scanSources } from '../../../src/core/python/scan-sources.ts';
import { workerPool } from '../../../src/core/python/scan-pool.ts';
import type { SourceFile } from '../../../src/core/python/scan-file.ts';
import { py } from './python-source.ts';

const repo = join(import.meta.dirname, '../../fixtures/callgraph-repo');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.name.endsWith('.py') ? [join(dir, entry.name)] : []));
}

/** Helpers in other files that write, begin or change modes, reached through imports, re-exports and a package. */
const crossFile: SourceFile[] = [
  ['app/__init__.py', py`
    from app.db import begin as open_tx
  `],
  ['app/db.py', py`
    import sqlite3
    def begin(conn):
        conn.execute("BEGIN IMMEDIATE")
    def autocommit(conn):
        conn.isolation_level = None
    def quiet(conn):
        return 1
    def commit(conn):
        conn.commit()
  `],
  ['app/orders.py', py`
    from app import open_tx
    from app.db import autocommit, quiet
    import app.db as db

    def place(conn, order):
        open_tx(conn)
        conn.execute("INSERT INTO orders VALUES (?)", (order,))
        db.commit(conn, commit=False)
        conn.commit()

    def loose(conn):
        autocommit(conn)
        quiet(conn)
        for x in range(3):
            db.commit(conn)
  `],
  ['app/local.py', py`
    def helper(conn):
        conn.execute("DELETE FROM t")
    def caller(conn):
        helper(conn)
  `],
].map(([path, text]) => ({ path: path!, bytes: Buffer.from(text!) }));

const diff = `diff --git a/app/orders.py b/app/orders.py
--- a/app/orders.py
+++ b/app/orders.py
@@ -12,2 +12,2 @@ def loose(conn):
-    autocommit(conn)
+    autocommit(conn)
     quiet(conn)
diff --git a/app/gone.py b/app/gone.py
deleted file mode 100644
--- a/app/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-x = 1
`;

/** What scanRepository (every tree kept) says, as the CLI prints it. */
function keptTrees(sources: readonly SourceFile[], withDiff?: string, exclude?: string[]): string {
  const result = scanRepository(sources.map((source) => parseModule(source.path, source.bytes)), withDiff, exclude ? { exclude } : {});
  return JSON.stringify(scanJson('.', result.files, withDiff !== undefined));
}

async function oneTreeAtATime(sources: readonly SourceFile[], withDiff?: string, options: Parameters<typeof scanSources>[2] = {}): Promise<string> {
  const result = await scanSources(sources, withDiff, options);
  return JSON.stringify(scanJson('.', result.files, withDiff !== undefined));
}

describe('scanSources (one tree at a time)', () => {
  it('says what scanRepository says when helpers in other files change the analysis, and re-analyses only those files', async () => {
    const result = await scanSources(crossFile);
    expect(JSON.stringify(scanJson('.', result.files, false))).toBe(keptTrees(crossFile));
    expect(result.reanalysed).toEqual(['app/orders.py']);
    const place = result.files.find((file) => file.path === 'app/orders.py')!.reports.find((r) => r.fn.qualname === 'place')!;
    expect(place.txStyle.style).toBe('explicit_begin');
    expect(place.effects.map((e) => `${e.kind}${e.via ? ` via ${e.via.path}:${e.via.qualname}` : ''}`)).toEqual([
      'db-begin via app/db.py:begin',
      'db-write',
      'db-commit',
    ]);
  });

  it('follows a diff as scanRepository does', async () => {
    expect(await oneTreeAtATime(crossFile, diff)).toBe(keptTrees(crossFile, diff));
  });

  it('says what scanRepository says on the call-graph fixture, in this thread and on two workers', async () => {
    const sources = filesUnder(repo).map((file) => ({ path: relative(repo, file), bytes: readFileSync(file) }));
    const expected = keptTrees(sources, undefined, []);
    expect(await oneTreeAtATime(sources, undefined, { exclude: [] })).toBe(expected);
    expect(await oneTreeAtATime(sources, undefined, { exclude: [], scanner: workerPool(2) })).toBe(expected);
  }, 30_000);
});
