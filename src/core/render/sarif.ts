// A Review as SARIF 2.1.0, for code scanning and other SARIF readers. Pure.
// partialFingerprints carry the findings' own fingerprints (rule, path and
// normalized code), so a finding keeps its identity when lines move.
// Text the PR controls keeps its full length here (SARIF is where the whole value
// lives), made inert for plain-text viewers by inertPlain: markers, mentions and
// tags broken by a zero-width space, control characters dropped. LLM-written
// findings say so in their message and carry `llmWritten` in their properties.
import { z } from 'zod';
import type { Review, ReviewFinding } from '../model/review.ts';
import { findingLabel } from './findings-text.ts';
import { inertPlain } from './inert.ts';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
export const FINGERPRINT_KEY = 'crashprobe/v1';

const message = z.object({ text: z.string().min(1) });
const level = z.enum(['error', 'warning', 'note']);

/** The part of SARIF 2.1.0 crashprobe writes, checked before it leaves. */
export const sarifLogSchema = z.object({
  $schema: z.literal(SARIF_SCHEMA),
  version: z.literal('2.1.0'),
  runs: z
    .array(
      z.object({
        tool: z.object({
          driver: z.object({
            name: z.string(),
            version: z.string().optional(),
            rules: z.array(
              z.object({
                id: z.string(),
                name: z.string().optional(),
                shortDescription: message,
                defaultConfiguration: z.object({ level }),
                properties: z.object({ tags: z.array(z.string()) }).optional(),
              }),
            ),
          }),
        }),
        results: z.array(
          z.object({
            ruleId: z.string(),
            ruleIndex: z.number().int().min(0),
            level,
            message,
            locations: z
              .array(
                z.object({
                  physicalLocation: z.object({
                    artifactLocation: z.object({ uri: z.string(), uriBaseId: z.string().optional() }),
                    region: z.object({
                      startLine: z.number().int().min(1),
                      startColumn: z.number().int().min(1).optional(),
                      endLine: z.number().int().min(1).optional(),
                      endColumn: z.number().int().min(1).optional(),
                    }),
                  }),
                }),
              )
              .min(1),
            partialFingerprints: z.record(z.string()),
            properties: z.record(z.unknown()).optional(),
          }),
        ),
        properties: z.record(z.unknown()).optional(),
      }),
    )
    .length(1),
});
export type SarifLog = z.infer<typeof sarifLogSchema>;

const LEVEL = { error: 'error', warning: 'warning', info: 'note' } as const;

export interface SarifOptions {
  toolVersion?: string;
}

export function toSarif(review: Review, options: SarifOptions = {}): SarifLog {
  const rules: SarifLog['runs'][number]['tool']['driver']['rules'] = [];
  const ruleIndex = new Map<string, number>();
  for (const finding of review.findings) {
    if (ruleIndex.has(finding.ruleId)) continue;
    ruleIndex.set(finding.ruleId, rules.length);
    rules.push({
      id: inertPlain(finding.ruleId, 200),
      name: inertPlain(finding.title, 500),
      shortDescription: { text: inertPlain(finding.title || finding.ruleId, 1_000) || 'crashprobe finding' },
      defaultConfiguration: { level: LEVEL[finding.severity] },
      properties: { tags: ['crash-safety', finding.source] },
    });
  }
  const log: SarifLog = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'crashprobe', ...(options.toolVersion ? { version: options.toolVersion } : {}), rules } },
        results: review.findings.map((finding) => toResult(finding, ruleIndex.get(finding.ruleId)!)),
        properties: { repository: review.repository, headSha: review.headSha, conclusion: review.conclusion, counts: review.counts },
      },
    ],
  };
  return sarifLogSchema.parse(log);
}

function toResult(finding: ReviewFinding, index: number): SarifLog['runs'][number]['results'][number] {
  const { range } = finding;
  const endLine = Math.max(range.startLine, range.endLine);
  return {
    ruleId: inertPlain(finding.ruleId, 200),
    ruleIndex: index,
    level: LEVEL[finding.severity],
    message: { text: messageText(finding) },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: relativeUri(finding.path), uriBaseId: '%SRCROOT%' },
          // SARIF columns are 1-based; the model's are tree-sitter's 0-based ones.
          region: { startLine: Math.max(1, range.startLine), startColumn: range.startColumn + 1, endLine, endColumn: range.endColumn + 1 },
        },
      },
    ],
    partialFingerprints: { [FINGERPRINT_KEY]: finding.fingerprint },
    properties: {
      source: finding.source,
      ...(finding.function ? { function: inertPlain(finding.function) } : {}),
      confirmedByCrash: Boolean(finding.confirmedBy),
      ...(finding.source === 'audit' ? { llmWritten: true } : {}),
    },
  };
}

function messageText(finding: ReviewFinding): string {
  const label = findingLabel(finding);
  const text = `${label ? `${label}. ` : ''}${finding.message || finding.title}${finding.hint ? `\nRepair: ${finding.hint}` : ''}`;
  return inertPlain(text) || finding.ruleId;
}

/** A repository path as a relative URI reference (RFC 3986): each segment percent-encoded, `/` kept. */
export function relativeUri(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
