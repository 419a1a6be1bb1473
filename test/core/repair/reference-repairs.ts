// Repairs on the harness's reference suite: every solution crash-tested once, then
// each unsafe or safe-by-accident target repaired (deterministic, then the LLM
// given) and every candidate crash-tested. Shared by the test and bench/repair.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pool, runScenarioFiles, type CampaignOptions } from '../../../src/adapters/harness/campaign.ts';
import { referenceSolutions as allReferenceSolutions } from '../../support/reference-solutions.ts';
import type { ScenarioVerdict } from '../../../src/core/crash/protocol.ts';
import type { HarnessRunner, LlmClient } from '../../../src/core/ports.ts';
import { analyzeModule } from '../../../src/core/python/analyze.ts';
import { parseModule } from '../../../src/core/python/parse.ts';
import { repairFunction } from '../../../src/core/repair/repair.ts';
import type { RepairResult } from '../../../src/core/repair/model.ts';
import { worstFailureOf } from '../../../src/core/crash/worst-failure.ts';
import { classRank } from '../../../src/core/review/conclusion.ts';

export interface SolutionRepair {
  solution: string;
  intended: string;
  verdicts: ScenarioVerdict[];
  result?: RepairResult;
}

export function referenceSolutions(): { dir: string; name: string; intended: string }[] {
  return allReferenceSolutions().map(({ dir, name, expected }) => ({ dir, name, intended: expected.class }));
}

export async function repairReferenceSuite(
  options: CampaignOptions,
  llm: LlmClient | undefined,
  only?: (name: string) => boolean,
): Promise<SolutionRepair[]> {
  return repairSolutions(referenceSolutions().filter((s) => !only || only(s.name)), options, llm);
}

/** The same for any solution folders (a root with crash_scenarios.py whose scenarios all target one function). */
export async function repairSolutions(
  solutions: readonly { dir: string; name: string; intended: string }[],
  options: CampaignOptions,
  llm: LlmClient | undefined,
): Promise<SolutionRepair[]> {
  const harness: HarnessRunner = { run: (files) => runScenarioFiles(files, { ...options, concurrency: 1 }) };
  const original = await runScenarioFiles(
    solutions.map((s) => ({ file: path.join(s.dir, 'crash_scenarios.py'), root: s.dir })),
    options,
  );
  if (original.errors.length) throw new Error(`the solutions did not run cleanly (run one with: node bin/crashprobe.js crash <folder>): ${original.errors[0]!.message}`);
  const out: SolutionRepair[] = [];
  await pool(solutions, options.concurrency, async (s) => {
    const verdicts = original.scenarios.filter((v) => v.root === s.dir);
    const entry: SolutionRepair = { solution: s.name, intended: s.intended, verdicts };
    out.push(entry);
    const target = verdicts[0]?.target;
    if (!target) return;
    const [modulePath, qualname] = target.split(':') as [string, string];
    const module = parseModule(modulePath, readFileSync(path.join(s.dir, modulePath), 'utf8'));
    const report = analyzeModule(module).find((r) => r.fn.qualname === qualname);
    const worstVerdict = [...verdicts].sort((a, b) => classRank(b.class) - classRank(a.class))[0];
    entry.result = await repairFunction({
      module,
      qualname,
      findings: report?.findings ?? [],
      failure: worstVerdict && worstFailureOf(worstVerdict),
      verify: { harness, repoDir: s.dir, scenarios: [{ file: 'crash_scenarios.py', root: '.' }], original: verdicts },
      llm,
    });
  });
  return out.sort((a, b) => a.solution.localeCompare(b.solution));
}
