// Runs every rule over a tree of Python files (by default the standard
// library of `python3`), the repository-wide call graph behind it, and prints
// each finding of the sqlite-transaction rules and a count per rule. The
// false-positive review of the sqlite rules starts here:
//   npx tsx test/core/python/rules/stdlib-scan.ts [root-or-file ...] [--all]
// `--all` prints the findings of every rule, not only the sqlite ones.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseModule } from '../../../../src/core/python/parse.ts';
import { buildRepoIndex, repoHelperResolver } from '../../../../src/core/python/callgraph.ts';
import { findEffects } from '../../../../src/core/python/effects.ts';
import { listFunctions } from '../../../../src/core/python/functions.ts';
import { detectTxStyle } from '../../../../src/core/python/tx-style.ts';
import { rules, runRules } from '../../../../src/core/python/rules/index.ts';

const args = process.argv.slice(2);
const printAll = args.includes('--all');
const roots = args.filter((arg) => !arg.startsWith('--'));
if (roots.length === 0) {
  roots.push(execFileSync('python3', ['-c', "import sysconfig;print(sysconfig.get_paths()['stdlib'])"], { encoding: 'utf8' }).trim());
}

function pythonFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    // Third-party packages installed beside the standard library are not it.
    if (name === 'site-packages' || name === '__pycache__') continue;
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) pythonFiles(path, out);
    else if (name.endsWith('.py')) out.push(path);
  }
  return out;
}

const sqliteRules = new Set(rules.filter((rule) => rule.meta.category === 'sqlite-transaction').map((rule) => rule.meta.id));
const counts = new Map<string, number>(rules.flatMap((rule) => Object.keys(rule.meta.messages).map((id) => [`${rule.meta.id}/${id}`, 0] as const)));
let fileCount = 0;
for (const root of roots) {
  const isFolder = statSync(root).isDirectory();
  const files = isFolder ? pythonFiles(root) : [root];
  fileCount += files.length;
  const modules = files.map((file) => parseModule(isFolder ? relative(root, file) : file, readFileSync(file)));
  // As analyze.ts does, plus the resolver handed to the rules too (see RuleInput.resolveHelper).
  const resolveHelper = repoHelperResolver(buildRepoIndex(modules));
  for (const module of modules) {
    for (const fn of listFunctions(module)) {
      const effects = findEffects(fn, module, { resolveHelper });
      const txStyle = detectTxStyle(fn, module, { resolveHelper });
      for (const finding of runRules({ module, fn, effects, txStyle, resolveHelper })) {
        counts.set(`${finding.ruleId}/${finding.messageId}`, (counts.get(`${finding.ruleId}/${finding.messageId}`) ?? 0) + 1);
        if (printAll || sqliteRules.has(finding.ruleId)) {
          console.log(`${isFolder ? `${root}/` : ''}${finding.path}:${finding.range.startLine} ${finding.ruleId}/${finding.messageId} [${finding.function}] ${finding.message}`);
        }
      }
    }
  }
}
console.log(`\n${fileCount} files`);
for (const [key, count] of counts) console.log(`${sqliteRules.has(key.split('/')[0]!) ? 'sqlite' : 'other '} ${key}: ${count}`);
