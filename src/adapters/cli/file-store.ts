// The CLI's verdict cache: a JSON file inside the repository's .git folder, so it
// survives between runs and never shows up in the working tree.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Store } from '../../core/ports.ts';

export function fileStore(file: string): Store & { save(): void } {
  let entries: Record<string, string> = {};
  if (existsSync(file)) {
    try {
      entries = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    } catch {
      entries = {};
    }
  }
  return {
    get: (key) => entries[key],
    set: (key, value) => {
      entries[key] = value;
    },
    save: () => {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(entries));
    },
  };
}
