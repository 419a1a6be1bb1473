// The repository's Python modules at the head, parsed once each on first use. The
// stages share this reader (a memo of parsed files, not of review results): the
// call graph, scenario targets and the rendered crash figures all read the same parse.
import type { PullRequestSource } from '../ports.ts';
import { listFunctions } from '../python/functions.ts';
import type { PyFunction, PyModule } from '../python/model.ts';
import { parseModule } from '../python/parse.ts';

export interface RepoModules {
  /** The parsed module at `path`, undefined when the head has no such file. */
  read(path: string): Promise<PyModule | undefined>;
  /** The module at `path` if it was read already (no read). */
  get(path: string): PyModule | undefined;
  /** Every module read so far. */
  parsed(): PyModule[];
  /** Each module's source lines, by the path it was read under: for the crash figures. */
  sourceLines(): Map<string, string[]>;
}

export function repoModules(source: Pick<PullRequestSource, 'readFile'>): RepoModules {
  const modules = new Map<string, PyModule>();
  return {
    async read(p) {
      if (modules.has(p)) return modules.get(p);
      const text = await source.readFile(p);
      if (text === undefined) return undefined;
      const module = parseModule(p, text);
      modules.set(p, module);
      return module;
    },
    get: (p) => modules.get(p),
    parsed: () => [...modules.values()],
    sourceLines: () => new Map([...modules].map(([p, m]) => [p, m.source.split('\n')])),
  };
}

/** `path.py:Qualname` → [path, qualname]. */
export function splitTarget(target: string): [string, string] {
  const at = target.lastIndexOf(':');
  return [target.slice(0, at), target.slice(at + 1)];
}

/** The module and function a target names, when both exist at the head. */
export async function functionAt(modules: RepoModules, target: string): Promise<{ module: PyModule; fn: PyFunction } | undefined> {
  const [p, qualname] = splitTarget(target);
  const module = await modules.read(p);
  const fn = module && listFunctions(module).find((f) => f.qualname === qualname);
  return module && fn ? { module, fn } : undefined;
}

export function functionSource(module: PyModule, startLine: number, endLine: number): string {
  return module.source.split('\n').slice(startLine - 1, endLine).join('\n');
}
