// Precision of the static rules on real library code (issue 15): the scan re-run on each
// project of test/corpus/judged-findings.json as a user would run it (its package folder or
// file, the default excludes), each finding matched to the judgement a person recorded after
// reading the code. A finding nobody has judged yet is listed as unjudged, never counted as right.
// Projects come from Debian packages that scripts/setup.sh installs (pinned by their Debian
// version; on every clone) or from local fetched copies in test/corpus/libraries (optional,
// not committed). Two sets are kept apart: `tuned` (code the rules were tuned on) and
// `unseen` (code they never were): precision on the second is the honest figure for new code.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { readPythonSources, parsedTree } from '../src/adapters/cli/python-tree.ts';
import { scanRepository } from '../src/core/python/scan.ts';
import { assembleProject, assembleScript, debianPackage, expectVersion } from '../test/support/debian-corpus.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const JUDGED_FILE = path.join(root, 'test/corpus/judged-findings.json');
/** Where the optional fetched copies live: each a folder with a SOURCE.md naming the repository and commit. */
export const LIBRARIES_DIR = path.join(root, 'test/corpus/libraries');

const setSchema = z.enum(['tuned', 'unseen']);
export type CorpusSet = z.infer<typeof setSchema>;

const projectSchema = z.discriminatedUnion('from', [
  z
    .object({
      from: z.literal('debian'),
      package: z.string(),
      /** The Debian version the judgements were read against; another installed version fails until re-read. */
      version: z.string(),
      /** The package folder or module scanned, relative to dist-packages; or, with `script`, the name the script is scanned under. */
      target: z.string(),
      /** An installed script (no .py suffix) that is the package's code, e.g. /usr/bin/buku. */
      script: z.string().optional(),
      /** Paths relative to dist-packages left out of the scan: the package's own tests, shipped inside it. */
      without: z.array(z.string()).optional(),
      /** Where the package installs its Python code when not under dist-packages (offlineimap3: /usr/share/offlineimap3); `target` and `without` are then relative to it. */
      root: z.string().startsWith('/').optional(),
      set: setSchema,
    })
    .strict(),
  z
    .object({
      from: z.literal('fetched'),
      /** The package folder or file scanned, relative to test/corpus/libraries/<project>. */
      target: z.string(),
      set: setSchema,
    })
    .strict(),
]);
export type CorpusProject = z.infer<typeof projectSchema>;

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
    projects: z.record(projectSchema),
    /** The lowest precision on the tuned set the test accepts: what the judged list shows now. */
    floor: z.number().min(0).max(1),
    /** The unseen set as last measured: a record, not a floor; the test fails on any change until it is recorded again. Partial: a handful of Debian packages so far (the projects with `set: unseen`). */
    unseen: z.object({ judged: z.number().int().min(0), right: z.number().int().min(0) }).strict(),
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
  const unknown = parsed.data.findings.concat(parsed.data.resolved).filter((f) => !(f.project in parsed.data.projects));
  if (unknown.length) throw new Error(`${path.relative(root, file)}: finding of unknown project ${unknown[0]!.project}; add the project to "projects" or remove the finding`);
  const unseenFetched = Object.entries(parsed.data.projects).filter(([, p]) => p.set === 'unseen' && p.from !== 'debian');
  if (unseenFetched.length) throw new Error(`${path.relative(root, file)}: unseen project ${unseenFetched[0]![0]} must come from Debian (a fetched copy may be absent, and the unseen figure is checked as measured, not as recorded)`);
  return parsed.data;
}

/** The judged list cut down to one set's projects, findings and resolved entries. */
export function onlySet(judged: JudgedList, set: CorpusSet): JudgedList {
  const projects = Object.fromEntries(Object.entries(judged.projects).filter(([, p]) => p.set === set));
  const inSet = (f: { project: string }): boolean => f.project in projects;
  return { ...judged, projects, findings: judged.findings.filter(inSet), resolved: judged.resolved.filter(inSet) };
}

export interface Presence {
  /** project → the folder or file to scan, for the projects here. */
  present: Record<string, string>;
  /** Fetched projects whose folder is not here: not scanned, not checked. */
  absent: string[];
  /** Removes the temporary project folders assembled from Debian packages. */
  dispose: () => void;
}

export const ABSENT_NOTE = 'not present here (fetched copy, not committed)';

/**
 * Where each judged project is to be scanned. A Debian project is assembled from its
 * installed package: a missing package or another version throws (run scripts/setup.sh;
 * re-read the code). A fetched project is scanned where its folder is, else listed absent.
 */
export function presence(judged: JudgedList, librariesDir = LIBRARIES_DIR): Presence {
  const present: Record<string, string> = {};
  const absent: string[] = [];
  const assembled: string[] = [];
  const dispose = (): void => {
    for (const dir of assembled) rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const [project, spec] of Object.entries(judged.projects)) {
      if (spec.from === 'debian') {
        const pkg = debianPackage(spec.package);
        expectVersion(pkg, spec.version);
        const dir = spec.script ? assembleScript(pkg, spec.script, spec.target) : assembleProject(pkg, [], [spec.target.split('/')[0]!], spec.without, spec.root);
        assembled.push(dir);
        const target = path.join(dir, spec.target);
        if (!existsSync(target)) throw new Error(`Debian package ${spec.package} ${pkg.version} has no ${spec.target} under ${spec.root ?? 'dist-packages'}: fix "target" of ${project} in judged-findings.json`);
        present[project] = target;
      } else {
        const folder = path.join(librariesDir, project);
        if (existsSync(path.join(folder, 'SOURCE.md'))) present[project] = path.join(folder, spec.target);
        else absent.push(project);
      }
    }
  } catch (error) {
    dispose();
    throw error;
  }
  return { present, absent, dispose };
}

/** Folders of test/corpus/libraries (with a SOURCE.md) that no fetched project of the list names: copies nobody scans. */
export function unusedLibraryFolders(judged: JudgedList, librariesDir = LIBRARIES_DIR): string[] {
  if (!existsSync(librariesDir)) return [];
  return readdirSync(librariesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(librariesDir, e.name, 'SOURCE.md')))
    .map((e) => e.name)
    .filter((name) => judged.projects[name]?.from !== 'fetched');
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

/** The findings of a scan of each project's package, as `crashprobe scan <folder or file>` reports them. */
export async function scanCorpus(projects: Record<string, string>): Promise<CorpusFinding[]> {
  const found: CorpusFinding[] = [];
  for (const [project, target] of Object.entries(projects)) {
    const { files } = scanRepository(parsedTree(await readPythonSources(target)).modules);
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

/** `scanned`: the projects the scan ran on (all by default); judgements of the others are neither matched nor stale. Findings of projects not in `judged` are left out. */
export function tally(found: readonly CorpusFinding[], judged: JudgedList, scanned: readonly string[] = Object.keys(judged.projects)): PrecisionTally {
  const byKey = new Map(judged.findings.map((j) => [keyOf(j), j]));
  const empty = (): ProjectTally => ({ true: 0, latent: 0, false: 0, unjudged: 0 });
  const mine = scanned.filter((p) => p in judged.projects);
  const perProject = new Map<string, ProjectTally>(mine.map((p) => [p, empty()]));
  const total = empty();
  const unjudged: CorpusFinding[] = [];
  const matched = new Set<string>();
  for (const f of found) {
    if (!(f.project in judged.projects)) continue;
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
    stale: judged.findings.filter((j) => mine.includes(j.project) && !matched.has(keyOf(j))),
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
 * The figure the tuned set's floor applies to (`t` and `absent` of the tuned set). With every
 * project here: precision measured now. With fetched projects absent, the floor (measured over
 * all projects) says nothing of a subset, so it applies to the judged list as recorded; the
 * present projects' scan is held to their recorded entries by the unjudged and stale checks.
 */
export function floorCheck(t: PrecisionTally, absent: readonly string[]): FloorCheck {
  if (absent.length === 0) return { precision: t.precision, basis: 'measured now on every tuned project' };
  return {
    precision: t.precisionAsRecorded,
    basis: `the tuned set's judged list as recorded (${absent.join(', ')} ${ABSENT_NOTE}; the present projects' findings are checked against their recorded judgements)`,
  };
}

export function percent(value: number | undefined): string {
  return value === undefined ? 'n/a (no findings)' : `${(value * 100).toFixed(0)}%`;
}
