// The deterministic pass planner of PROBE's appendix B, on the repository's call
// graph, file sizes and directory tree. A file's score weighs cross-file
// connectivity most (one cross-file call partner counts as much as 60 lines);
// files above a threshold get a pass of their own (at most 15% of the files);
// the rest are batched by directory and split to stay within a token budget.
// An own pass carries up to 40 callers and 40 callees from other files as
// snippets, a batch up to 25 of each; calls inside a batch are left out, both
// ends being in the prompt already. Same input, same plan, byte for byte:
// everything is sorted by path, never by discovery order.
import path from 'node:path/posix';
import type { RepoIndex } from '../python/callgraph.ts';

export interface PlanOptions {
  lineWeight: number;
  partnerWeight: number;
  /** A file scoring this much or more gets a pass of its own (subject to ownPassShare). */
  ownPassScore: number;
  /** At most this share of the target files get passes of their own. */
  ownPassShare: number;
  /** Tokens of target files and partner snippets in one pass. */
  tokenBudget: number;
  ownPassPartners: number;
  batchPartners: number;
  /** An approximate call with more candidates than this is too uncertain to count as connectivity. */
  maxApproximateTargets: number;
}

export const DEFAULT_PLAN_OPTIONS: PlanOptions = {
  lineWeight: 1,
  partnerWeight: 60,
  ownPassScore: 1000,
  ownPassShare: 0.15,
  tokenBudget: 60_000,
  ownPassPartners: 40,
  batchPartners: 25,
  maxApproximateTargets: 3,
};

export interface PlannedFile {
  path: string;
  lines: number;
  tokens: number;
  partners: number;
  score: number;
}

export interface PartnerRef {
  path: string;
  qualname: string;
  startLine: number;
  endLine: number;
  resolution: 'exact' | 'approximate';
  /** How many calls link it to the pass's files. */
  links: number;
  tokens: number;
}

export interface PlannedCall {
  from: string;
  to: string;
  resolution: 'exact' | 'approximate';
}

export interface AuditPass {
  id: string;
  kind: 'own' | 'batch';
  directory: string;
  files: PlannedFile[];
  callers: PartnerRef[];
  callees: PartnerRef[];
  calls: PlannedCall[];
  /** Target files plus partner snippets. */
  tokens: number;
  /** Set when one file alone is larger than the token budget. */
  oversize?: boolean;
}

export interface AuditPlan {
  options: PlanOptions;
  passes: AuditPass[];
  skipped: { path: string; reason: string }[];
}

const MAX_SNIPPET_LINES = 80;
const TEST_PATH = /(^|\/)(tests?|testing|[^/]*_tests?)\/|(^|\/)(test_[^/]*|[^/]*_test|conftest|crash_scenarios)\.py$/;

/** Rough tokens of text as the prompt prints it (with line numbers): 4 characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil((text.length + 7 * (text.split('\n').length)) / 4);
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const refKey = (p: string, qualname: string) => `${p}\0${qualname}`;

interface PartnerLink {
  path: string;
  qualname: string;
  resolution: 'exact' | 'approximate';
  links: number;
  /** The first call's line, for module-level code with no function around it. */
  callLine: number;
}

interface FileLinks {
  callers: Map<string, PartnerLink>;
  callees: Map<string, PartnerLink>;
  calls: Map<string, PlannedCall>;
}

function collectLinks(index: RepoIndex, targets: ReadonlySet<string>, maxApproximate: number): Map<string, FileLinks> {
  const links = new Map<string, FileLinks>();
  const of = (p: string) => {
    let entry = links.get(p);
    if (!entry) links.set(p, (entry = { callers: new Map(), callees: new Map(), calls: new Map() }));
    return entry;
  };
  const add = (into: Map<string, PartnerLink>, p: string, qualname: string, resolution: PartnerLink['resolution'], callLine: number) => {
    const key = refKey(p, qualname);
    const existing = into.get(key);
    if (!existing) into.set(key, { path: p, qualname, resolution, links: 1, callLine });
    else {
      existing.links += 1;
      if (resolution === 'exact') existing.resolution = 'exact';
      existing.callLine = Math.min(existing.callLine, callLine);
    }
  };
  for (const edge of index.edges) {
    if (edge.resolution === 'unresolved') continue;
    if (edge.resolution === 'approximate' && edge.targets.length > maxApproximate) continue;
    const resolution = edge.resolution;
    for (const target of edge.targets) {
      if (target.path === edge.from.path) continue;
      const call: PlannedCall = { from: `${edge.from.path}:${edge.from.qualname}`, to: `${target.path}:${target.qualname}`, resolution };
      if (targets.has(edge.from.path)) {
        const file = of(edge.from.path);
        add(file.callees, target.path, target.qualname, resolution, edge.range.startLine);
        file.calls.set(`${call.from}\0${call.to}`, call);
      }
      if (targets.has(target.path)) {
        const file = of(target.path);
        add(file.callers, edge.from.path, edge.from.qualname, resolution, edge.range.startLine);
        file.calls.set(`${call.from}\0${call.to}`, call);
      }
    }
  }
  return links;
}

/** Lines and functions of each file, split once: a plan looks at the same files many times. */
function fileLookup(index: RepoIndex) {
  const cache = new Map<string, { lines: string[]; functions: Map<string, { startLine: number; endLine: number }> }>();
  return (p: string) => {
    let entry = cache.get(p);
    const summary = index.summaries.get(p);
    if (!entry && summary) {
      const functions = new Map<string, { startLine: number; endLine: number }>();
      for (const fn of summary.functions) if (!functions.has(fn.qualname)) functions.set(fn.qualname, fn.range);
      cache.set(p, (entry = { lines: summary.source.split('\n'), functions }));
    }
    return entry;
  };
}

function partnerRef(lookup: ReturnType<typeof fileLookup>, link: PartnerLink): PartnerRef | undefined {
  const file = lookup(link.path);
  if (!file) return undefined;
  const fn = file.functions.get(link.qualname);
  const startLine = fn ? fn.startLine : Math.max(1, link.callLine - 3);
  const endLine = fn ? Math.min(fn.endLine, fn.startLine + MAX_SNIPPET_LINES - 1) : link.callLine + 3;
  const text = file.lines.slice(startLine - 1, endLine).join('\n');
  return { path: link.path, qualname: link.qualname, startLine, endLine, resolution: link.resolution, links: link.links, tokens: estimateTokens(text) };
}

/** Exact before approximate, most linked first, then by path: the snippets most likely to carry a contract. */
function rankPartners(a: PartnerLink, b: PartnerLink): number {
  return (a.resolution === b.resolution ? 0 : a.resolution === 'exact' ? -1 : 1) || b.links - a.links || byPath(a.path, b.path) || byPath(a.qualname, b.qualname);
}

function mergeLinks(maps: Map<string, PartnerLink>[], inside: ReadonlySet<string>): PartnerLink[] {
  const merged = new Map<string, PartnerLink>();
  for (const map of maps) {
    for (const [key, link] of map) {
      if (inside.has(link.path)) continue;
      const existing = merged.get(key);
      if (!existing) merged.set(key, { ...link });
      else {
        existing.links += link.links;
        if (link.resolution === 'exact') existing.resolution = 'exact';
        existing.callLine = Math.min(existing.callLine, link.callLine);
      }
    }
  }
  return [...merged.values()].sort(rankPartners);
}

export function isTestPath(p: string): boolean {
  return TEST_PATH.test(p);
}

/**
 * Plans the passes over `targets` (in a pull request, its changed files; for a
 * whole-repository audit, every file). The rest of the index is context.
 */
export function planPasses(index: RepoIndex, targets: readonly string[], options: Partial<PlanOptions> = {}): AuditPlan {
  const opts: PlanOptions = { ...DEFAULT_PLAN_OPTIONS, ...options };
  const skipped: AuditPlan['skipped'] = [];
  const paths: string[] = [];
  for (const p of [...new Set(targets)].sort(byPath)) {
    if (!index.summaries.has(p)) skipped.push({ path: p, reason: 'not parsed (outside the configured paths, or too large)' });
    else if (isTestPath(p)) skipped.push({ path: p, reason: 'test or crash-scenario file' });
    else paths.push(p);
  }
  const targetSet = new Set(paths);
  const links = collectLinks(index, targetSet, opts.maxApproximateTargets);
  const lookup = fileLookup(index);
  const files: PlannedFile[] = paths.map((p) => {
    const source = index.summaries.get(p)!.source;
    const lines = source.split('\n').length;
    const own = links.get(p);
    const partners = own ? new Set([...own.callers.keys(), ...own.callees.keys()]).size : 0;
    return { path: p, lines, tokens: estimateTokens(source), partners, score: lines * opts.lineWeight + partners * opts.partnerWeight };
  });

  const ownCap = Math.floor(files.length * opts.ownPassShare);
  const ownFiles = files
    .filter((f) => f.score >= opts.ownPassScore)
    .sort((a, b) => b.score - a.score || byPath(a.path, b.path))
    .slice(0, ownCap);
  const ownSet = new Set(ownFiles.map((f) => f.path));

  const groups: PlannedFile[][] = [];
  for (const f of ownFiles) groups.push([f]);
  const byDirectory = new Map<string, PlannedFile[]>();
  for (const f of files) {
    if (ownSet.has(f.path)) continue;
    const dir = path.dirname(f.path);
    byDirectory.set(dir, [...(byDirectory.get(dir) ?? []), f]);
  }
  const batches: PlannedFile[][] = [];
  for (const dir of [...byDirectory.keys()].sort(byPath)) {
    let current: PlannedFile[] = [];
    let tokens = 0;
    for (const f of byDirectory.get(dir)!) {
      if (current.length && tokens + f.tokens > opts.tokenBudget) {
        batches.push(current);
        current = [];
        tokens = 0;
      }
      current.push(f);
      tokens += f.tokens;
    }
    if (current.length) batches.push(current);
  }

  const passes: AuditPass[] = [...groups.map((g) => ['own', g] as const), ...batches.map((g) => ['batch', g] as const)].map(([kind, group], i) => {
    const inside = new Set(group.map((f) => f.path));
    const limit = kind === 'own' ? opts.ownPassPartners : opts.batchPartners;
    let tokens = group.reduce((n, f) => n + f.tokens, 0);
    const pick = (candidates: PartnerLink[]): PartnerRef[] => {
      const picked: PartnerRef[] = [];
      for (const link of candidates) {
        if (picked.length >= limit) break;
        const ref = partnerRef(lookup, link);
        if (!ref || tokens + ref.tokens > opts.tokenBudget) continue;
        tokens += ref.tokens;
        picked.push(ref);
      }
      return picked;
    };
    const fileLinks = group.map((f) => links.get(f.path)).filter((l): l is FileLinks => l !== undefined);
    const callers = pick(mergeLinks(fileLinks.map((l) => l.callers), inside));
    const callees = pick(mergeLinks(fileLinks.map((l) => l.callees), inside));
    const shown = new Set([...callers, ...callees].map((r) => `${r.path}:${r.qualname}`));
    const calls = [...new Map(fileLinks.flatMap((l) => [...l.calls])).values()]
      .filter((c) => shown.has(c.from) || shown.has(c.to))
      .sort((a, b) => byPath(a.from, b.from) || byPath(a.to, b.to));
    const pass: AuditPass = {
      id: `P${String(i + 1).padStart(3, '0')}`,
      kind,
      directory: path.dirname(group[0]!.path),
      files: group,
      callers,
      callees,
      calls,
      tokens,
    };
    if (group.length === 1 && group[0]!.tokens > opts.tokenBudget) pass.oversize = true;
    return pass;
  });
  return { options: opts, passes, skipped };
}

/** The plan as stable text, for snapshots and for the byte-for-byte determinism check. */
export function planJson(plan: AuditPlan): string {
  return JSON.stringify(plan, null, 2);
}

export function describePlan(plan: AuditPlan): string {
  const own = plan.passes.filter((p) => p.kind === 'own').length;
  const files = plan.passes.reduce((n, p) => n + p.files.length, 0);
  const tokens = plan.passes.reduce((n, p) => n + p.tokens, 0);
  return `${plan.passes.length} pass(es) over ${files} file(s) (${own} file(s) with a pass of their own), about ${tokens.toLocaleString('en-US')} tokens of code`;
}
