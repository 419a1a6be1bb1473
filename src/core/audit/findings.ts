// The audit's findings as the LLM must give them (a JSON Schema sent with the
// prompt) and as crashprobe keeps them (zod-checked). A finding that breaks the
// schema or names a file or lines that do not exist is dropped with the reason
// logged: an LLM's answer is input, never trusted.
import { z } from 'zod';

export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;

export const llmFindingSchema = z.object({
  title: z.string().min(3).max(200),
  description: z.string().min(10).max(4000),
  file: z.string().min(1),
  start_line: z.number().int().min(1),
  end_line: z.number().int().min(1),
  function: z.string().max(200),
  category: z.string().min(2).max(60),
  severity: z.enum(SEVERITIES),
  confidence: z.number().min(0).max(1),
  trigger: z.string().min(3).max(2000),
  suggested_fix: z.string().max(4000),
});

export type LlmFinding = z.infer<typeof llmFindingSchema>;

/** The JSON Schema twin of llmFindingSchema, strict-mode compatible (every property required, no extras). */
export const FINDINGS_JSON_SCHEMA = {
  name: 'audit_findings',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['findings'],
    properties: {
      findings: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['title', 'description', 'file', 'start_line', 'end_line', 'function', 'category', 'severity', 'confidence', 'trigger', 'suggested_fix'],
          properties: {
            title: { type: 'string', description: 'One line naming the bug' },
            description: { type: 'string', description: 'The mechanism: what goes wrong, where, and why' },
            file: { type: 'string', description: 'Path of a target file, as listed' },
            start_line: { type: 'integer', description: 'First line of the faulty code' },
            end_line: { type: 'integer', description: 'Last line of the faulty code' },
            function: { type: 'string', description: 'Qualified name of the enclosing function, or "" at module level' },
            category: { type: 'string', description: 'Short kebab-case kind of bug' },
            severity: { type: 'string', enum: [...SEVERITIES] },
            confidence: { type: 'number', description: 'Probability, 0 to 1, that the bug is real and reachable' },
            trigger: { type: 'string', description: 'The input, call sequence or crash point that shows the bug' },
            suggested_fix: { type: 'string', description: 'How to fix the root cause' },
          },
        },
      },
    },
  },
} as const;

/** A finding that passed every check, located in a real file and lines. */
export interface AuditFinding extends LlmFinding {
  /** Which run (0-based) and pass found it. */
  run: number;
  passId: string;
  /** The cited source lines, for snippet similarity and fingerprints. */
  snippet: string;
}

export interface DroppedFinding {
  passId: string;
  reason: string;
  title?: string;
}

export interface ValidatedFindings {
  findings: AuditFinding[];
  dropped: DroppedFinding[];
}

const answerSchema = z.object({ findings: z.array(z.unknown()) });

/** Strips a ```json fence or prose around the first JSON object, as models without structured output add. */
export function extractJson(text: string): unknown {
  const trimmed = text.trim();
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n```/.exec(trimmed)?.[1];
  const candidate = fenced ?? trimmed.slice(Math.max(0, trimmed.indexOf('{')), trimmed.lastIndexOf('}') + 1);
  return JSON.parse(candidate);
}

/**
 * Checks one pass's answer. `targets` maps each file the pass audited to its lines;
 * findings elsewhere are dropped (a pass reports on its targets only).
 */
export function validateFindings(text: string, targets: ReadonlyMap<string, readonly string[]>, where: { run: number; passId: string }): ValidatedFindings {
  const dropped: DroppedFinding[] = [];
  let answer: z.infer<typeof answerSchema>;
  try {
    const parsed = answerSchema.safeParse(extractJson(text));
    if (!parsed.success) return { findings: [], dropped: [{ passId: where.passId, reason: `answer is not {"findings": [...]}: ${parsed.error.issues[0]?.message}` }] };
    answer = parsed.data;
  } catch (error) {
    return { findings: [], dropped: [{ passId: where.passId, reason: `answer is not JSON: ${(error as Error).message}` }] };
  }
  const findings: AuditFinding[] = [];
  for (const raw of answer.findings) {
    const parsed = llmFindingSchema.safeParse(raw);
    const title = typeof (raw as { title?: unknown })?.title === 'string' ? (raw as { title: string }).title : undefined;
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      dropped.push({ passId: where.passId, title, reason: `breaks the schema at ${issue?.path.join('.') || '(finding)'}: ${issue?.message}` });
      continue;
    }
    const finding = parsed.data;
    const file = finding.file.replace(/^\.\//, '');
    const lines = targets.get(file);
    if (!lines) {
      dropped.push({ passId: where.passId, title, reason: `names ${finding.file}, which is not a target of this pass` });
      continue;
    }
    if (finding.end_line < finding.start_line || finding.end_line > lines.length) {
      dropped.push({ passId: where.passId, title, reason: `lines ${finding.start_line}-${finding.end_line} do not exist in ${file} (${lines.length} lines)` });
      continue;
    }
    const snippet = lines.slice(finding.start_line - 1, finding.end_line).join('\n');
    findings.push({ ...finding, file, ...where, snippet });
  }
  return { findings, dropped };
}
