// Which scenario files to run for a review: those (by the config's globs) that
// name a touched function as the target of one of their scenarios.
import picomatch from 'picomatch';

const TARGET = /@scenario\(\s*(?:target\s*=\s*)?["']([^"':]+:[A-Za-z_][\w.]*)["']/g;

export interface ScenarioFileTargets {
  path: string;
  text: string;
  targets: string[];
}

export function scenarioTargets(text: string): string[] {
  return [...text.matchAll(TARGET)].map((m) => m[1] as string);
}

export function matchesAny(globs: readonly string[]): (path: string) => boolean {
  const matchers = globs.map((glob) => picomatch(glob, { dot: true }));
  return (path) => matchers.some((match) => match(path) || match(`./${path}`));
}

/** `**\/x` globs also match at the top level, as a maintainer expects. */
export function pathFilter(include: readonly string[], exclude: readonly string[]): (path: string) => boolean {
  const withTop = (globs: readonly string[]) => globs.flatMap((g) => (g.startsWith('**/') ? [g, g.slice(3)] : [g]));
  const included = matchesAny(withTop(include));
  const excluded = matchesAny(withTop(exclude));
  return (path) => included(path) && !excluded(path);
}
