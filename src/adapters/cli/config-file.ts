// Reads `.github/crashprobe.yml` (when there is one) into the checked config.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, YAMLParseError } from 'yaml';
import { DEFAULT_CONFIG, parseConfig, type CrashprobeConfig } from '../../core/config/schema.ts';

export function loadConfigFile(top: string, relative = '.github/crashprobe.yml'): CrashprobeConfig {
  const file = path.join(top, relative);
  if (!existsSync(file)) return DEFAULT_CONFIG;
  let data: unknown;
  try {
    data = parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if (error instanceof YAMLParseError) {
      const where = error.linePos?.[0] ? `:${error.linePos[0].line}:${error.linePos[0].col}` : '';
      throw new Error(`${relative}${where}: not valid YAML: ${error.message.split('\n')[0]}`);
    }
    throw error;
  }
  return parseConfig(data, relative);
}
