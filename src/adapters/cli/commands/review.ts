import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { Logger } from '../../../core/ports.ts';
import { toSarif } from '../../../core/render/sarif.ts';
import { chooseHarness } from '../../harness/choose.ts';
import { reviewPullRequest } from '../../../core/review/review.ts';
import type { Review } from '../../../core/model/review.ts';
import { llmClientFromEnv } from '../../llm/from-env.ts';
import { loadConfigFile } from '../config-file.ts';
import { fileStore } from '../file-store.ts';
import { defaultBase, gitSource, repositoryTop } from '../git-source.ts';
import { progressLine } from '../progress.ts';
import { describePython, findProjectPython } from '../find-python.ts';

interface ReviewFlags {
  base?: string;
  head?: string;
  format: string;
  output?: string;
  harness: boolean;
  python?: string;
  sandbox: string;
  cache: boolean;
  fix?: boolean;
}

const FORMATS = ['text', 'markdown', 'json', 'sarif'] as const;

export function registerReview(program: Command): void {
  program
    .command('review')
    .description('review a local git range as crashprobe reviews a pull request (no GitHub needed)')
    .option('--base <ref>', 'the base of the change (default: where this branch left main, or HEAD~1)')
    .option('--head <ref>', 'the head commit (default: the working tree)')
    .option('--format <format>', `output: ${FORMATS.join(', ')}`, 'text')
    .option('--output <file>', 'write the output to a file instead of standard output')
    .option('--no-harness', 'do not run the crash harness (static checks only)')
    .option('--no-cache', 'ignore cached crash verdicts')
    .option('--sandbox <kind>', 'auto, bwrap or none', 'auto')
    .option('--python <path>', 'the Python interpreter (default: $CRASHPROBE_PYTHON, else .venv/ or venv/ in the repository root, else python3)')
    .option('--fix', 'apply the crash-tested repairs to the working tree')
    .action(async (flags: ReviewFlags) => {
      process.exitCode = await reviewCommand(flags);
    });
}

export function formatReview(review: Review, format: (typeof FORMATS)[number]): string {
  if (format === 'json') return JSON.stringify(review, null, 2);
  if (format === 'sarif') return JSON.stringify(toSarif(review), null, 2);
  const strip = (text: string) => (format === 'text' ? text.trim() : text);
  const parts = [strip(review.summary)];
  if (review.comments.length) {
    parts.push(format === 'text' ? '\n---\nInline comments\n' : '\n---\n### Inline comments\n');
    for (const c of review.comments) parts.push(`#### ${c.path}:${c.startLine !== undefined ? `${c.startLine}-` : ''}${c.line}\n\n${strip(c.body)}\n`);
  }
  return parts.join('\n');
}

async function reviewCommand(flags: ReviewFlags): Promise<number> {
  if (!FORMATS.includes(flags.format as never)) throw new Error(`--format must be one of ${FORMATS.join(', ')}, not ${flags.format}`);
  const top = await repositoryTop(process.cwd());
  const config = loadConfigFile(top);
  const base = flags.base ?? (await defaultBase(top));
  const source = gitSource({ top, base, head: flags.head });
  const store = fileStore(path.join(top, '.git', 'crashprobe', 'verdicts.json'));
  const cacheStore = flags.cache ? store : { get: () => undefined, set: store.set };
  const progress = progressLine(process.stderr);
  const logger: Logger = {
    info: (m) => progress.update(m),
    warn: (m) => process.stderr.write(`crashprobe: ${m}\n`),
    error: (m) => process.stderr.write(`crashprobe: ${m}\n`),
  };
  const { client: llm, warning: llmWarning } = llmClientFromEnv(process.env, config.audit.model, { store: cacheStore });
  if (llmWarning) logger.warn(llmWarning);
  const pythonChoice = await findProjectPython({ flag: flags.python, env: process.env, root: top, searchPath: (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter) });
  if (flags.harness) {
    if (pythonChoice.warning) logger.warn(pythonChoice.warning);
    logger.warn(describePython(pythonChoice));
  }
  const { harness, offReason: harnessOffReason } = await chooseHarness(
    config,
    {
      enabled: flags.harness,
      offBecause: '--no-harness',
      fromFork: false,
      python: pythonChoice.python,
      searchPath: (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter),
      sandbox: flags.sandbox as 'auto' | 'bwrap' | 'none',
      onProgress: (p) =>
        progress.update(`crash-testing [${p.filesDone}/${p.filesTotal}] ${p.file}${p.scenario ? ` ${p.scenario} (${p.mode}) ${p.done}/${p.total}` : ''}`),
    },
    logger,
  );
  if (harnessOffReason && flags.harness) logger.warn(harnessOffReason);
  try {
    const review = await reviewPullRequest(source, config, { harness, store: cacheStore, logger, harnessOffReason, llm });
    progress.clear();
    store.save();
    const text = formatReview(review, flags.format as (typeof FORMATS)[number]);
    if (flags.fix) for (const line of await applyRepairs(top, review)) logger.warn(line);
    if (flags.output) await writeFile(flags.output, text + '\n');
    else process.stdout.write(text + '\n');
    return review.conclusion === 'failure' ? 1 : 0;
  } finally {
    await source.dispose();
  }
}

/** `--fix`: each verified repair is written over its file, unless the file in the working tree differs from what was reviewed. */
export async function applyRepairs(top: string, review: Review): Promise<string[]> {
  const said: string[] = [];
  for (const repair of review.repairs ?? []) {
    const file = path.join(top, repair.path);
    const current = await readFile(file, 'utf8').catch(() => undefined);
    if (current !== repair.original) {
      said.push(`--fix: ${repair.path} in the working tree differs from the reviewed version; not changed (review the working tree, without --head, to fix it)`);
      continue;
    }
    await writeFile(file, repair.source);
    said.push(`--fix: repaired ${repair.path}:${repair.qualname} (${repair.verified})`);
  }
  if (review.repairs === undefined || review.repairs.length === 0) said.push('--fix: no verified repair to apply');
  return said;
}
