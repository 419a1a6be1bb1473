// `.github/crashprobe.yml`: every setting a maintainer can give, checked by zod.
// The published JSON Schema (schema/crashprobe.schema.json) is generated from this.
import { z } from 'zod';

/**
 * Left out of `scan` and `review` unless the config says otherwise: tests (which break files on purpose),
 * benchmarks, examples and docs. Crash scenario files are found by their own globs and are not affected.
 */
export const DEFAULT_EXCLUDE: readonly string[] = [
  '**/test/**',
  '**/tests/**',
  '**/testing/**',
  '**/test_*.py',
  '**/*_test.py',
  '**/conftest.py',
  '**/bench/**',
  '**/benchmark/**',
  '**/benchmarks/**',
  '**/example/**',
  '**/examples/**',
  '**/doc/**',
  '**/docs/**',
];

export const failOnSchema = z.enum(['unsafe', 'safe_by_accident', 'never']);

export const configSchema = z
  .object({
    paths: z
      .object({
        include: z.array(z.string()).default(['**/*.py']).describe('Globs of Python files to review'),
        exclude: z
          .array(z.string())
          .default([...DEFAULT_EXCLUDE])
          .describe('Globs left out of `scan` and the review (default: tests, benchmarks, examples, docs; `[]` reviews everything)'),
      })
      .strict()
      .default({}),
    scenarios: z
      .array(z.string())
      .default(['**/crash_scenarios.py', '**/crash_scenarios/*.py'])
      .describe('Globs of crash scenario files'),
    fail_on: failOnSchema
      .default('unsafe')
      .describe('The check fails when a touched function is this class or worse; never: it never fails'),
    drafts: z.boolean().default(false).describe('Review draft pull requests too'),
    assume_autocommit: z
      .enum(['when-evident', 'unless-proven'])
      .default('when-evident')
      .describe(
        'When the rules on sqlite3\'s default mode (commit-without-begin, writes-rely-on-implicit-transaction, with-conn-opens-no-transaction) speak, read with the whole repository: when-evident, where the repository asks for autocommit (isolation_level=None, autocommit=...) or takes the connection from outside (a parameter no repository code passes, Django, SQLAlchemy, ...); unless-proven, wherever the connection is not proven opened by the repository in the default mode',
      ),
    windows_only: z
      .enum(['skip', 'report'])
      .default('skip')
      .describe(
        "in-place-file-rewrite findings on a file write reached only on native Windows (under os.name == 'nt', sys.platform == 'win32' or .startswith('win'), platform.system() == 'Windows', except WindowsError, or a module constant bound to one of those): skip (the default), since crashprobe judges and crash-tests POSIX semantics; report: keep them. A remove-then-rename is reported either way (os.replace closes its window on Windows too)",
      ),
    max_inline_comments: z.number().int().min(0).max(30).default(30),
    harness: z
      .object({
        enabled: z.boolean().default(true),
        forks: z
          .boolean()
          .default(false)
          .describe('Run the crash harness (which runs the code) on pull requests from forks'),
        isolation: z.enum(['fork', 'spawn']).default('fork'),
        timeout_seconds: z.number().int().min(1).max(600).default(20).describe('Wall-clock limit of one run'),
        budget: z
          .object({
            scenario_files: z.number().int().min(1).max(500).default(20).describe('Scenario files crash-tested per harness pass (the head, and the base); the rest are named as skipped'),
            scenarios: z.number().int().min(1).max(5000).default(100).describe('No further scenario file starts once this many scenarios were judged in the review'),
            runs: z.number().int().min(1).max(1_000_000).default(20_000).describe('No further scenario file starts once this many runs were made in the review'),
            minutes: z.number().min(0.1).max(120).default(10).describe('Harness time per review: no file starts after it, and a running file is stopped at it'),
          })
          .strict()
          .default({})
          .describe('What one review may spend on the crash harness; what it skips is named in the review'),
        dependencies: z
          .enum(['off', 'auto', 'requirements', 'pyproject', 'lock'])
          .default('off')
          .describe(
            'The App only: install the repository\'s dependencies from the package index before crash tests (auto: uv.lock/poetry.lock, else pyproject.toml [project.dependencies], else requirements*.txt); off: the deployment\'s interpreter',
          ),
        dependency_groups: z
          .array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/))
          .max(20)
          .default([])
          .describe('pyproject.toml [project.optional-dependencies] or [dependency-groups] to install too'),
        python_version: z
          .string()
          .regex(/^3\.\d{1,2}$/)
          .optional()
          .describe('The App only: build the environment with python3.X from the App\'s PATH (default: the App\'s interpreter)'),
        allow_sdist: z
          .boolean()
          .default(false)
          .describe('The App only: let pip build source distributions (runs their build code in the install sandbox); default: wheels only'),
      })
      .strict()
      .default({}),
    audit: z
      .object({
        model: z.string().optional().describe('LLM model for the audit; without one the audit is the static checks'),
        forks: z.boolean().default(false).describe("Run the LLM audit on pull requests from forks (it costs model tokens per review; off: the static checks)"),
        runs: z.number().int().min(1).max(10).default(1),
        min_recurrence: z.number().int().min(1).default(1),
        token_budget: z.number().int().min(1000).default(200_000).describe('Input plus output tokens the audit of one pull request may spend'),
        pass_token_budget: z.number().int().min(1000).default(60_000).describe('Tokens of code (target files and partner snippets) in one audit pass'),
        cost_budget_usd: z.number().min(0).optional(),
      })
      .strict()
      .default({}),
  })
  .strict();

export type CrashprobeConfig = z.infer<typeof configSchema>;
export type AuditConfig = CrashprobeConfig['audit'];

export const DEFAULT_CONFIG: CrashprobeConfig = configSchema.parse({});

/** Checks a config object; the error names the field and the reason, for a check run or a terminal. */
export function parseConfig(data: unknown, source = '.github/crashprobe.yml'): CrashprobeConfig {
  const parsed = configSchema.safeParse(data ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`);
  throw new ConfigError(source, problems);
}

export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source} is not valid: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}
