// The small ports through which the pure core talks to the world. Adapters (Probot,
// the Action, the CLI) fill them; tests fake them with object literals.
import type { CampaignResult } from './crash/protocol.ts';
import type { ScenarioFile } from './crash/discover.ts';
import type { Review } from './model/review.ts';

export interface ChangedFile {
  path: string;
  status: 'added' | 'modified' | 'removed' | 'renamed';
  previousPath?: string;
  /** The unified-diff patch of this file, as GitHub's pulls/files gives it (may be absent for binary or huge files). */
  patch?: string;
}

export interface PullRequestSource {
  /** owner/name, or a local label for the CLI. */
  repository: string;
  number?: number;
  baseSha: string;
  headSha: string;
  /** True when the head is in a fork: its code is untrusted and the harness is off unless configured on. */
  fromFork: boolean;
  changedFiles(): Promise<ChangedFile[]>;
  /** The file's text at the head commit, or undefined when it does not exist there. */
  readFile(path: string): Promise<string | undefined>;
  /** Every file path at the head commit. */
  listFiles(): Promise<string[]>;
  /** A local folder holding the head commit's tree, for the crash harness to run (created on first call). */
  checkout(): Promise<string>;
  /** The file's text at the base commit (`baseSha`), or undefined when it does not exist there. Absent: the base is not judged. */
  readBaseFile?(path: string): Promise<string | undefined>;
  /** A local folder holding the base commit's tree, for judging the targets at the base (created on first call). Absent: the base is not judged. */
  checkoutBase?(): Promise<string>;
  /** Notes on what the checkouts made so far left out (symlinks leading out of the tree, hard links, devices). */
  skipped?(): Promise<string[]>;
}

export interface HarnessRunner {
  run(files: ScenarioFile[]): Promise<CampaignResult>;
}

/** Where a finished review goes: the GitHub adapter reconciles it with what it posted before. */
export interface CommentSink {
  publish(review: Review): Promise<void>;
}

export interface Store {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

/**
 * One tenant's part of a shared store (the App: an installation's repository). Nothing cached
 * for one repository, verdicts or LLM answers, is ever read back for another.
 */
export function scopedStore(store: Store, scope: string): Store {
  const prefix = `scope ${JSON.stringify(scope)}\0`;
  return { get: (key) => store.get(prefix + key), set: (key, value) => store.set(prefix + key, value) };
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** A logger whose every line also carries these fields (the App: delivery id and job id). */
  child?(bindings: Record<string, string | number>): Logger;
}

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

export interface LlmMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface LlmRequest {
  system?: string;
  messages: LlmMessage[];
  /** A JSON Schema the answer must follow; providers that support structured output enforce it. */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  maxTokens?: number;
  temperature?: number;
}

export interface LlmResponse {
  text: string;
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
  /** True when the answer came from the response cache. */
  cached?: boolean;
}

/** US dollars per million tokens; absent for a self-hosted server or an unknown model. */
export interface LlmPricing {
  inputPerMillion: number;
  outputPerMillion: number;
}

/** Any OpenAI-compatible or Anthropic endpoint, behind one call. */
export interface LlmClient {
  readonly model: string;
  /** Lets a budget estimate the cost of a call before making it. */
  readonly pricing?: LlmPricing;
  complete(request: LlmRequest): Promise<LlmResponse>;
}
