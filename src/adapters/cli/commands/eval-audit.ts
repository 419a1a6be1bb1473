// `crashprobe eval-audit --reference bugs.json --findings findings.json`: PROBE's
// evaluation on a team's own fixed bugs. The findings are matched to the known
// bugs with the audit's matcher (the six-signal filter, then the LLM judge when
// one is configured, the signals alone otherwise) and scored: recall counts bugs
// matched, precision counts findings matched, F1 their harmonic mean.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { evaluateFindings, llmJudge, signalsOnlyJudge, type EvaluationResult, type ReferenceBug } from '../../../core/audit/matching.ts';
import type { MatchItem } from '../../../core/audit/similarity.ts';
import type { Logger } from '../../../core/ports.ts';
import { llmClientFromEnv } from '../../llm/from-env.ts';

const located = {
  title: z.string(),
  description: z.string().default(''),
  file: z.string(),
  start_line: z.number().int().min(1),
  end_line: z.number().int().min(1),
  function: z.string().optional(),
  category: z.string().optional(),
  trigger: z.string().optional(),
};

export const referenceFileSchema = z.object({
  repository: z.string().optional(),
  /** Where the files the bugs name are, relative to the reference file. */
  root: z.string().optional(),
  bugs: z.array(z.object({ id: z.string(), ...located, fixed_by: z.string().optional() }).passthrough()).min(1),
});

const llmShapedFinding = z.object(located).passthrough();
// A `crashprobe review --format json` finding: path and range instead of file and lines.
const reviewShapedFinding = z
  .object({
    title: z.string(),
    message: z.string(),
    path: z.string(),
    range: z.object({ startLine: z.number().int().min(1), endLine: z.number().int().min(1) }).passthrough(),
    function: z.string().optional(),
    ruleId: z.string(),
  })
  .passthrough()
  .transform((f): MatchItem => ({ title: f.title, description: f.message, file: f.path, start_line: f.range.startLine, end_line: f.range.endLine, function: f.function, category: f.ruleId.replace(/^[^/]*\//, '') }));

export const findingsFileSchema = z.union([
  z.array(z.union([llmShapedFinding, reviewShapedFinding])),
  z.object({ findings: z.array(z.union([llmShapedFinding, reviewShapedFinding])) }).transform((o) => o.findings),
]);

function readJson<T>(file: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>, what: string): T {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: cannot read ${what} as JSON (${(error as Error).message})`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file}: not a valid ${what} file at ${issue?.path.join('.') || '(top level)'}: ${issue?.message}`);
  }
  return parsed.data;
}

/** The cited lines, read from the repository, for the snippet signal. */
function withSnippet<T extends MatchItem>(item: T, root: string | undefined): T {
  if (!root || item.snippet) return item;
  try {
    const lines = readFileSync(path.join(root, item.file), 'utf8').split('\n');
    return { ...item, snippet: lines.slice(item.start_line - 1, item.end_line).join('\n') };
  } catch {
    return item;
  }
}

export function formatEvaluation(result: EvaluationResult, bugs: readonly ReferenceBug[], findings: readonly MatchItem[], matcher: string): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `reference: ${result.bugs} bug(s); findings: ${result.findings}; matcher: ${matcher}`,
    `recall     ${pct(result.recall)}  (${result.matchedBugs.length} of ${result.bugs} bugs found)`,
    `precision  ${pct(result.precision)}  (${result.matchedFindings} of ${result.findings} findings match a bug)`,
    `F1         ${pct(result.f1)}`,
    '',
  ];
  for (const bug of bugs) {
    const by = result.pairs.filter((p) => p.bug === bug.id).map((p) => `#${p.finding + 1}`);
    lines.push(`${by.length ? 'found ' : 'missed'} ${bug.id} ${bug.file}:${bug.start_line} ${bug.title}${by.length ? ` ← finding ${by.join(', ')}` : ''}`);
  }
  const unmatched = findings.map((f, i) => [f, i] as const).filter(([, i]) => !result.pairs.some((p) => p.finding === i));
  for (const [f, i] of unmatched) lines.push(`extra  #${i + 1} ${f.file}:${f.start_line} ${f.title}`);
  return lines.join('\n');
}

interface EvalFlags {
  reference: string;
  findings: string;
  root?: string;
  json: boolean;
  judge: boolean;
}

export function registerEvalAudit(program: Command): void {
  program
    .command('eval-audit')
    .description("score audit findings against a reference set of known bugs: recall, precision, F1 (PROBE's evaluation)")
    .requiredOption('--reference <file>', 'known bugs: {"bugs": [{id, title, description, file, start_line, end_line, function, category}]}')
    .requiredOption('--findings <file>', 'findings: the audit schema ({"findings": [...]}) or `crashprobe review --format json` output')
    .option('--root <dir>', "the repository the files are in, for the code-snippet signal (default: the reference file's root field, else its folder)")
    .option('--no-judge', 'match by the similarity signals alone even when an LLM is configured')
    .option('--json', 'print the result as JSON', false)
    .action(async (flags: EvalFlags) => {
      process.stdout.write(`${await evalAuditCommand(flags, process.env)}\n`);
    });
}

export async function evalAuditCommand(flags: EvalFlags, env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const reference = readJson(flags.reference, referenceFileSchema, 'reference');
  const rawFindings = readJson(flags.findings, findingsFileSchema, 'findings');
  const root = flags.root ?? path.resolve(path.dirname(flags.reference), reference.root ?? '.');
  const bugs = reference.bugs.map((b) => withSnippet(b as ReferenceBug, root));
  const findings = rawFindings.map((f) => withSnippet(f as MatchItem, root));
  const logger: Logger = { info: () => {}, warn: (m) => process.stderr.write(`crashprobe: ${m}\n`), error: (m) => process.stderr.write(`crashprobe: ${m}\n`) };
  const { client, warning } = flags.judge ? llmClientFromEnv(env, undefined) : {};
  if (warning) logger.warn(warning);
  const matcher = client ? `six-signal filter + LLM judge (${client.model})` : `six-signal filter, signals only (${flags.judge ? 'no LLM configured' : '--no-judge'})`;
  const result = await evaluateFindings(bugs, findings, client ? llmJudge(client, logger) : signalsOnlyJudge);
  return flags.json ? JSON.stringify({ matcher, ...result }, null, 2) : formatEvaluation(result, bugs, findings, matcher);
}
