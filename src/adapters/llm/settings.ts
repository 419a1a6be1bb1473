// How an LLM endpoint is configured, as users configure these clients already
// (OPENAI_API_KEY / OPENAI_BASE_URL, ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, a
// model name). Adapters fill this from the environment or Action inputs; the core
// only receives the LlmClient built here.
import type { LlmClient, LlmPricing, Logger, Store } from '../../core/ports.ts';
import { anthropicClient } from './anthropic.ts';
import type { HttpOptions } from './http.ts';
import { openAiClient } from './openai.ts';
import { cachingClient, limitedClient } from '../../core/audit/llm/wrappers.ts';

export interface LlmSettings {
  model?: string;
  openai: { apiKey?: string; baseUrl?: string };
  anthropic: { apiKey?: string; baseUrl?: string };
}

export type Provider = 'openai' | 'anthropic';

// USD per million tokens, list prices for the models people most often name. A
// model not here has no cost figure and a cost budget cannot stop it (said in
// the summary); a token budget always can.
const PRICES: [RegExp, LlmPricing][] = [
  [/^gpt-4o-mini/, { inputPerMillion: 0.15, outputPerMillion: 0.6 }],
  [/^gpt-4o/, { inputPerMillion: 2.5, outputPerMillion: 10 }],
  [/^gpt-4\.1-nano/, { inputPerMillion: 0.1, outputPerMillion: 0.4 }],
  [/^gpt-4\.1-mini/, { inputPerMillion: 0.4, outputPerMillion: 1.6 }],
  [/^gpt-4\.1/, { inputPerMillion: 2, outputPerMillion: 8 }],
  [/^o4-mini/, { inputPerMillion: 1.1, outputPerMillion: 4.4 }],
  [/^claude-(3-5-)?haiku|^claude-haiku/, { inputPerMillion: 0.8, outputPerMillion: 4 }],
  [/^claude-(3-7-|3-5-)?sonnet|^claude-sonnet/, { inputPerMillion: 3, outputPerMillion: 15 }],
  [/^claude-opus|^claude-3-opus/, { inputPerMillion: 15, outputPerMillion: 75 }],
];

export function pricingFor(model: string): LlmPricing | undefined {
  return PRICES.find(([pattern]) => pattern.test(model))?.[1];
}

/** Which provider the settings select, or why none is. */
export function chooseProvider(settings: LlmSettings): { provider: Provider; model: string } | { reason: string } {
  const model = settings.model?.trim();
  const openai = Boolean(settings.openai.apiKey || settings.openai.baseUrl);
  const anthropic = Boolean(settings.anthropic.apiKey || settings.anthropic.baseUrl);
  if (!model) {
    return openai || anthropic
      ? { reason: 'An LLM endpoint is configured but no model: set audit.model in .github/crashprobe.yml or CRASHPROBE_MODEL.' }
      : { reason: 'No LLM is configured.' };
  }
  if (!openai && !anthropic) {
    return { reason: `audit.model is ${model} but no endpoint is configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for a server other than OpenAI) or ANTHROPIC_API_KEY.` };
  }
  if (openai && anthropic) return { provider: /^claude/i.test(model) ? 'anthropic' : 'openai', model };
  return { provider: anthropic ? 'anthropic' : 'openai', model };
}

export interface ClientOptions extends HttpOptions {
  /** Responses cached by prompt hash; absent: no cache. */
  store?: Store;
  concurrency?: number;
  logger?: Logger;
}

/** The configured client, cached and concurrency-limited, or the reason there is none. */
export function createLlmClient(settings: LlmSettings, options: ClientOptions = {}): { client: LlmClient; provider: Provider } | { reason: string } {
  const choice = chooseProvider(settings);
  if ('reason' in choice) return choice;
  const pricing = pricingFor(choice.model);
  const base =
    choice.provider === 'anthropic'
      ? anthropicClient({ ...options, model: choice.model, apiKey: settings.anthropic.apiKey, baseUrl: settings.anthropic.baseUrl, pricing })
      : openAiClient({ ...options, model: choice.model, apiKey: settings.openai.apiKey, baseUrl: settings.openai.baseUrl, pricing });
  const limited = limitedClient(base, Math.max(1, options.concurrency ?? 4));
  return { client: options.store ? cachingClient(limited, options.store) : limited, provider: choice.provider };
}
