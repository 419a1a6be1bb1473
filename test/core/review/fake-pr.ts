// A pull request in memory for the review pipeline's tests: files at the base and
// at the head, patches made by `diff -u`, checkouts as real temporary folders (the
// harness is faked, but scenario roots are resolved on disk), and a fake harness
// that answers with verdicts the test constructs.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScenarioFile } from '../../../src/core/crash/discover.ts';
import type { CampaignResult, ScenarioClass, ScenarioVerdict } from '../../../src/core/crash/protocol.ts';
import type { ChangedFile, HarnessRunner, PullRequestSource } from '../../../src/core/ports.ts';

export function patchOf(before: string | undefined, after: string | undefined): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'h6-diff-'));
  try {
    writeFileSync(path.join(dir, 'a'), before ?? '');
    writeFileSync(path.join(dir, 'b'), after ?? '');
    const out = spawnSync('diff', ['-u', path.join(dir, 'a'), path.join(dir, 'b')], { encoding: 'utf8' }).stdout;
    return out.split('\n').slice(2).join('\n').replace(/\n$/, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function writeTree(files: Record<string, string>, prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), text);
  }
  return dir;
}

export interface FakePr extends PullRequestSource {
  headDir: string;
  baseDir: string;
  dispose(): void;
}

export function fakePr(base: Record<string, string>, head: Record<string, string>, options: { fromFork?: boolean; withBase?: boolean } = {}): FakePr {
  const headDir = writeTree(head, 'h6-head-');
  const baseDir = writeTree(base, 'h6-base-');
  const changed: ChangedFile[] = [];
  for (const p of new Set([...Object.keys(base), ...Object.keys(head)])) {
    if (base[p] === head[p]) continue;
    const status = base[p] === undefined ? 'added' : head[p] === undefined ? 'removed' : 'modified';
    changed.push({ path: p, status, patch: patchOf(base[p], head[p]) });
  }
  const pr: FakePr = {
    repository: 'o/r',
    number: 1,
    baseSha: 'b'.repeat(40),
    headSha: 'h'.repeat(40),
    fromFork: options.fromFork ?? false,
    headDir,
    baseDir,
    changedFiles: async () => changed,
    readFile: async (p) => head[p],
    listFiles: async () => Object.keys(head).sort(),
    checkout: async () => headDir,
    dispose: () => {
      rmSync(headDir, { recursive: true, force: true });
      rmSync(baseDir, { recursive: true, force: true });
    },
  };
  if (options.withBase !== false) {
    pr.readBaseFile = async (p) => base[p];
    pr.checkoutBase = async () => baseDir;
  }
  return pr;
}

/**
 * What the real harness reports besides `executed`: every file holding an executed
 * function was imported by the run, with its sha256 at the commit run (root-relative).
 */
function importsOf(root: string, executed: readonly string[]): { path: string; sha256: string }[] {
  const paths = [...new Set(executed.map((fn) => fn.slice(0, fn.lastIndexOf(':'))))].sort();
  return paths
    .filter((p) => existsSync(path.join(root, p)))
    .map((p) => ({ path: p, sha256: createHash('sha256').update(readFileSync(path.join(root, p))).digest('hex') }));
}

export interface VerdictSpec {
  class: ScenarioClass;
  fully_crash_safe?: boolean;
  double_applies?: boolean;
  imports?: { path: string; sha256: string }[];
  executed?: string[];
}

/** A harness that answers each scenario file with the verdicts `answer` gives for it (per target), and logs the calls. */
export function fakeHarness(answer: (file: ScenarioFile, target: string, at: 'head' | 'base') => VerdictSpec, pr: FakePr, targetsOf: (file: string) => string[]): HarnessRunner & { calls: { at: 'head' | 'base'; files: string[] }[] } {
  const calls: { at: 'head' | 'base'; files: string[] }[] = [];
  return {
    calls,
    async run(files: ScenarioFile[]): Promise<CampaignResult> {
      const scenarios: ScenarioVerdict[] = [];
      let at: 'head' | 'base' = 'head';
      for (const file of files) {
        at = file.root.startsWith(pr.baseDir) ? 'base' : 'head';
        const rel = path.relative(pr.headDir, file.file);
        for (const target of targetsOf(rel)) {
          const spec = answer(file, target, at);
          const mode = { works: spec.class !== 'not_working', half_updated: spec.class === 'unsafe', crash_points: 2 };
          const verdict: ScenarioVerdict & { imports?: unknown; executed?: unknown } = {
            file: path.relative(file.root, file.file),
            root: file.root,
            name: `${target}_scenario`,
            line: 1,
            target,
            resumable: false,
            class: spec.class,
            fully_crash_safe: spec.fully_crash_safe ?? spec.class === 'safe_by_design',
            double_applies: spec.double_applies ?? false,
            modes: { default: mode, autocommit: { ...mode, half_updated: spec.class !== 'safe_by_design' } },
            failures: [],
            notes: [],
            harness_version: '1',
            isolation: 'fork',
          };
          if (spec.imports) verdict.imports = spec.imports;
          else if (spec.executed) verdict.imports = importsOf(file.root, spec.executed);
          if (spec.executed) verdict.executed = spec.executed;
          scenarios.push(verdict);
        }
      }
      calls.push({ at, files: files.map((f) => path.relative(pr.headDir, f.file)) });
      return { scenarios, errors: [], notes: [], runs: 1, seconds: 0 };
    },
  };
}
