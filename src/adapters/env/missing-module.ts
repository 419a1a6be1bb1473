// When a target (or a scenario file) still cannot be imported because a module is
// missing, the review says which module, from which line of the repository, and
// what to do about it: the harness only reports "No module named 'x'".
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CampaignError } from '../../core/crash/protocol.ts';

export interface MissingModuleContext {
  /** harness.dependencies as configured. */
  mode: string;
  /** The dependency files the environment was built from, when one was built. */
  installedFrom?: string[];
}

const MISSING = /does not import: ModuleNotFoundError: No module named '([A-Za-z_][\w.]*)'/;
const MAX_FILES_SCANNED = 2000;

/** The top-level module a "No module named" error names, or undefined. */
export function missingModule(message: string): string | undefined {
  return MISSING.exec(message)?.[1]?.split('.')[0];
}

/** The first line of `text` importing `module` (1-based), or undefined. */
export function importLine(text: string, module: string): number | undefined {
  const name = module.replace(/[.]/g, '\\.');
  const pattern = new RegExp(`^\\s*(?:from\\s+${name}(?:\\.[\\w.]*)?\\s+import\\b|import\\s+(?:[\\w.]+(?:\\s+as\\s+\\w+)?\\s*,\\s*)*${name}(?:\\.[\\w.]*)?(?:\\s+as\\s+\\w+)?\\s*(?:,|#|$))`);
  const lines = text.split('\n');
  const index = lines.findIndex((line) => pattern.test(line));
  return index < 0 ? undefined : index + 1;
}

function pythonFiles(root: string): string[] {
  const out: string[] = [];
  const stack = [''];
  while (stack.length && out.length < MAX_FILES_SCANNED) {
    const rel = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules') stack.push(child);
      else if (entry.isFile() && entry.name.endsWith('.py')) out.push(child);
    }
  }
  return out;
}

function read(root: string, rel: string): string {
  try {
    const full = path.join(root, rel);
    return statSync(full).size > 1024 * 1024 ? '' : readFileSync(full, 'utf8');
  } catch {
    return '';
  }
}

/** Where `module` is imported: the failing file first (target or scenario file), then any file of the repository. */
export function findImport(root: string, firstFiles: string[], module: string): string | undefined {
  const seen = new Set<string>();
  for (const rel of [...firstFiles, ...pythonFiles(root)]) {
    if (seen.has(rel)) continue;
    seen.add(rel);
    const line = importLine(read(root, rel), module);
    if (line) return `${rel}:${line}`;
  }
  return undefined;
}

function fix(module: string, context: MissingModuleContext): string {
  const pkg = `the package that provides \`${module}\``;
  if (context.mode === 'off') {
    return `Fix: list ${pkg} in requirements.txt or pyproject.toml and set \`harness.dependencies: auto\` in .github/crashprobe.yml, so the App installs it before crash tests.`;
  }
  if (context.installedFrom?.length) {
    return `Fix: add ${pkg} to ${context.installedFrom.join(', ')} (only what they list from the package index was installed).`;
  }
  return 'Fix: see the dependency note of this review: the environment was not built, so crash tests ran without the dependencies.';
}

/** The error with the module, the importing line and the fix added; other errors unchanged. */
export function explainMissingModule(error: CampaignError, root: string, context: MissingModuleContext): CampaignError {
  const module = missingModule(error.message);
  if (!module) return error;
  const target = /target file (\S+\.py) does not import/.exec(error.message)?.[1];
  const where = findImport(root, [target, error.file].filter((f): f is string => Boolean(f)), module);
  const from = where ? ` \`${module}\` is imported at ${where}.` : ` \`${module}\` is imported by code the target loads.`;
  return { ...error, message: `${error.message}.${from} ${fix(module, context)}` };
}
