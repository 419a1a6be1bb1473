// Layers around any LlmClient: a response cache keyed by the hash of the whole
// request (model included) in the Store, a concurrency limit, and a meter that
// counts calls, tokens and cost for the summary.
import { createHash } from 'node:crypto';
import type { LlmClient, LlmRequest, LlmResponse, Store } from '../../ports.ts';

export function promptHash(model: string, request: LlmRequest): string {
  return createHash('sha256').update(JSON.stringify({ model, request })).digest('hex');
}

const cachedResponse = (raw: string | undefined): LlmResponse | undefined => {
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as LlmResponse;
    return typeof value.text === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
};

/** Answers a request seen before from the store, at no token cost. */
export function cachingClient(inner: LlmClient, store: Store): LlmClient {
  return {
    model: inner.model,
    pricing: inner.pricing,
    async complete(request) {
      const key = `llm:${promptHash(inner.model, request)}`;
      const hit = cachedResponse(store.get(key));
      if (hit) return { ...hit, cached: true };
      const response = await inner.complete(request);
      store.set(key, JSON.stringify({ text: response.text, inputTokens: response.inputTokens, outputTokens: response.outputTokens, costUsd: response.costUsd }));
      return response;
    },
  };
}

/** At most `limit` requests in flight; the rest wait in order. */
export function limitedClient(inner: LlmClient, limit: number): LlmClient {
  let active = 0;
  const waiting: (() => void)[] = [];
  const acquire = () =>
    active < limit
      ? ((active += 1), Promise.resolve())
      : new Promise<void>((resolve) => waiting.push(() => ((active += 1), resolve())));
  const release = () => {
    active -= 1;
    waiting.shift()?.();
  };
  return {
    model: inner.model,
    pricing: inner.pricing,
    async complete(request) {
      await acquire();
      try {
        return await inner.complete(request);
      } finally {
        release();
      }
    },
  };
}

export interface Usage {
  calls: number;
  cachedCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Undefined when no call reported a cost (a self-hosted server, an unknown model's price). */
  costUsd?: number;
}

export function emptyUsage(): Usage {
  return { calls: 0, cachedCalls: 0, inputTokens: 0, outputTokens: 0 };
}

/** Counts what goes through; cached answers count as calls but cost nothing. */
export function meteredClient(inner: LlmClient, usage: Usage = emptyUsage()): LlmClient & { usage: Usage } {
  return {
    model: inner.model,
    pricing: inner.pricing,
    usage,
    async complete(request) {
      const response = await inner.complete(request);
      usage.calls += 1;
      if (response.cached) {
        usage.cachedCalls += 1;
        return response;
      }
      usage.inputTokens += response.inputTokens;
      usage.outputTokens += response.outputTokens;
      if (response.costUsd !== undefined) usage.costUsd = (usage.costUsd ?? 0) + response.costUsd;
      return response;
    },
  };
}

export function describeUsage(usage: Usage, model: string): string {
  const cost = usage.costUsd === undefined ? 'cost unknown (no price for this model or server)' : `$${usage.costUsd.toFixed(4)}`;
  const cached = usage.cachedCalls ? `, ${usage.cachedCalls} answered from the cache` : '';
  return `LLM audit with ${model}: ${usage.calls} call(s)${cached}, ${usage.inputTokens.toLocaleString('en-US')} input and ${usage.outputTokens.toLocaleString('en-US')} output tokens, ${cost}.`;
}
