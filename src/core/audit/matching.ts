// Deduplication and matching (PROBE's A.4): the similarity filter picks likely
// pairs, a judge decides them ("would fixing one fix the other?"), and matches
// merge as connected components. Without a judge, the signals decide alone.
import { z } from 'zod';
import type { LlmClient, Logger } from '../ports.ts';
import { fill } from '../render/template.ts';
import { extractJson } from './findings.ts';
import { likelyPair, signals, signalsSayDuplicate, type MatchItem } from './similarity.ts';

/** Decides each pair: true when fixing the root cause of one fixes the other. */
export type PairJudge = (pairs: readonly (readonly [MatchItem, MatchItem])[]) => Promise<boolean[]>;

export const signalsOnlyJudge: PairJudge = async (pairs) => pairs.map(([a, b]) => signalsSayDuplicate(signals(a, b)));

const JUDGE_JSON_SCHEMA = {
  name: 'duplicate_verdicts',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['verdicts'],
    properties: {
      verdicts: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['pair', 'same_bug', 'reason'],
          properties: {
            pair: { type: 'integer', description: 'The pair number as listed' },
            same_bug: { type: 'boolean', description: 'True when fixing the root cause of one fixes the other' },
            reason: { type: 'string', description: 'One sentence: the mechanism each describes' },
          },
        },
      },
    },
  },
} as const;

const verdictsSchema = z.object({ verdicts: z.array(z.object({ pair: z.number().int(), same_bug: z.boolean(), reason: z.string().optional() })) });

const PAIRS_PER_CALL = 10;

function describeItem(item: MatchItem): string {
  const where = `${item.file}:${item.start_line}-${item.end_line}${item.function ? ` in ${item.function}` : ''}`;
  const code = item.snippet ? `\n  code:\n${item.snippet.split('\n').map((l) => `    ${l}`).join('\n')}` : '';
  return `  ${where} [${item.category ?? 'uncategorized'}] ${item.title}\n  ${item.description}${item.trigger ? `\n  trigger: ${item.trigger}` : ''}${code}`;
}

/** The LLM as judge, ten pairs a call; a pair the answer leaves out counts as different (logged). */
export function llmJudge(llm: LlmClient, logger: Logger, context = ''): PairJudge {
  return async (pairs) => {
    const verdicts: boolean[] = pairs.map(() => false);
    const chunks: number[][] = [];
    for (let i = 0; i < pairs.length; i += PAIRS_PER_CALL) chunks.push(Array.from({ length: Math.min(PAIRS_PER_CALL, pairs.length - i) }, (_, k) => i + k));
    await Promise.all(
      chunks.map(async (chunk) => {
        const listed = chunk.map((i, k) => `### Pair ${k + 1}\nA:\n${describeItem(pairs[i]![0])}\nB:\n${describeItem(pairs[i]![1])}`).join('\n\n');
        const prompt = fill('duplicate-judge', {
          context: context ? `## Repository context\n${context}` : '',
          pairs: listed,
          schema: JSON.stringify(JUDGE_JSON_SCHEMA.schema, null, 2),
        });
        try {
          const response = await llm.complete({ messages: [{ role: 'user', content: prompt }], jsonSchema: JUDGE_JSON_SCHEMA, temperature: 0, maxTokens: 2000 });
          const parsed = verdictsSchema.safeParse(extractJson(response.text));
          if (!parsed.success) throw new Error(`answer breaks the verdict schema: ${parsed.error.issues[0]?.message}`);
          const answered = new Set<number>();
          for (const v of parsed.data.verdicts) {
            const index = chunk[v.pair - 1];
            if (index === undefined) continue;
            verdicts[index] = v.same_bug;
            answered.add(v.pair);
          }
          if (answered.size < chunk.length) logger.warn(`duplicate judge: ${chunk.length - answered.size} pair(s) without a verdict; counted as different bugs`);
        } catch (error) {
          logger.warn(`duplicate judge: ${(error as Error).message}; falling back to the similarity signals for ${chunk.length} pair(s)`);
          for (const i of chunk) verdicts[i] = signalsSayDuplicate(signals(pairs[i]![0], pairs[i]![1]));
        }
      }),
    );
    return verdicts;
  };
}

/** Index pairs (i < j) the filter keeps and the judge confirms. */
export async function duplicatePairs(items: readonly MatchItem[], judge: PairJudge): Promise<[number, number][]> {
  const candidates: [number, number][] = [];
  for (let i = 0; i < items.length; i++) for (let j = i + 1; j < items.length; j++) if (likelyPair(signals(items[i]!, items[j]!))) candidates.push([i, j]);
  const verdicts = await judge(candidates.map(([i, j]) => [items[i]!, items[j]!] as const));
  return candidates.filter((_, k) => verdicts[k]);
}

/** Connected components of the matched pairs, each sorted, in order of their first member. */
export function components(size: number, pairs: readonly [number, number][]): number[][] {
  const parent = Array.from({ length: size }, (_, i) => i);
  const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x]!)));
  for (const [a, b] of pairs) {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < size; i++) groups.set(find(i), [...(groups.get(find(i)) ?? []), i]);
  return [...groups.values()];
}

export interface ReferenceBug extends MatchItem {
  id: string;
}

export interface EvaluationResult {
  bugs: number;
  findings: number;
  matchedBugs: string[];
  matchedFindings: number;
  recall: number;
  precision: number;
  f1: number;
  pairs: { bug: string; finding: number }[];
}

/**
 * PROBE's evaluation, many-to-many: recall counts reference bugs matched by some
 * finding, precision counts findings matched to some bug.
 */
export async function evaluateFindings(bugs: readonly ReferenceBug[], findings: readonly MatchItem[], judge: PairJudge): Promise<EvaluationResult> {
  const candidates: [number, number][] = [];
  for (let b = 0; b < bugs.length; b++) for (let f = 0; f < findings.length; f++) if (likelyPair(signals(bugs[b]!, findings[f]!))) candidates.push([b, f]);
  const verdicts = await judge(candidates.map(([b, f]) => [bugs[b]!, findings[f]!] as const));
  const pairs = candidates.filter((_, k) => verdicts[k]).map(([b, f]) => ({ bug: bugs[b]!.id, finding: f }));
  const matchedBugs = [...new Set(pairs.map((p) => p.bug))];
  const matchedFindings = new Set(pairs.map((p) => p.finding)).size;
  const recall = bugs.length ? matchedBugs.length / bugs.length : 0;
  const precision = findings.length ? matchedFindings / findings.length : 0;
  const f1 = recall + precision ? (2 * recall * precision) / (recall + precision) : 0;
  return { bugs: bugs.length, findings: findings.length, matchedBugs, matchedFindings, recall, precision, f1, pairs };
}
