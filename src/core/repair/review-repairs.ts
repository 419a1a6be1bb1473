// The review's repair step: for each touched function a crash showed unsafe or
// safe by accident, a repair is made and crash-tested; a verified one becomes the
// `suggestion` of the function's leading finding (a suggestion block when the
// lines it replaces are inside one hunk of the diff, a unified diff otherwise),
// and a candidate that did not hold is said in the notes, with why. The findings
// given are left as they are: the ones with a suggestion come back as new values.
import path from 'node:path';
import type { Failure, ScenarioVerdict } from '../crash/protocol.ts';
import type { HarnessRunner, LlmClient, Logger, Store } from '../ports.ts';
import type { FunctionReport, PyModule } from '../python/model.ts';
import type { ReviewFinding } from '../model/review.ts';
import { SEVERITY_RANK } from '../python/model.ts';
import type { RepairResult } from './model.ts';
import { changedRegion, mergeRepairs, unifiedDiff } from './patch.ts';
import { needsRepair, repairFunction } from './repair.ts';

export interface ReviewRepairInput {
  functions: { module: PyModule; report: FunctionReport; verdicts: ScenarioVerdict[]; failure?: Failure }[];
  /** The head commit's tree, as the harness ran it. */
  checkout: string;
  /** A scenario file's path (relative to the checkout) → the file and the root it is judged in (absolute). */
  scenarioFile: (relativePath: string) => { file: string; root: string };
  harness: HarnessRunner;
  /** Keeps each candidate's verification (the review's verdict store). */
  cache?: Store;
  llm?: LlmClient;
  logger?: Logger;
  /** The review's findings after matching: the verified repair is attached to (a copy of) one of them. */
  findings: readonly ReviewFinding[];
  hunkLines: ReadonlyMap<string, ReadonlySet<number>>;
}

export interface ReviewRepairs {
  results: RepairResult[];
  applicable: AppliedRepair[];
  /** The findings given, in order; the leading finding of a repaired function with its `suggestion`. */
  findings: ReviewFinding[];
  /** Candidates that did not hold, and repairs `--fix` cannot apply together. */
  notes: string[];
}

/** A verified repair as `crashprobe review --fix` applies it. */
export interface AppliedRepair {
  path: string;
  qualname: string;
  original: string;
  source: string;
  verified: string;
}

export async function repairReviewedFunctions(input: ReviewRepairInput): Promise<ReviewRepairs> {
  const results: RepairResult[] = [];
  const applicable: AppliedRepair[] = [];
  const notes: string[] = [];
  const suggestions = new Map<ReviewFinding, NonNullable<ReviewFinding['suggestion']>>();
  for (const { module, report, verdicts, failure } of input.functions) {
    if (!needsRepair(verdicts)) continue;
    const where = `\`${module.path}:${report.fn.qualname}\``;
    const scenarios = [...new Set(verdicts.map((v) => v.file))].map((p) => {
      const { file, root } = input.scenarioFile(p);
      return { file: path.relative(input.checkout, file), root: path.relative(input.checkout, root) || '.' };
    });
    const result = await repairFunction({
      module,
      qualname: report.fn.qualname,
      findings: report.findings,
      failure,
      verify: { harness: input.harness, repoDir: input.checkout, scenarios, original: verdicts, cache: input.cache },
      llm: input.llm,
      logger: input.logger,
    });
    results.push(result);
    for (const attempt of result.attempts.filter((a) => !a.verification.holds)) {
      notes.push(`${where}: a repair was tried (${attempt.candidate.origin}: ${attempt.candidate.strategies.join(', ')}) and dropped: ${attempt.verification.reason ?? 'it did not hold'}.`);
    }
    if (!result.verified) continue;
    const { candidate, verification } = result.verified;
    const verified = `crash-tested: ${verification.scenarios} scenarios in both modes`;
    const region = changedRegion(module.source, candidate.source);
    const finding = leadingFinding(input.findings, module.path, report.fn.qualname);
    if (!region || !finding) continue;
    const lines = input.hunkLines.get(module.path) ?? new Set<number>();
    const inOneHunk = Array.from({ length: region.endLine - region.startLine + 1 }, (_, i) => region.startLine + i).every((l) => lines.has(l));
    suggestions.set(finding, {
      ...region,
      verified: `${candidate.origin} repair, ${verified}: ${candidate.summary}`,
      ...(inOneHunk ? {} : { diff: unifiedDiff(module.path, module.source, candidate.source) }),
    });
    // --fix applies every verified repair: a second one in the same module joins the first when their lines do
    // not overlap (each was crash-tested on its own, and they change different functions).
    const sameFile = applicable.find((a) => a.path === module.path);
    if (!sameFile) {
      applicable.push({ path: module.path, qualname: report.fn.qualname, original: module.source, source: candidate.source, verified });
    } else {
      const merged = mergeRepairs(module.source, sameFile.source, candidate.source);
      if (merged === undefined) {
        notes.push(`${where}: its verified repair overlaps another one in the same file; \`--fix\` applies the first, run it again for this one.`);
      } else {
        sameFile.source = merged;
        sameFile.qualname = `${sameFile.qualname}, ${report.fn.qualname}`;
        sameFile.verified = `${sameFile.verified}; ${report.fn.qualname}: ${verified}`;
      }
    }
  }
  const findings = input.findings.map((f) => {
    const suggestion = suggestions.get(f);
    return suggestion ? { ...f, suggestion } : f;
  });
  return { results, applicable, findings, notes };
}

/** The finding a reviewer reads first for the function: the one a crash confirms, else the most severe. */
function leadingFinding(findings: readonly ReviewFinding[], file: string, qualname: string): ReviewFinding | undefined {
  return findings
    .filter((f) => f.path === file && f.function === qualname)
    .sort((a, b) => Number(Boolean(b.confirmedBy)) - Number(Boolean(a.confirmedBy)) || SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity])[0];
}
