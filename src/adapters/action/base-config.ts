// The config that judges a pull request comes from its base commit, never from
// the pull request: a fork that sets `harness.forks: true` in its own
// `.github/crashprobe.yml` must not get its code run. (The App reads the default
// branch through Probot; the CLI, on your own code, reads the working tree.)
import { parse, YAMLParseError } from 'yaml';
import { DEFAULT_CONFIG, parseConfig, type CrashprobeConfig } from '../../core/config/schema.ts';

export interface BaseConfig {
  config: CrashprobeConfig;
  /** False when the base has no config file: the defaults apply. */
  found: boolean;
}

/** `text` is the file at the base commit (undefined: none there). Throws naming the file, line and field to fix. */
export function parseBaseConfig(text: string | undefined, relative: string): BaseConfig {
  if (text === undefined) return { config: DEFAULT_CONFIG, found: false };
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    // The same wording as the CLI's reader (src/adapters/cli/config-file.ts), which reads a file on disk instead.
    if (error instanceof YAMLParseError) {
      const where = error.linePos?.[0] ? `:${error.linePos[0].line}:${error.linePos[0].col}` : '';
      throw new Error(`${relative}${where} (at the base commit): not valid YAML: ${error.message.split('\n')[0]}`);
    }
    throw error;
  }
  return { config: parseConfig(data ?? {}, `${relative} (at the base commit)`), found: true };
}
