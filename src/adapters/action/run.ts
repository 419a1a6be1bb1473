// The Action's entry (action/dist/main.js once bundled): read the inputs once,
// run, set the exit code.
import * as core from '@actions/core';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { actionDeps } from './deps.ts';
import { runAction } from './runner.ts';
import { readSettings } from './settings.ts';

/** In the bundle the Python harness sits beside main.js (scripts/build-action.ts copies it there). */
function bundledHarnessDir(): string | undefined {
  const besideMe = path.join(path.dirname(fileURLToPath(import.meta.url)), 'harness');
  return existsSync(path.join(besideMe, 'crashprobe', '__init__.py')) ? besideMe : undefined;
}

try {
  const settings = readSettings((name) => core.getInput(name), process.env);
  process.exitCode = await runAction(settings, actionDeps(bundledHarnessDir()));
} catch (error) {
  core.setFailed(error instanceof Error ? error.message : String(error));
}
