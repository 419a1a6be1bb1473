// The LLM audit costs money per review, and a fork's pull request is anyone's: it runs on a
// fork only when the repository's config says so (issue 9, requirement 10).
import type { CrashprobeConfig } from '../config/schema.ts';

/** Why the LLM audit does not run on this pull request, or undefined when it may. */
export function forkAuditOff(config: CrashprobeConfig, fromFork: boolean): string | undefined {
  if (!fromFork || config.audit.forks) return undefined;
  return 'The LLM audit did not run: this pull request comes from a fork, and the audit runs on forks only when the config sets `audit.forks: true` (each audit costs model tokens). The static checks ran instead.';
}
