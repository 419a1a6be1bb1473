// The harness's reference suite (harness/reference): every solution folder, the
// ones holding an expected.json, with what that file intends. The tests and the
// benches all walk the suite through this.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const REFERENCE_DIR = path.resolve(import.meta.dirname, '../../harness/reference');

export interface ReferenceExpectation {
  class: string;
  /** null: the task is not judged on double counting (counting a page view). */
  double_applies: boolean | null;
  fully_crash_safe: boolean;
  tx_style?: string;
  unsafe_only_under?: 'hard';
}

export interface ReferenceSolution {
  dir: string;
  /** task/solution */
  name: string;
  expected: ReferenceExpectation;
}

export function referenceSolutions(): ReferenceSolution[] {
  if (!existsSync(REFERENCE_DIR)) return [];
  return readdirSync(REFERENCE_DIR, { withFileTypes: true })
    .filter((task) => task.isDirectory() && !task.name.startsWith('_'))
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((task) =>
      readdirSync(path.join(REFERENCE_DIR, task.name), { withFileTypes: true })
        .filter((s) => s.isDirectory() && existsSync(path.join(REFERENCE_DIR, task.name, s.name, 'expected.json')))
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((s) => {
          const dir = path.join(REFERENCE_DIR, task.name, s.name);
          const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as ReferenceExpectation;
          return { dir, name: `${task.name}/${s.name}`, expected };
        }),
    );
}
