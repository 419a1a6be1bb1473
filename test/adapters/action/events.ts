// Real webhook payloads from @octokit/webhooks-examples, as GITHUB_EVENT_PATH holds them.
import { createRequire } from 'node:module';
import type { WebhookDefinition } from '@octokit/webhooks-examples';

// The package's main is a JSON file whose typings only a require() reads right under NodeNext.
const definitions = createRequire(import.meta.url)('@octokit/webhooks-examples') as WebhookDefinition[];

export interface PullRequestPayload {
  action: string;
  number: number;
  pull_request: {
    number: number;
    draft?: boolean;
    base: { sha: string; repo: { full_name: string } };
    head: { sha: string; repo: { full_name: string } | null };
  };
  repository: { full_name: string };
}

/** A fresh copy of the example payload of `event.action`, to change freely. */
export function examplePayload(event: 'pull_request', action: string): PullRequestPayload;
export function examplePayload(event: string, action?: string): unknown;
export function examplePayload(event: string, action?: string): unknown {
  const examples = definitions.find((definition) => definition.name === event)?.examples ?? [];
  const found = examples.find((example) => action === undefined || (example as { action?: string }).action === action);
  if (!found) throw new Error(`@octokit/webhooks-examples has no ${event}${action ? `.${action}` : ''} example`);
  return structuredClone(found);
}
