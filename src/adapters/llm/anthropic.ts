// Anthropic's messages API. Structured output by forcing one tool whose input
// schema is the requested JSON Schema: the answer is that tool call's input.
import { z } from 'zod';
import type { LlmClient, LlmPricing, LlmRequest, LlmResponse } from '../../core/ports.ts';
import { LlmHttpError, postJson, type HttpOptions } from './http.ts';
import { costOf } from './openai.ts';

const contentBlock = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('tool_use'), name: z.string(), input: z.unknown() }),
  z.object({ type: z.string() }).passthrough(),
]);

const responseSchema = z.object({
  content: z.array(contentBlock),
  stop_reason: z.string().nullable().optional(),
  usage: z.object({
    input_tokens: z.number(),
    output_tokens: z.number(),
    cache_creation_input_tokens: z.number().nullable().optional(),
    cache_read_input_tokens: z.number().nullable().optional(),
  }),
});

const errorSchema = z.object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) });

export function anthropicErrorMessage(_status: number, body: unknown): string {
  const parsed = errorSchema.safeParse(body);
  if (parsed.success) return `${parsed.data.error.message} (${parsed.data.error.type})`;
  return typeof body === 'string' ? body.slice(0, 300) : JSON.stringify(body).slice(0, 300);
}

export interface AnthropicOptions extends HttpOptions {
  model: string;
  apiKey?: string;
  baseUrl?: string;
  pricing?: LlmPricing;
}

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
const DEFAULT_MAX_TOKENS = 8192;

export function anthropicClient(options: AnthropicOptions): LlmClient {
  const url = `${(options.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/messages`;
  const headers: Record<string, string> = { 'anthropic-version': '2023-06-01', ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}) };
  const http = { ...options, secrets: [options.apiKey] };
  return {
    model: options.model,
    pricing: options.pricing,
    async complete(request: LlmRequest): Promise<LlmResponse> {
      const body: Record<string, unknown> = {
        model: options.model,
        max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
        messages: request.messages,
      };
      if (request.system) body.system = request.system;
      if (request.temperature !== undefined) body.temperature = request.temperature;
      if (request.jsonSchema) {
        body.tools = [{ name: request.jsonSchema.name, description: 'Report the answer through this tool.', input_schema: request.jsonSchema.schema }];
        body.tool_choice = { type: 'tool', name: request.jsonSchema.name };
      }
      const raw = await postJson(url, headers, body, anthropicErrorMessage, http);
      const parsed = responseSchema.safeParse(raw);
      if (!parsed.success) throw new LlmHttpError(`${url} answered 200 with no message (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}); is ANTHROPIC_BASE_URL the messages API?`, 200, false);
      const blocks = parsed.data.content;
      const tool = blocks.find((b): b is { type: 'tool_use'; name: string; input: unknown } => b.type === 'tool_use');
      const text = tool ? JSON.stringify(tool.input) : blocks.map((b) => (b.type === 'text' ? (b as { text: string }).text : '')).join('');
      const usage = parsed.data.usage;
      const inputTokens = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
      return { text, inputTokens, outputTokens: usage.output_tokens, costUsd: costOf(options.pricing, inputTokens, usage.output_tokens) };
    },
  };
}
