// The JSON-lines protocol between the TypeScript driver and the Python harness
// (harness/crashprobe/server.py), and the public JSON of `crashprobe crash --json`
// (../shared/contracts/crash-scenarios.md). Every line the harness prints is parsed here.
import { z } from 'zod';

export const crashPointSchema = z.object({
  path: z.string(),
  line: z.number().int(),
  call: z.string(),
  repetition: z.number().int().positive(),
  /** SQL statements: the statement (whitespace collapsed, literals as `?`); statements sent through one helper are sites of their own. */
  statement: z.string().optional(),
  /** The repository lines that called the site's line, innermost first (at most four). */
  via: z.array(z.string()).optional(),
});
export type CrashPoint = z.infer<typeof crashPointSchema>;

/**
 * What the re-run after a crash (or a repeated normal run) did. `rerun-hangs`: the re-run never
 * finished (every thread blocked, nothing changing, ended after about a second): not fully crash-safe.
 */
export const outcomeSchema = z.enum(['recovered', 'double-applied', 'half-done', 'rerun-fails', 'rerun-hangs']);
export type Outcome = z.infer<typeof outcomeSchema>;

const cellValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export const evidenceCellSchema = z.object({
  db: z.string().optional(),
  table: z.string().optional(),
  key: z.string().optional(),
  column: z.string().optional(),
  file: z.string().optional(),
  emails: z.string().optional(),
  /** State name (before, after_crash, after_rerun, normal, ...) → value. */
  values: z.record(cellValue),
});
export type EvidenceCell = z.infer<typeof evidenceCellSchema>;

export const failureSchema = z.object({
  mode: z.enum(['default', 'autocommit']),
  /** `none` is a normal run that was repeated. */
  crash: z.enum(['soft', 'hard', 'none']),
  point: crashPointSchema.nullable(),
  outcome: outcomeSchema,
  half_updated: z.boolean(),
  orphaned_files: z.array(z.string()).optional(),
  reasons: z.array(z.string()).optional(),
  detail: z.string().optional(),
  error: z.string().nullable().optional(),
  evidence: z.array(evidenceCellSchema),
});
export type Failure = z.infer<typeof failureSchema>;

export const modeResultSchema = z.object({
  works: z.boolean(),
  half_updated: z.boolean(),
  crash_points: z.number().int(),
  crash_points_capped: z.boolean().optional(),
  error: z.string().optional(),
  calibration_notes: z.array(z.string()).optional(),
  difference: z.array(evidenceCellSchema).optional(),
});
export type ModeResult = z.infer<typeof modeResultSchema>;

export const scenarioClassSchema = z.enum(['unsafe', 'safe_by_accident', 'safe_by_design', 'not_working']);
export type ScenarioClass = z.infer<typeof scenarioClassSchema>;

export const scenarioMessageSchema = z.object({
  type: z.literal('scenario'),
  file: z.string(),
  line: z.number().int(),
  name: z.string(),
  target: z.string(),
  resumable: z.boolean(),
  /**
   * `@scenario(..., idempotent=True)`: the call must have its effect once however often it is made, so a
   * double-apply is posted inline on the function. Absent (an older harness, a cached verdict): false.
   */
  idempotent: z.boolean().optional(),
  class: scenarioClassSchema,
  fully_crash_safe: z.boolean(),
  double_applies: z.boolean(),
  modes: z.object({ default: modeResultSchema, autocommit: modeResultSchema }),
  failures: z.array(failureSchema),
  notes: z.array(z.string()),
  harness_version: z.string(),
  isolation: z.enum(['fork', 'spawn']),
  /** Root-relative repository files the normal runs imported, with their sha256 (the review's verdict cache). */
  imports: z.array(z.object({ path: z.string(), sha256: z.string() })).optional(),
  /** `path.py:Qualname` of every repository function the normal runs executed. */
  executed: z.array(z.string()).optional(),
});

export const harnessMessageSchema = z.discriminatedUnion('type', [
  scenarioMessageSchema,
  z.object({ type: z.literal('progress'), scenario: z.string(), mode: z.string(), done: z.number(), total: z.number() }),
  z.object({ type: z.literal('note'), message: z.string() }),
  z.object({
    type: z.literal('error'),
    file: z.string(),
    scenario: z.string().optional(),
    line: z.number().optional(),
    message: z.string(),
  }),
  z.object({ type: z.literal('done'), runs: z.number(), seconds: z.number() }),
]);
export type HarnessMessage = z.infer<typeof harnessMessageSchema>;

export interface HarnessLimits {
  wall_seconds: number;
  cpu_seconds: number;
  memory_mb: number;
  file_size_mb: number;
  processes: number;
}

export const DEFAULT_LIMITS: HarnessLimits = {
  wall_seconds: 20,
  cpu_seconds: 20,
  memory_mb: 1024,
  file_size_mb: 64,
  processes: 64,
};

export interface HarnessRequest {
  scenario_file: string;
  root: string;
  work: string;
  isolation: 'fork' | 'spawn';
  limits: HarnessLimits;
  max_points: number;
}

/** One scenario's verdict, as the public `--json` file lists it (paths relative to the root). */
export interface ScenarioVerdict {
  file: string;
  /** The repository root this scenario was judged in (absolute). */
  root: string;
  name: string;
  line: number;
  target: string;
  resumable: boolean;
  /** The scenario says the call must be idempotent (see scenarioMessageSchema). */
  idempotent?: boolean;
  class: ScenarioClass;
  fully_crash_safe: boolean;
  double_applies: boolean;
  modes: { default: ModeResult; autocommit: ModeResult };
  failures: Failure[];
  notes: string[];
  harness_version: string;
  isolation: 'fork' | 'spawn';
  imports?: { path: string; sha256: string }[];
  executed?: string[];
}

export interface CampaignError {
  file: string;
  scenario?: string;
  line?: number;
  message: string;
}

export interface CampaignResult {
  scenarios: ScenarioVerdict[];
  errors: CampaignError[];
  notes: string[];
  runs: number;
  seconds: number;
}

/** Parses one line the harness printed; a malformed line is an error naming the line. */
export function parseHarnessLine(line: string, source: string): HarnessMessage {
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    throw new Error(`${source}: the harness printed a line that is not JSON: ${line.slice(0, 200)}`);
  }
  const parsed = harnessMessageSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `${source}: the harness printed a message that breaks the protocol at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
    );
  }
  return parsed.data;
}
