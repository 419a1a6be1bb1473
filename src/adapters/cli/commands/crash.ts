import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { contractJson, runCampaign } from '../../harness/campaign.ts';
import { defaultConcurrency, prepareHarness } from '../../harness/prepare.ts';
import { renderCrashReport } from '../../../core/crash/report.ts';
import { progressLine } from '../progress.ts';
import { describePython, findProjectPython, projectRootOf } from '../find-python.ts';

interface CrashFlags {
  root?: string;
  json?: string;
  isolation: string;
  sandbox: string;
  jobs?: string;
  python?: string;
}

export function registerCrash(program: Command): void {
  program
    .command('crash')
    .description('crash-test the targets of scenario files, in both sqlite3 transaction modes')
    .argument('<paths...>', 'scenario files, or folders searched for them')
    .option('--root <dir>', 'repository root (default: nearest folder with .git or pyproject.toml)')
    .option('--json <file>', 'write the verdicts as JSON')
    .option('--isolation <kind>', 'fork (a warm fork server) or spawn (a fresh interpreter per run)', 'fork')
    .option('--sandbox <kind>', 'auto, bwrap or none', 'auto')
    .option('--jobs <n>', 'scenario files judged at once (default: the number of cores)')
    .option('--python <path>', 'the Python interpreter (default: $CRASHPROBE_PYTHON, else .venv/ or venv/ in the repository root, else python3)')
    .action(async (paths: string[], flags: CrashFlags) => {
      const exitCode = await crashCommand(paths, flags);
      process.exitCode = exitCode;
    });
}

async function crashCommand(paths: string[], flags: CrashFlags): Promise<number> {
  if (flags.isolation !== 'fork' && flags.isolation !== 'spawn') {
    throw new Error(`--isolation must be fork or spawn, not ${flags.isolation}`);
  }
  if (!['auto', 'bwrap', 'none'].includes(flags.sandbox)) {
    throw new Error(`--sandbox must be auto, bwrap or none, not ${flags.sandbox}`);
  }
  const jobs = flags.jobs ? Number.parseInt(flags.jobs, 10) : defaultConcurrency();
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`--jobs must be a whole number of at least 1, not ${flags.jobs}`);
  const searchPath = (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter);
  const pythonChoice = await findProjectPython({ flag: flags.python, env: process.env, root: projectRootOf(paths[0], flags.root, process.cwd()), searchPath });
  if (pythonChoice.warning) process.stderr.write(`crashprobe: ${pythonChoice.warning}\n`);
  const prepared = await prepareHarness({
    python: pythonChoice.python,
    sandbox: flags.sandbox as 'auto' | 'bwrap' | 'none',
    searchPath: (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter),
  });
  for (const notice of prepared.notices) process.stderr.write(`crashprobe: ${notice}\n`);
  process.stderr.write(`crashprobe: ${describePython(pythonChoice, prepared.options.python.executable)}\n`);
  const progress = progressLine(process.stderr);
  const result = await runCampaign(
    paths,
    { ...prepared.options, isolation: flags.isolation, concurrency: jobs, root: flags.root },
    (p) =>
      progress.update(
        `[${p.filesDone}/${p.filesTotal} files] ${p.file}` +
          (p.scenario ? ` ${p.scenario} (${p.mode}) ${p.done}/${p.total}` : ''),
      ),
  );
  progress.clear();
  process.stdout.write(renderCrashReport(result, process.cwd()) + '\n');
  const python = { executable: prepared.options.python.executable, version: prepared.options.python.version, source: pythonChoice.source };
  if (flags.json) await writeFile(flags.json, JSON.stringify({ ...(contractJson(result) as object), python }, null, 2) + '\n');
  return result.errors.length ? 1 : 0;
}
