// The part of the workflow's event payload (GITHUB_EVENT_PATH) a review needs.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';

const pullRequestEventSchema = z.object({
  pull_request: z.object({
    number: z.number().int(),
    draft: z.boolean().optional(),
    base: z.object({ sha: z.string(), repo: z.object({ full_name: z.string() }) }),
    // A fork that was deleted leaves `repo: null`: treated as a fork.
    head: z.object({ sha: z.string(), repo: z.object({ full_name: z.string() }).nullable() }),
  }),
});

export interface PullRequestEvent {
  owner: string;
  repo: string;
  number: number;
  baseSha: string;
  headSha: string;
  draft: boolean;
  fromFork: boolean;
}

/** Undefined when the event is not about a pull request (a push, a schedule): there is nothing to review. */
export async function readPullRequestEvent(eventPath: string, repository: string): Promise<PullRequestEvent | undefined> {
  let text: string;
  try {
    text = await readFile(eventPath, 'utf8');
  } catch (error) {
    throw new Error(`Cannot read the event payload at GITHUB_EVENT_PATH (${eventPath}): ${(error as Error).message}`);
  }
  const payload: unknown = JSON.parse(text);
  if (typeof payload !== 'object' || payload === null || !('pull_request' in payload)) return undefined;
  const parsed = pullRequestEventSchema.safeParse(payload);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`The event payload at ${eventPath} is not a pull_request event GitHub would send (${problems})`);
  }
  const pr = parsed.data.pull_request;
  const [owner, repo] = repository.split('/');
  if (!owner || !repo) throw new Error(`GITHUB_REPOSITORY must be owner/name, not '${repository}'`);
  return {
    owner,
    repo,
    number: pr.number,
    baseSha: pr.base.sha,
    headSha: pr.head.sha,
    draft: pr.draft ?? false,
    fromFork: pr.head.repo?.full_name !== pr.base.repo.full_name,
  };
}
