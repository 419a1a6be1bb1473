// LLM repairs, when an LLM client is given and no deterministic repair held: the
// prompt (templates/repair.md) carries the requirement, the static diagnosis and
// the failing crash scenario; a second round carries why the first did not hold.
// The answer is zod-validated, and the new function replaces the old one in place.
import { z } from 'zod';
import type { Failure } from '../crash/protocol.ts';
import type { Finding, PyModule } from '../python/model.ts';
import { parseModule } from '../python/parse.ts';
import type { LlmClient, LlmMessage } from '../ports.ts';
import { fill } from '../render/template.ts';
import { failureReport } from './describe.ts';
import type { RepairCandidate } from './model.ts';
import { applyEdits, indentOf, lineEnd, lineStart, type TextEdit } from './source-edit.ts';
import { findFunction } from './strategies/own-transaction.ts';

export const REQUIREMENT = 'The process can be killed at any point, and re-running it must be safe.';

export const llmAnswerSchema = z.object({
  function: z.string().min(1),
  imports: z.array(z.string()).default([]),
  explanation: z.string().default(''),
});
export type LlmAnswer = z.infer<typeof llmAnswerSchema>;

const ANSWER_JSON_SCHEMA = {
  type: 'object',
  properties: {
    function: { type: 'string' },
    imports: { type: 'array', items: { type: 'string' } },
    explanation: { type: 'string' },
  },
  required: ['function', 'imports', 'explanation'],
  additionalProperties: false,
};

export interface LlmRepairInput {
  module: PyModule;
  qualname: string;
  findings: readonly Finding[];
  /** The original's worst failing scenario. */
  failure?: Failure;
}

export function repairPrompt({ module, qualname, findings, failure }: LlmRepairInput): string {
  const fn = findFunction(module, qualname);
  if (!fn) throw new Error(`${module.path}: function ${qualname} not found; the repair needs the module the review parsed`);
  const lines = module.source.split('\n');
  return fill('repair', {
    requirement: REQUIREMENT,
    path: module.path,
    code: lines.slice(fn.range.startLine - 1, fn.range.endLine).join('\n'),
    diagnosis: findings.length
      ? findings.map((f) => `- line ${f.range.startLine}: ${f.message} (${f.ruleId}). ${f.hint}`).join('\n')
      : '- no static check fired; the crash scenario below is the only evidence.',
    scenario: failure ? failureReport(failure, { path: module.path, lines }) : 'None was recorded.',
  });
}

export function followUpPrompt(reason: string): string {
  return `${REQUIREMENT}\n\nYour repair was crash-tested and does not hold: ${reason}.\n\nAnswer again with one JSON object of the same shape: the whole corrected function.`;
}

/** One round: ask, validate, and turn the answer into a candidate (or say what was wrong with it). */
export async function askForRepair(
  llm: LlmClient,
  messages: LlmMessage[],
  module: PyModule,
  qualname: string,
  round: number,
): Promise<{ candidate?: RepairCandidate; problem?: string; answer: string }> {
  const response = await llm.complete({
    system: 'You repair Python code so that it is crash-safe. You answer with JSON only.',
    messages,
    jsonSchema: { name: 'crash_safe_repair', schema: ANSWER_JSON_SCHEMA },
    maxTokens: 4096,
    temperature: 0,
  });
  const answer = response.text;
  const parsed = parseAnswer(answer);
  if (!parsed.success) return { problem: `the answer was not the JSON asked for (${parsed.error})`, answer };
  const applied = applyAnswer(module, qualname, parsed.data);
  if ('problem' in applied) return { problem: applied.problem, answer };
  return {
    answer,
    candidate: {
      origin: 'llm',
      strategies: [`llm round ${round}`],
      path: module.path,
      qualname,
      source: applied.source,
      summary: parsed.data.explanation.trim() || `rewritten by ${llm.model}`,
    },
  };
}

export function parseAnswer(text: string): { success: true; data: LlmAnswer } | { success: false; error: string } {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) return { success: false, error: 'no JSON object in it' };
  let data: unknown;
  try {
    data = JSON.parse(text.slice(start, end + 1));
  } catch (error) {
    return { success: false, error: (error as Error).message };
  }
  const result = llmAnswerSchema.safeParse(data);
  if (!result.success) return { success: false, error: result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
  return { success: true, data: result.data };
}

/** The module with the function replaced by the answer's (re-indented to where it sits) and the answer's imports added. */
export function applyAnswer(module: PyModule, qualname: string, answer: LlmAnswer): { source: string } | { problem: string } {
  const fn = findFunction(module, qualname);
  if (!fn) return { problem: `${qualname} is not in ${module.path}` };
  const code = dedent(answer.function.replace(/^```\w*\n|```\s*$/g, ''));
  const checked = parseModule(module.path, code);
  const defined = checked.tree.rootNode.namedChildren.map((n) => (n.type === 'decorated_definition' ? n.childForFieldName('definition') : n));
  if (checked.errors.length) return { problem: 'the function it wrote does not parse' };
  if (!defined.some((n) => n?.type === 'function_definition' && n.childForFieldName('name')?.text === fn.name)) {
    return { problem: `the answer does not define ${fn.name}()` };
  }
  const indent = indentOf(module.source, fn.node);
  const text = code.trimEnd().split('\n').map((line) => (line.trim() ? indent + line : line)).join('\n') + '\n';
  // Decorators stay as written: the answer replaces the def and its body (and any decorators it repeats replace them).
  const holder = fn.node.parent?.type === 'decorated_definition' && /^\s*@/.test(code) ? fn.node.parent : fn.node;
  const edits: TextEdit[] = [{ start: lineStart(module.source, holder.startIndex), end: lineEnd(module.source, holder.endIndex - 1), text }];
  const missing = answer.imports.map((i) => i.trim()).filter((i) => /^(import|from)\s/.test(i) && !module.source.split('\n').some((l) => l.trim() === i));
  if (missing.length) edits.push(importsEdit(module, missing));
  return { source: applyEdits(module.source, edits) };
}

function importsEdit(module: PyModule, imports: string[]): TextEdit {
  const root = module.tree.rootNode;
  const last = root.namedChildren.filter((s) => s.type === 'import_statement' || s.type === 'import_from_statement').at(-1);
  const at = last ? lineEnd(module.source, last.endIndex - 1) : 0;
  return { start: at, end: at, text: imports.join('\n') + (last ? '\n' : '\n\n') };
}

function dedent(code: string): string {
  const lines = code.replace(/\r\n/g, '\n').split('\n');
  const widths = lines.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)![0].length);
  const common = widths.length ? Math.min(...widths) : 0;
  return lines.map((l) => l.slice(Math.min(common, /^[ \t]*/.exec(l)![0].length))).join('\n').replace(/^\n+/, '');
}
