// Verification: a candidate is written into a copy of the repository and crash-
// tested with the same scenarios, both modes, both crash kinds. It holds only if
// the function still works in both modes, is never left half-updated, and does
// not double-apply where the original did not.
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScenarioVerdict } from '../crash/protocol.ts';
import type { HarnessRunner, Store } from '../ports.ts';
import { z } from 'zod';
import { HARNESS_VERSION, cachedVerdictSchema, readCached } from '../review/verdict-cache.ts';
import type { RepairCandidate, RepairVerification } from './model.ts';
import { describeFailure } from './describe.ts';

const NOT_COPIED = new Set(['.git', 'node_modules', '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache']);

export interface VerifyContext {
  harness: HarnessRunner;
  /** The folder the original was judged in (the checkout); each candidate runs in a copy of it. */
  repoDir: string;
  /** The scenario files that target the function: file and root, relative to repoDir. */
  scenarios: { file: string; root: string }[];
  /** The original's verdicts on those scenarios. */
  original: ScenarioVerdict[];
  /** Where the copies go (the system's temporary folder by default). */
  tempDir?: string;
  /** Verifications kept by what decides them (the candidate and the scenario files), so a second review re-runs nothing. */
  cache?: Store;
}

/** Crash points × 2 crash kinds, summed over both modes: the count the review states. */
export function scenariosRun(verdicts: readonly ScenarioVerdict[]): number {
  return verdicts.reduce((n, v) => n + 2 * (v.modes.default.crash_points + v.modes.autocommit.crash_points), 0);
}

export async function verifyCandidate(candidate: RepairCandidate, context: VerifyContext): Promise<RepairVerification> {
  const key = verificationKey(candidate, context);
  const cached = context.cache && readCached(context.cache, key, verificationSchema);
  if (cached !== undefined) return cached;
  const verification = await crashTestCopy(candidate, context);
  // A harness that could not run is not a verdict on the candidate: only verdicts are kept.
  if (!verification.reason?.startsWith(HARNESS_FAILED)) context.cache?.set(key, JSON.stringify(verification));
  return verification;
}

const HARNESS_FAILED = 'the crash harness could not run it';

/** A kept verification as it is read back: one that does not parse is crash-tested again. */
const verificationSchema: z.ZodType<RepairVerification> = z.object({
  holds: z.boolean(),
  reason: z.string().optional(),
  scenarios: z.number(),
  verdicts: z.array(cachedVerdictSchema),
});

function verificationKey(candidate: RepairCandidate, context: VerifyContext): string {
  const hash = createHash('sha256').update(`repair ${HARNESS_VERSION}\0${candidate.path}\0${candidate.source}`);
  for (const s of context.scenarios) hash.update(`\0${s.file}\0${s.root}\0${readFileSync(path.join(context.repoDir, s.file), 'utf8')}`);
  for (const v of context.original) hash.update(`\0${v.name}:${v.double_applies}`);
  return `repair:${hash.digest('hex')}`;
}

async function crashTestCopy(candidate: RepairCandidate, context: VerifyContext): Promise<RepairVerification> {
  const copy = mkdtempSync(path.join(context.tempDir ?? os.tmpdir(), 'crashprobe-repair-'));
  try {
    cpSync(context.repoDir, copy, { recursive: true, filter: (src) => !NOT_COPIED.has(path.basename(src)) });
    writeFileSync(path.join(copy, candidate.path), candidate.source);
    const files = context.scenarios.map((s) => ({ file: path.join(copy, s.file), root: path.join(copy, s.root) }));
    const result = await context.harness.run(files);
    const verdicts = result.scenarios.map((v) => ({ ...v, root: path.join(context.repoDir, path.relative(copy, v.root)) }));
    const scenarios = scenariosRun(verdicts);
    if (result.errors.length) {
      const first = result.errors[0]!;
      return { holds: false, reason: `${HARNESS_FAILED}: ${first.message.replaceAll(copy, '.')}`, scenarios, verdicts };
    }
    return { ...judgeRepair(context.original, verdicts, candidate.source, candidate.path), scenarios, verdicts };
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** Scenario by scenario: the first reason the repaired code does not hold, or none. */
export function judgeRepair(
  original: readonly ScenarioVerdict[],
  repaired: readonly ScenarioVerdict[],
  repairedSource?: string,
  repairedPath?: string,
): { holds: boolean; reason?: string } {
  const source = repairedSource === undefined ? undefined : { path: repairedPath ?? '', lines: repairedSource.split('\n') };
  for (const before of original) {
    const after = repaired.find((v) => v.file === before.file && v.name === before.name);
    const name = `scenario \`${before.name}\``;
    if (!after) return { holds: false, reason: `${name} gave no verdict on the repaired code` };
    for (const mode of ['default', 'autocommit'] as const) {
      const result = after.modes[mode];
      if (!result.works) return { holds: false, reason: `${name}: it no longer works in ${mode} mode${result.error ? ` (${firstLine(result.error)})` : ''}` };
    }
    for (const mode of ['default', 'autocommit'] as const) {
      if (!after.modes[mode].half_updated) continue;
      const failure = after.failures.find((f) => f.mode === mode && f.half_updated);
      return { holds: false, reason: `${name}: ${failure ? describeFailure(failure, source) : `a crash in ${mode} mode`} still leaves the data half-updated` };
    }
    if (after.double_applies && !before.double_applies) {
      const failure = after.failures.find((f) => f.outcome === 'double-applied');
      return { holds: false, reason: `${name}: ${failure ? describeFailure(failure, source) : 'a re-run'} now applies the work twice, which the original did not` };
    }
  }
  return { holds: true };
}

function firstLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines.at(-1)!.slice(0, 200);
}
