// One function's repair: the deterministic candidates first (smallest edit first), each crash-tested; then,
// with an LLM client, at most two LLM rounds, each crash-tested the same way.
// The first candidate that holds is the repair; every attempt is kept, with why
// it did not hold.
import type { Failure, ScenarioVerdict } from '../crash/protocol.ts';
import type { LlmClient, LlmMessage, Logger } from '../ports.ts';
import type { Finding, PyModule } from '../python/model.ts';
import { deterministicRepairs } from './deterministic.ts';
import { askForRepair, followUpPrompt, repairPrompt } from './llm-repair.ts';
import type { RepairAttempt, RepairResult } from './model.ts';
import { verifyCandidate, type VerifyContext } from './verify.ts';

export const MAX_LLM_ROUNDS = 2;

export interface RepairRequest {
  module: PyModule;
  qualname: string;
  /** The function's static findings. */
  findings: readonly Finding[];
  /** The original's worst failing crash scenario (`worstFailureOf`), shown to the LLM. */
  failure?: Failure;
  /** Everything verification needs; `original` holds the function's verdicts. */
  verify: VerifyContext;
  llm?: LlmClient;
  logger?: Logger;
}

/** Only functions a crash showed half-updated (unsafe, or safe by accident) are repaired: code safe by design is left alone. */
export function needsRepair(verdicts: readonly ScenarioVerdict[]): boolean {
  return verdicts.some((v) => v.class === 'unsafe' || v.class === 'safe_by_accident');
}

export async function repairFunction(request: RepairRequest): Promise<RepairResult> {
  const { module, qualname, findings, verify, llm } = request;
  const result: RepairResult = { path: module.path, qualname, original: module.source, attempts: [] };
  if (!needsRepair(verify.original)) {
    result.skipped = 'no crash scenario leaves it half-updated';
    return result;
  }
  const tryCandidate = async (candidate: RepairAttempt['candidate']): Promise<boolean> => {
    request.logger?.info(`crash-testing a ${candidate.origin} repair of ${module.path}:${qualname}`);
    const verification = await verifyCandidate(candidate, verify);
    const attempt = { candidate, verification };
    result.attempts.push(attempt);
    if (verification.holds) result.verified = attempt;
    return verification.holds;
  };

  const deterministic = deterministicRepairs({
    module,
    qualname,
    ruleIds: new Set(findings.map((f) => f.ruleId)),
    resumable: verify.original.some((v) => v.resumable),
  });
  // The smallest edit first; the next only when the crash test rejected it.
  for (const candidate of deterministic) if (await tryCandidate(candidate)) return result;

  if (!llm) {
    if (deterministic.length === 0) result.skipped = 'no deterministic repair fits this code, and no LLM is configured';
    return result;
  }
  const messages: LlmMessage[] = [
    { role: 'user', content: repairPrompt({ module, qualname, findings, failure: request.failure }) },
  ];
  for (let round = 1; round <= MAX_LLM_ROUNDS; round++) {
    const asked = await askForRepair(llm, messages, module, qualname, round);
    messages.push({ role: 'assistant', content: asked.answer });
    let reason = asked.problem;
    if (asked.candidate) {
      if (await tryCandidate(asked.candidate)) return result;
      reason = result.attempts.at(-1)?.verification.reason;
    } else {
      result.attempts.push({
        candidate: { origin: 'llm', strategies: [`llm round ${round}`], path: module.path, qualname, source: module.source, summary: 'no usable answer' },
        verification: { holds: false, reason, scenarios: 0, verdicts: [] },
      });
    }
    messages.push({ role: 'user', content: followUpPrompt(reason ?? 'it did not hold') });
  }
  return result;
}
