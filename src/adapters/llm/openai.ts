// OpenAI-compatible chat completions: OpenAI, Azure OpenAI's v1 endpoint, vLLM,
// Ollama, llama.cpp's server. Structured output through `response_format:
// json_schema` where the server supports it; a server that rejects it (400
// naming response_format) is asked again without, and the validator downstream
// takes the JSON out of the prose.
import { z } from 'zod';
import type { LlmClient, LlmPricing, LlmRequest, LlmResponse } from '../../core/ports.ts';
import { LlmHttpError, postJson, type HttpOptions } from './http.ts';

const responseSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullable().optional(), refusal: z.string().nullable().optional() }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).partial().optional(),
});

const errorSchema = z.object({ error: z.object({ message: z.string(), type: z.string().nullable().optional(), code: z.unknown().optional() }) });

export function openAiErrorMessage(_status: number, body: unknown): string {
  const parsed = errorSchema.safeParse(body);
  if (parsed.success) return `${parsed.data.error.message}${parsed.data.error.type ? ` (${parsed.data.error.type})` : ''}`;
  return typeof body === 'string' ? body.slice(0, 300) : JSON.stringify(body).slice(0, 300);
}

export interface OpenAiOptions extends HttpOptions {
  model: string;
  apiKey?: string;
  /** Up to and including /v1, e.g. http://localhost:11434/v1. */
  baseUrl?: string;
  pricing?: LlmPricing;
}

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export function openAiClient(options: OpenAiOptions): LlmClient {
  const url = `${(options.baseUrl ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '')}/chat/completions`;
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  let structuredOutput = true;
  const http = { ...options, secrets: [options.apiKey] };
  // Servers differ in what they accept: older vLLM and llama.cpp reject json_schema,
  // OpenAI's reasoning models want max_completion_tokens and no temperature. A 400
  // naming the parameter adjusts the request once per parameter, and is remembered.
  const adjustments: { test: RegExp; adjust: (body: Record<string, unknown>) => boolean }[] = [
    { test: /response_format|json_schema/i, adjust: (body) => ((structuredOutput = false), delete body.response_format) },
    { test: /max_completion_tokens/i, adjust: (body) => (body.max_tokens === undefined ? false : ((body.max_completion_tokens = body.max_tokens), delete body.max_tokens)) },
    { test: /temperature/i, adjust: (body) => delete body.temperature },
  ];
  const learned = new Set<number>();
  const postAdjusting = async (body: Record<string, unknown>): Promise<unknown> => {
    for (const i of learned) adjustments[i]!.adjust(body);
    for (;;) {
      try {
        return await postJson(url, headers, body, openAiErrorMessage, http);
      } catch (error) {
        const fix = error instanceof LlmHttpError && error.status === 400 ? adjustments.findIndex((a, i) => !learned.has(i) && a.test.test(error.message)) : -1;
        if (fix < 0 || !adjustments[fix]!.adjust(body)) throw error;
        learned.add(fix);
      }
    }
  };
  return {
    model: options.model,
    pricing: options.pricing,
    async complete(request: LlmRequest): Promise<LlmResponse> {
      const messages = [...(request.system ? [{ role: 'system', content: request.system }] : []), ...request.messages];
      const body: Record<string, unknown> = { model: options.model, messages };
      if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
      if (request.temperature !== undefined) body.temperature = request.temperature;
      if (structuredOutput && request.jsonSchema) {
        body.response_format = { type: 'json_schema', json_schema: { name: request.jsonSchema.name, schema: request.jsonSchema.schema, strict: true } };
      }
      const raw = await postAdjusting(body);
      const parsed = responseSchema.safeParse(raw);
      if (!parsed.success) throw new LlmHttpError(`${url} answered 200 with no chat completion (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}); is OPENAI_BASE_URL an OpenAI-compatible /v1 endpoint?`, 200, false);
      const choice = parsed.data.choices[0]!;
      if (choice.message.refusal) throw new LlmHttpError(`${options.model} refused: ${choice.message.refusal}`, 200, false);
      const inputTokens = parsed.data.usage?.prompt_tokens ?? 0;
      const outputTokens = parsed.data.usage?.completion_tokens ?? 0;
      return { text: choice.message.content ?? '', inputTokens, outputTokens, costUsd: costOf(options.pricing, inputTokens, outputTokens) };
    },
  };
}

export function costOf(pricing: LlmPricing | undefined, inputTokens: number, outputTokens: number): number | undefined {
  if (!pricing) return undefined;
  return (inputTokens * pricing.inputPerMillion + outputTokens * pricing.outputPerMillion) / 1_000_000;
}
