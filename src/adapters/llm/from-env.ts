// The LLM endpoint as users already configure these clients, read from the
// environment once, here at the edge, for the CLI, the app and the Action alike.
// Keys stay in the settings object: nothing logs it (describeLlmSettings shows
// only whether a key is set).
import { createLlmClient, type ClientOptions, type LlmSettings } from './settings.ts';
import type { LlmClient } from '../../core/ports.ts';

export type { LlmSettings };

export type Environment = Readonly<Record<string, string | undefined>>;

/** `configModel` is `audit.model` from the config file; CRASHPROBE_MODEL overrides it. */
export function llmSettingsFromEnv(env: Environment, configModel?: string): LlmSettings {
  const value = (name: string) => env[name]?.trim() || undefined;
  return {
    model: value('CRASHPROBE_MODEL') ?? configModel,
    openai: { apiKey: value('OPENAI_API_KEY'), baseUrl: value('OPENAI_BASE_URL') },
    anthropic: { apiKey: value('ANTHROPIC_API_KEY'), baseUrl: value('ANTHROPIC_BASE_URL') },
  };
}

export function describeLlmSettings(settings: LlmSettings): string {
  const endpoint = (name: string, e: { apiKey?: string; baseUrl?: string }) =>
    e.apiKey || e.baseUrl ? `${name} (${e.baseUrl ?? 'default URL'}, key ${e.apiKey ? 'set' : 'not set'})` : undefined;
  return [`model ${settings.model ?? '(none)'}`, endpoint('OpenAI-compatible', settings.openai), endpoint('Anthropic', settings.anthropic)].filter(Boolean).join(', ');
}

/**
 * The client the environment configures, or none. `warning` is set when the
 * configuration is half done (a model without an endpoint, or the reverse), so the
 * adapter can say what to fix; nothing configured is not a warning.
 */
export function llmClientFromEnv(env: Environment, configModel: string | undefined, options: ClientOptions = {}): { client?: LlmClient; warning?: string } {
  const settings = llmSettingsFromEnv(env, configModel);
  const created = createLlmClient(settings, options);
  if ('client' in created) return { client: created.client };
  const anything = settings.model || settings.openai.apiKey || settings.openai.baseUrl || settings.anthropic.apiKey || settings.anthropic.baseUrl;
  return anything ? { warning: created.reason } : {};
}
