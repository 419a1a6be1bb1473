// A fake LlmClient that replays recorded answers: each answer is keyed by the
// function the prompt asks about (a hash of its code) and the round. A prompt
// with no recorded answer gets "{}", which the repair rejects as not the JSON asked for.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { LlmClient, LlmRequest, LlmResponse } from '../../../src/core/ports.ts';

export interface RecordedAnswer {
  /** Which reference solution the answer repairs, for people reading the file. */
  solution: string;
  /** sha256 of the function's code as the prompt shows it, first 16 hex digits. */
  function: string;
  round: number;
  answer: string;
  /** Where the answer came from. */
  source: string;
}

export function functionKey(prompt: string): string | undefined {
  const code = /```python\n([\s\S]*?)\n```/.exec(prompt)?.[1];
  return code === undefined ? undefined : createHash('sha256').update(code).digest('hex').slice(0, 16);
}

export function replayLlm(answers: readonly RecordedAnswer[]): LlmClient & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    model: 'replay',
    requests,
    async complete(request: LlmRequest): Promise<LlmResponse> {
      requests.push(request);
      const users = request.messages.filter((m) => m.role === 'user');
      const key = functionKey(users[0]?.content ?? '');
      const found = answers.find((a) => a.function === key && a.round === users.length);
      return { text: found?.answer ?? '{}', inputTokens: 0, outputTokens: 0, cached: true };
    },
  };
}

export function loadAnswers(file: string): RecordedAnswer[] {
  return JSON.parse(readFileSync(file, 'utf8')) as RecordedAnswer[];
}
