// Writes the 1-core scan's JSON on the standard library to the path given, so a
// change to the scan infrastructure can be checked to leave every finding as it was.
// (`npx tsx bench/_scan-output.ts out.json`; the underscore keeps bench/run.ts from running it.)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { scanJson } from '../src/core/python/scan-report.ts';
import { scanSources } from '../src/core/python/scan-sources.ts';
import { workerPool } from '../src/core/python/scan-pool.ts';
import { stdlibPythonFiles, stdlibRoot } from './_stdlib.ts';

const out = process.argv[2];
if (!out) throw new Error('usage: tsx bench/_scan-output.ts <out.json> [threads]');
const threads = Number(process.argv[3] ?? 1);
const root = stdlibRoot();
const sources = stdlibPythonFiles(root)
  .sort()
  .map((file) => ({ path: path.relative(root, file).split(path.sep).join('/'), bytes: readFileSync(file) }));
const started = performance.now();
const result = await scanSources(sources, undefined, { exclude: [], ...(threads > 1 ? { scanner: workerPool(threads) } : {}) });
console.log(`${((performance.now() - started) / 1000).toFixed(2)} s`);
writeFileSync(out, JSON.stringify({ files: scanJson('.', result.files, false), edges: result.index.edges }, null, 1));
