// `npm run bench`: every benchmark, one after another, each printing figures measured
// side by side in the same run (ratios, not absolute targets).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type Bench = (log: (line: string) => void) => Promise<void>;

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();
for (const file of files) {
  const name = file.replace(/\.ts$/, '');
  console.log(`\n== ${name}`);
  const mod = (await import(pathToFileURL(path.join(here, file)).href)) as { default?: Bench };
  if (typeof mod.default !== 'function') throw new Error(`bench/${file} must export a default async function (log) => void`);
  const started = Date.now();
  await mod.default((line) => console.log(`  ${line}`));
  console.log(`  (${name}: ${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
