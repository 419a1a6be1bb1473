// Precision of the static rules on real library code (issue 15): the scan re-run
// on each library of harness/corpus (crash-tested too) and of test/corpus/libraries
// (scan-only, pinned copies) as a user would run it (its package folder,
// the default excludes), each finding matched to the judgement a person recorded
// after reading the code (test/corpus/judged-findings.json). A finding nobody has
// judged yet is listed as unjudged, never counted as right.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { readPythonSources, parsedTree } from '../src/adapters/cli/python-tree.ts';
import { scanRepository } from '../src/core/python/scan.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const JUDGED_FILE = path.join(root, 'test/corpus/judged-findings.json');
/** Where the corpus projects live: each a folder with a SOURCE.md naming the repository and commit. */
export const CORPUS_DIRS = [path.join(root, 'harness/corpus'), path.join(root, 'test/corpus/libraries')];

/** Every corpus project folder (one with a SOURCE.md), by name. */
export function corpusProjects(dirs: readonly string[] = CORPUS_DIRS): Map<string, string> {
  const found = new Map<string, string>();
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || !existsSync(path.join(dir, entry.name, 'SOURCE.md'))) continue;
      if (found.has(entry.name)) throw new Error(`corpus project ${entry.name} is in two places (${found.get(entry.name)} and ${dir}); rename one`);
      found.set(entry.name, path.join(dir, entry.name));
    }
  }
  return found;
}

const judgementSchema = z.enum(['true', 'latent', 'false']);
export type Judgement = z.infer<typeof judgementSchema>;

const judgedFindingSchema = z
  .object({
    project: z.string(),
    file: z.string(),
    function: z.string(),
    rule: z.string(),
    /** Where it was when judged, for a reader; matching uses `id` (it survives lines moving). */
    line: z.number().int().positive(),
    /** The finding's id from `scan --json`: rule and a hash of path, function and the reported code. */
    id: z.string(),
    judgement: judgementSchema,
    reason: z.string().min(10),
  })
  .strict();
export type JudgedFinding = z.infer<typeof judgedFindingSchema>;

const judgedFileSchema = z
  .object({
    about: z.string(),
    /** project → the package folder or file scanned, relative to the project's folder (harness/corpus/<project> or test/corpus/libraries/<project>). */
    projects: z.record(z.string()),
    /** The lowest precision on library code the test accepts: what the judged list shows now. */
    floor: z.number().min(0).max(1),
    /** Projects under test/corpus/libraries: local copies of fetched code, not committed, so absent in a clean clone. */
    fetched: z.array(z.string()),
    findings: z.array(judgedFindingSchema),
    /** Findings judged false whose rule was then fixed: no longer reported; kept with the fix, for the record. */
    resolved: z.array(judgedFindingSchema.extend({ fixed: z.string() }).strict()),
  })
  .strict();
export type JudgedList = z.infer<typeof judgedFileSchema>;

export function readJudged(file = JUDGED_FILE): JudgedList {
  const parsed = judgedFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${path.relative(root, file)}: ${issue?.path.join('.') || '(root)'}: ${issue?.message}; fix the entry (see the schema in bench/_corpus-precision.ts)`);
  }
  return parsed.data;
}

export interface Presence {
  /** project → package, for the projects whose folder is here. */
  present: Record<string, string>;
  /** Fetched projects (`fetched` in the judged list) whose folder is not here: not scanned, not checked. */
  absent: string[];
}

export const ABSENT_NOTE = 'not present here (fetched copy, not committed)';

/** Which judged projects can be scanned here. A committed project (not in `fetched`) that is missing is an error. */
export function presence(judged: JudgedList, folders = corpusProjects()): Presence {
  const present: Record<string, string> = {};
  const absent: string[] = [];
  for (const [project, target] of Object.entries(judged.projects)) {
    if (folders.has(project)) present[project] = target;
    else if (judged.fetched.includes(project)) absent.push(project);
    else throw new Error(`judged-findings.json names project ${project}, but no corpus folder with a SOURCE.md has that name and it is not listed as fetched; add it or remove the project`);
  }
  return { present, absent };
}

export interface CorpusFinding {
  project: string;
  file: string;
  function: string;
  rule: string;
  line: number;
  id: string;
  message: string;
}

/** The findings of a scan of each project's package, as `crashprobe scan <project folder>/<package>` reports them. */
export async function scanCorpus(projects: Record<string, string>, folders = corpusProjects()): Promise<CorpusFinding[]> {
  const found: CorpusFinding[] = [];
  for (const [project, target] of Object.entries(projects)) {
    const folder = folders.get(project);
    if (!folder) throw new Error(`judged-findings.json names project ${project}, but no corpus folder with a SOURCE.md has that name; add it or remove the project`);
    const { files } = scanRepository(parsedTree(await readPythonSources(path.join(folder, target))).modules);
    for (const file of files) {
      for (const report of file.reports) {
        for (const f of report.findings) {
          found.push({ project, file: f.path, function: f.function ?? report.fn.qualname, rule: f.ruleId, line: f.range.startLine, id: f.id, message: f.message });
        }
      }
    }
  }
  return found;
}

export interface ProjectTally {
  true: number;
  latent: number;
  false: number;
  unjudged: number;
}

export interface PrecisionTally {
  perProject: Map<string, ProjectTally>;
  total: ProjectTally;
  /** (true + latent) / judged findings reported now; undefined when the scan reports none. */
  precision: number | undefined;
  /** The same over the first reading: the findings reported now and those resolved by a rule fix since. */
  precisionAsFirstJudged: number | undefined;
  unjudged: CorpusFinding[];
  /** Judged entries of the scanned projects the scan no longer reports (the code or the rule changed): to be moved to `resolved` or removed. */
  stale: JudgedFinding[];
  /** (true + latent) / judged over the whole judged list as recorded, absent projects included. */
  precisionAsRecorded: number | undefined;
}

/** `scanned`: the projects the scan ran on (all by default); judgements of the others are neither matched nor stale. */
export function tally(found: readonly CorpusFinding[], judged: JudgedList, scanned: readonly string[] = Object.keys(judged.projects)): PrecisionTally {
  const byKey = new Map(judged.findings.map((j) => [keyOf(j), j]));
  const empty = (): ProjectTally => ({ true: 0, latent: 0, false: 0, unjudged: 0 });
  const perProject = new Map<string, ProjectTally>(scanned.map((p) => [p, empty()]));
  const total = empty();
  const unjudged: CorpusFinding[] = [];
  const matched = new Set<string>();
  for (const f of found) {
    const j = byKey.get(keyOf(f));
    const row = perProject.get(f.project) ?? empty();
    perProject.set(f.project, row);
    if (!j) {
      unjudged.push(f);
      row.unjudged += 1;
      total.unjudged += 1;
      continue;
    }
    matched.add(keyOf(j));
    row[j.judgement] += 1;
    total[j.judgement] += 1;
  }
  const judgedNow = total.true + total.latent + total.false;
  const resolvedFalse = judged.resolved.filter((r) => r.judgement === 'false').length;
  const resolvedRight = judged.resolved.length - resolvedFalse;
  const firstTotal = judgedNow + judged.resolved.length;
  const recordedRight = judged.findings.filter((j) => j.judgement !== 'false').length;
  return {
    perProject,
    total,
    precision: judgedNow ? (total.true + total.latent) / judgedNow : undefined,
    precisionAsFirstJudged: firstTotal ? (total.true + total.latent + resolvedRight) / firstTotal : undefined,
    unjudged,
    stale: judged.findings.filter((j) => scanned.includes(j.project) && !matched.has(keyOf(j))),
    precisionAsRecorded: judged.findings.length ? recordedRight / judged.findings.length : undefined,
  };
}

function keyOf(f: { project: string; file: string; function: string; rule: string; id: string }): string {
  return [f.project, f.file, f.function, f.rule, f.id].join('\0');
}

export interface FloorCheck {
  precision: number | undefined;
  /** What the figure was measured on, for the output. */
  basis: string;
}

/**
 * The figure the floor applies to. With every project here: precision measured now.
 * With fetched projects absent, the floor (measured over all projects) says nothing of a
 * subset, so it applies to the judged list as recorded; the present projects' scan is
 * held to their recorded entries by the unjudged and stale checks.
 */
export function floorCheck(t: PrecisionTally, where: Presence): FloorCheck {
  if (where.absent.length === 0) return { precision: t.precision, basis: 'measured now on every project' };
  return {
    precision: t.precisionAsRecorded,
    basis: `the judged list as recorded (${where.absent.join(', ')} ${ABSENT_NOTE}; the present projects' findings are checked against their recorded judgements)`,
  };
}

export function percent(value: number | undefined): string {
  return value === undefined ? 'n/a (no findings)' : `${(value * 100).toFixed(0)}%`;
}
