// One JSON POST to an LLM endpoint, with a timeout per attempt and retries with
// exponential backoff on 429, 5xx and network failures, honouring the server's
// `retry-after` (seconds or a date) and OpenAI's `retry-after-ms`. Errors carry
// the provider's message and never a request header, so a key cannot leak.
export type FetchLike = (url: string, init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal }) => Promise<Response>;

export interface HttpOptions {
  fetch?: FetchLike;
  /** Per attempt. */
  timeoutMs?: number;
  /** Retries after the first attempt. */
  retries?: number;
  /** First backoff; doubles each retry. */
  backoffMs?: number;
  /** A retry-after longer than this fails the call instead of waiting. */
  maxWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export class LlmHttpError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'LlmHttpError';
  }
}

const RETRYABLE = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

export const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Milliseconds the server asked to wait, or undefined. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Replaces each secret in a message, in case a server echoes one back. */
export function redact(message: string, secrets: readonly (string | undefined)[]): string {
  let out = message;
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}

export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  describeError: (status: number, body: unknown) => string,
  options: HttpOptions & { secrets?: readonly (string | undefined)[] } = {},
): Promise<unknown> {
  const doFetch: FetchLike = options.fetch ?? ((u, init) => fetch(u, init));
  const sleep = options.sleep ?? defaultSleep;
  const retries = options.retries ?? 4;
  const backoff = options.backoffMs ?? 1000;
  const maxWait = options.maxWaitMs ?? 120_000;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const secrets = options.secrets ?? [];
  let lastError: LlmHttpError | undefined;
  for (let attempt = 0; attempt <= retries; attempt++) {
    let wait = backoff * 2 ** attempt;
    try {
      const response = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      let json: unknown = text;
      try {
        json = JSON.parse(text);
      } catch {
        // a proxy's HTML error page: keep the text for the message
      }
      if (response.ok) return json;
      const message = redact(`${url} answered ${response.status}: ${describeError(response.status, json)}`, secrets);
      lastError = new LlmHttpError(message, response.status, RETRYABLE.has(response.status));
      if (!lastError.retryable) throw lastError;
      const asked = retryAfterMs(response.headers);
      if (asked !== undefined) {
        if (asked > maxWait) throw new LlmHttpError(`${message}; the server asks to wait ${Math.ceil(asked / 1000)} s, longer than crashprobe waits: lower the audit's concurrency or raise the rate limit`, response.status, false);
        wait = asked;
      }
    } catch (error) {
      if (error instanceof LlmHttpError && !error.retryable) throw error;
      if (!(error instanceof LlmHttpError)) {
        const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
        lastError = new LlmHttpError(
          redact(timedOut ? `${url} did not answer within ${Math.round(timeoutMs / 1000)} s` : `${url} could not be reached: ${(error as Error).message}`, secrets),
          undefined,
          true,
        );
      }
    }
    if (attempt < retries) await sleep(wait);
  }
  throw new LlmHttpError(`${lastError?.message ?? url} (gave up after ${retries + 1} attempts)`, lastError?.status, false);
}
