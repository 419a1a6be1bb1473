// Both providers against nock, with the response shapes the real APIs send:
// success, structured output in the request, errors, 429 with retry-after, 5xx.
import nock from 'nock';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { anthropicClient } from '../../../src/adapters/llm/anthropic.ts';
import { retryAfterMs } from '../../../src/adapters/llm/http.ts';
import { openAiClient } from '../../../src/adapters/llm/openai.ts';
import { createLlmClient } from '../../../src/adapters/llm/settings.ts';
import { cachingClient, meteredClient } from '../../../src/core/audit/llm/wrappers.ts';
import { memoryStore } from '../../../src/core/review/verdict-cache.ts';

const KEY = 'sk-test-SECRET-0123456789';
const schema = { name: 'answer', schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false } };

function openAiCompletion(content: string, usage = { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 }) {
  return {
    id: 'chatcmpl-abc123',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage,
    system_fingerprint: 'fp_0123',
  };
}

function anthropicMessage(content: unknown[], usage = { input_tokens: 200, output_tokens: 40 }) {
  return { id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-sonnet-4-20250514', content, stop_reason: 'tool_use', stop_sequence: null, usage };
}

const sleeps: number[] = [];
const sleep = async (ms: number) => void sleeps.push(ms);

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => {
  nock.cleanAll();
  sleeps.length = 0;
});

describe('OpenAI-compatible chat completions', () => {
  it('sends the model, messages and a json_schema response_format with the bearer key, and counts tokens and cost', async () => {
    let sent: Record<string, unknown> = {};
    const scope = nock('https://api.openai.com', { reqheaders: { authorization: `Bearer ${KEY}` } })
      .post('/v1/chat/completions', (body) => ((sent = body), true))
      .reply(200, openAiCompletion('{"ok":true}'));
    const client = openAiClient({ model: 'gpt-4o-mini', apiKey: KEY, pricing: { inputPerMillion: 0.15, outputPerMillion: 0.6 }, sleep });
    const response = await client.complete({ system: 'be brief', messages: [{ role: 'user', content: 'hi' }], jsonSchema: schema, maxTokens: 50 });
    expect(sent).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      max_tokens: 50,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: schema.schema, strict: true } },
    });
    expect(response).toEqual({ text: '{"ok":true}', inputTokens: 120, outputTokens: 30, costUsd: (120 * 0.15 + 30 * 0.6) / 1e6 });
    expect(scope.isDone()).toBe(true);
  });

  it('waits as long as retry-after says on 429, then succeeds', async () => {
    const scope = nock('http://127.0.0.1:8000')
      .post('/v1/chat/completions')
      .reply(429, { error: { message: 'Rate limit reached for gpt-4o-mini', type: 'requests', param: null, code: 'rate_limit_exceeded' } }, { 'retry-after': '7' })
      .post('/v1/chat/completions')
      .reply(200, openAiCompletion('{"ok":true}'));
    const client = openAiClient({ model: 'local', baseUrl: 'http://127.0.0.1:8000/v1', sleep });
    const response = await client.complete({ messages: [{ role: 'user', content: 'hi' }] });
    expect(response.text).toBe('{"ok":true}');
    expect(sleeps).toEqual([7000]);
    expect(scope.isDone()).toBe(true);
  });

  it('backs off exponentially on 5xx and gives up with the provider message after the retries', async () => {
    nock('https://api.openai.com').post('/v1/chat/completions').times(3).reply(503, { error: { message: 'The server is overloaded', type: 'server_error' } });
    const client = openAiClient({ model: 'gpt-4o', apiKey: KEY, retries: 2, backoffMs: 100, sleep });
    await expect(client.complete({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(/503: The server is overloaded \(server_error\).*gave up after 3 attempts/);
    expect(sleeps).toEqual([100, 200]);
  });

  it('does not retry a 401 and never puts the key in the error', async () => {
    nock('https://api.openai.com')
      .post('/v1/chat/completions')
      .reply(401, { error: { message: `Incorrect API key provided: ${KEY}.`, type: 'invalid_request_error', code: 'invalid_api_key' } });
    const client = openAiClient({ model: 'gpt-4o', apiKey: KEY, sleep });
    const error = await client.complete({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: Error) => e);
    expect(String(error)).toMatch(/401: Incorrect API key provided: \[redacted\]/);
    expect(String(error)).not.toContain(KEY);
    expect(sleeps).toEqual([]);
  });

  it('asks again without response_format when the server rejects json_schema (older vLLM, llama.cpp)', async () => {
    const bodies: Record<string, unknown>[] = [];
    nock('http://127.0.0.1:8080')
      .post('/v1/chat/completions', (body) => (bodies.push(body), true))
      .reply(400, { error: { message: "Unrecognized request argument: response_format.json_schema", type: 'invalid_request_error' } })
      .post('/v1/chat/completions', (body) => (bodies.push(body), true))
      .reply(200, openAiCompletion('```json\n{"ok":true}\n```'));
    const client = openAiClient({ model: 'qwen', baseUrl: 'http://127.0.0.1:8080/v1', sleep });
    expect((await client.complete({ messages: [{ role: 'user', content: 'hi' }], jsonSchema: schema })).text).toContain('"ok":true');
    expect(bodies.map((b) => 'response_format' in b)).toEqual([true, false]);
  });

  it("moves max_tokens to max_completion_tokens and drops temperature for a reasoning model that rejects them, then remembers", async () => {
    const bodies: Record<string, unknown>[] = [];
    const record = (body: Record<string, unknown>) => (bodies.push(body), true);
    nock('https://api.openai.com')
      .post('/v1/chat/completions', record)
      .reply(400, { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } })
      .post('/v1/chat/completions', record)
      .reply(400, { error: { message: "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", type: 'invalid_request_error', param: 'temperature', code: 'unsupported_value' } })
      .post('/v1/chat/completions', record)
      .times(2)
      .reply(200, openAiCompletion('ok'));
    const client = openAiClient({ model: 'o4-mini', apiKey: KEY, sleep });
    const request = { messages: [{ role: 'user' as const, content: 'hi' }], maxTokens: 100, temperature: 0 };
    await client.complete(request);
    await client.complete(request);
    expect(bodies.map((b) => [b.max_tokens, b.max_completion_tokens, b.temperature])).toEqual([
      [100, undefined, 0],
      [undefined, 100, 0],
      [undefined, 100, undefined],
      [undefined, 100, undefined],
    ]);
  });

  it('says what is wrong when a 200 is not a chat completion', async () => {
    nock('http://127.0.0.1:9000').post('/v1/chat/completions').reply(200, '<html>proxy login</html>');
    const client = openAiClient({ model: 'm', baseUrl: 'http://127.0.0.1:9000/v1', sleep });
    await expect(client.complete({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(/no chat completion.*OPENAI_BASE_URL/);
  });
});

describe('Anthropic messages', () => {
  it('forces a tool whose input schema is the JSON schema, and returns the tool input as the text', async () => {
    let sent: Record<string, unknown> = {};
    const scope = nock('https://api.anthropic.com', { reqheaders: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' } })
      .post('/v1/messages', (body) => ((sent = body), true))
      .reply(200, anthropicMessage([{ type: 'tool_use', id: 'toolu_01', name: 'answer', input: { ok: true } }], { input_tokens: 200, output_tokens: 40 }));
    const client = anthropicClient({ model: 'claude-sonnet-4-20250514', apiKey: KEY, pricing: { inputPerMillion: 3, outputPerMillion: 15 }, sleep });
    const response = await client.complete({ system: 'sys', messages: [{ role: 'user', content: 'hi' }], jsonSchema: schema });
    expect(sent).toMatchObject({
      model: 'claude-sonnet-4-20250514',
      system: 'sys',
      max_tokens: 8192,
      tools: [{ name: 'answer', input_schema: schema.schema }],
      tool_choice: { type: 'tool', name: 'answer' },
    });
    expect(response).toEqual({ text: '{"ok":true}', inputTokens: 200, outputTokens: 40, costUsd: (200 * 3 + 40 * 15) / 1e6 });
    expect(scope.isDone()).toBe(true);
  });

  it('joins text blocks when no tool was asked for', async () => {
    nock('https://api.anthropic.com').post('/v1/messages').reply(200, anthropicMessage([{ type: 'text', text: 'Hello ' }, { type: 'text', text: 'there' }]));
    const client = anthropicClient({ model: 'claude-3-5-haiku-latest', apiKey: KEY, sleep });
    expect((await client.complete({ messages: [{ role: 'user', content: 'hi' }] })).text).toBe('Hello there');
  });

  it('retries 429 rate_limit_error after retry-after and 529 overloaded_error with backoff', async () => {
    const scope = nock('https://api.anthropic.com')
      .post('/v1/messages')
      .reply(429, { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } }, { 'retry-after': '3' })
      .post('/v1/messages')
      .reply(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })
      .post('/v1/messages')
      .reply(200, anthropicMessage([{ type: 'text', text: 'done' }]));
    const client = anthropicClient({ model: 'claude-sonnet-4-0', apiKey: KEY, backoffMs: 500, sleep });
    expect((await client.complete({ messages: [{ role: 'user', content: 'hi' }] })).text).toBe('done');
    expect(sleeps).toEqual([3000, 1000]);
    expect(scope.isDone()).toBe(true);
  });

  it('fails at once on a 400 invalid_request_error with its message', async () => {
    nock('https://api.anthropic.com').post('/v1/messages').reply(400, { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: 100000 > 64000' } });
    const client = anthropicClient({ model: 'claude-sonnet-4-0', apiKey: KEY, sleep });
    await expect(client.complete({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow('400: max_tokens: 100000 > 64000 (invalid_request_error)');
    expect(sleeps).toEqual([]);
  });

  it('refuses to wait longer than the cap a server asks for', async () => {
    nock('https://api.anthropic.com').post('/v1/messages').reply(429, { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }, { 'retry-after': '3600' });
    const client = anthropicClient({ model: 'claude-sonnet-4-0', apiKey: KEY, maxWaitMs: 60_000, sleep });
    await expect(client.complete({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(/asks to wait 3600 s/);
  });
});

describe('client from settings, cache and meter', () => {
  it('picks the provider from what is configured and says what is missing', () => {
    const none = { openai: {}, anthropic: {} };
    expect(createLlmClient({ ...none })).toEqual({ reason: 'No LLM is configured.' });
    expect(createLlmClient({ ...none, model: 'gpt-4o' })).toMatchObject({ reason: expect.stringContaining('OPENAI_API_KEY') });
    expect(createLlmClient({ model: 'llama3', openai: { baseUrl: 'http://127.0.0.1:11434/v1' }, anthropic: {} })).toMatchObject({ provider: 'openai' });
    expect(createLlmClient({ model: 'claude-sonnet-4-0', openai: { apiKey: 'a' }, anthropic: { apiKey: 'b' } })).toMatchObject({ provider: 'anthropic' });
  });

  it('answers a repeated request from the store, uncounted in tokens', async () => {
    const scope = nock('https://api.openai.com').post('/v1/chat/completions').once().reply(200, openAiCompletion('{"ok":true}'));
    const store = memoryStore();
    const client = meteredClient(cachingClient(openAiClient({ model: 'gpt-4o-mini', apiKey: KEY, sleep }), store));
    const request = { messages: [{ role: 'user' as const, content: 'same prompt' }] };
    await client.complete(request);
    const second = await client.complete(request);
    expect(second.cached).toBe(true);
    expect(client.usage).toMatchObject({ calls: 2, cachedCalls: 1, inputTokens: 120, outputTokens: 30 });
    expect([...store.entries.keys()][0]).toMatch(/^llm:[0-9a-f]{64}$/);
    expect(scope.isDone()).toBe(true);
  });

  it('reads retry-after as seconds, as an HTTP date, and retry-after-ms', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '150' }))).toBe(150);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 21 Oct 2026 07:28:05 GMT' }), Date.parse('Wed, 21 Oct 2026 07:28:00 GMT'))).toBe(5000);
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });
});
