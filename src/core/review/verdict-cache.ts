// Crash verdicts cached by what decides them: the harness version, the scenario
// file, and the source of every function it targets. A push that leaves a function
// and its scenario unchanged re-runs nothing for it.
import { createHash } from 'node:crypto';
import type { ScenarioVerdict } from '../crash/protocol.ts';
import type { Store } from '../ports.ts';

export const HARNESS_VERSION = '1';

export function verdictKey(scenarioText: string, targetSources: readonly string[]): string {
  const hash = createHash('sha256').update(`harness ${HARNESS_VERSION}\0${scenarioText}`);
  for (const source of targetSources) hash.update(`\0${source}`);
  return `verdict:${hash.digest('hex')}`;
}

export function cachedVerdicts(store: Store, key: string): ScenarioVerdict[] | undefined {
  const raw = store.get(key);
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as ScenarioVerdict[];
  } catch {
    return undefined;
  }
}

export function memoryStore(): Store & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return { entries, get: (key) => entries.get(key), set: (key, value) => void entries.set(key, value) };
}
