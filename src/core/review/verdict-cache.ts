// Crash verdicts cached by what decides them. The key is the harness version, the
// scenario file and the source of every function it targets; the value keeps, with
// the verdicts, every repository file the normal run imported (with its sha256) and
// the repository functions it executed. A cached verdict is used only while every
// file it imported still hashes the same at the commit under review, so a change to
// a helper in another file re-runs it. Several records live under one key (the
// head's and the base's imports differ), most recent first. Values are read back
// through zod: a record that does not parse is a miss, never a cast.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { failureSchema, modeResultSchema, scenarioClassSchema, type ScenarioVerdict } from '../crash/protocol.ts';
import type { Store } from '../ports.ts';

export const HARNESS_VERSION = '1';

/** Records kept under one key: the head's, the base's and a few earlier pushes'. */
const RECORDS_PER_KEY = 4;

export const importedFileSchema = z.object({ path: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) });
export type ImportedFile = z.infer<typeof importedFileSchema>;

/** The fields the harness adds to a verdict (helper H5's protocol change); optional until every harness sends them. */
export const runFootprintSchema = z.object({
  root: z.string().optional(),
  imports: z.array(importedFileSchema).optional(),
  executed: z.array(z.string()).optional(),
});

/** A verdict as it is kept in the store (the harness's extra fields kept as they came). */
export const cachedVerdictSchema = z
  .object({
    file: z.string(),
    root: z.string(),
    name: z.string(),
    line: z.number().int(),
    target: z.string(),
    resumable: z.boolean(),
    class: scenarioClassSchema,
    fully_crash_safe: z.boolean(),
    double_applies: z.boolean(),
    modes: z.object({ default: modeResultSchema, autocommit: modeResultSchema }),
    failures: z.array(failureSchema),
    notes: z.array(z.string()),
    harness_version: z.string(),
    isolation: z.enum(['fork', 'spawn']),
  })
  .passthrough();

const recordSchema = z.object({
  verdicts: z.array(cachedVerdictSchema),
  /** Repository-relative paths (not root-relative) of every file the runs imported, with their sha256. */
  imports: z.array(importedFileSchema),
  /** `path.py:Qualname`, repository-relative, of every repository function the normal runs executed. */
  executed: z.array(z.string()),
});
export type VerdictRecord = z.infer<typeof recordSchema>;

const recordsSchema = z.array(recordSchema);

/** What a later review learns about a scenario file from its last run, whatever its key: which functions it reaches. */
const footprintIndexSchema = z.object({ executed: z.array(z.string()), imports: z.array(z.string()) });
export type ScenarioFootprint = z.infer<typeof footprintIndexSchema>;

export function verdictKey(scenarioText: string, targetSources: readonly string[]): string {
  const hash = createHash('sha256').update(`harness ${HARNESS_VERSION}\0${scenarioText}`);
  for (const source of targetSources) hash.update(`\0${source}`);
  return `verdict:${hash.digest('hex')}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The value under `key` as `schema` reads it; undefined when it is absent or does not parse (a miss, never a cast). */
export function readCached<T>(store: Store, key: string, schema: z.ZodType<T>): T | undefined {
  const raw = store.get(key);
  if (raw === undefined) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The cached record under `key` whose imported files all still hash the same,
 * as `hashOf` reads them at the commit under review (undefined: the file is gone).
 */
export async function cachedRecord(
  store: Store,
  key: string,
  hashOf: (repoPath: string) => Promise<string | undefined>,
): Promise<VerdictRecord | undefined> {
  for (const record of readCached(store, key, recordsSchema) ?? []) {
    let fresh = true;
    for (const file of record.imports) {
      if ((await hashOf(file.path)) !== file.sha256) {
        fresh = false;
        break;
      }
    }
    if (fresh) return record;
  }
  return undefined;
}

export function saveRecord(store: Store, key: string, record: VerdictRecord): void {
  const same = (a: VerdictRecord) => JSON.stringify(a.imports) === JSON.stringify(record.imports);
  const kept = (readCached(store, key, recordsSchema) ?? []).filter((r) => !same(r));
  store.set(key, JSON.stringify([record, ...kept].slice(0, RECORDS_PER_KEY)));
}

/** The verdicts of a record as the review uses them (the scenario path as the review names it). */
export function recordVerdicts(record: VerdictRecord, file: string): ScenarioVerdict[] {
  return record.verdicts.map((v) => ({ ...v, file }));
}

/**
 * The imports and executed functions the harness reported for a file's verdicts,
 * made repository-relative (`prefix` is the root's folder inside the repository, '' at the top).
 */
export function footprintOf(verdicts: readonly unknown[], prefix: string): { imports: ImportedFile[]; executed: string[] } {
  const imports = new Map<string, string>();
  const executed = new Set<string>();
  for (const verdict of verdicts) {
    const parsed = runFootprintSchema.safeParse(verdict);
    if (!parsed.success) continue;
    const root = parsed.data.root;
    // Root-relative as the harness reports them; an absolute path under the root is made relative too.
    const join = (p: string) => {
      const relative = root && p.startsWith(`${root}/`) ? p.slice(root.length + 1) : p;
      return prefix ? `${prefix}/${relative}` : relative;
    };
    for (const file of parsed.data.imports ?? []) imports.set(join(file.path), file.sha256);
    for (const fn of parsed.data.executed ?? []) executed.add(join(fn));
  }
  return {
    imports: [...imports].sort(([a], [b]) => a.localeCompare(b)).map(([path, hash]) => ({ path, sha256: hash })),
    executed: [...executed].sort(),
  };
}

export function footprintKey(scenarioPath: string): string {
  return `scenario-footprint:${scenarioPath}`;
}

export function lastFootprint(store: Store, scenarioPath: string): ScenarioFootprint | undefined {
  return readCached(store, footprintKey(scenarioPath), footprintIndexSchema);
}

export function saveFootprint(store: Store, scenarioPath: string, record: VerdictRecord): void {
  const footprint: ScenarioFootprint = { executed: record.executed, imports: record.imports.map((f) => f.path) };
  store.set(footprintKey(scenarioPath), JSON.stringify(footprint));
}

export function memoryStore(): Store & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return { entries, get: (key) => entries.get(key), set: (key, value) => void entries.set(key, value) };
}
