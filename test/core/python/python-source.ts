// Test helpers: a module from inline Python, a function of it by qualname.
import { parseModule } from '../../../src/core/python/parse.ts';
import { listFunctions } from '../../../src/core/python/functions.ts';
import type { PyFunction, PyModule } from '../../../src/core/python/model.ts';

/** Strips the common indentation so tests can indent their Python. */
export function py(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = String.raw({ raw: strings }, ...values).replace(/^\n/, '');
  const indents = text.split('\n').filter((line) => line.trim()).map((line) => /^ */.exec(line)![0].length);
  const indent = Math.min(...indents);
  return text.split('\n').map((line) => line.slice(indent)).join('\n');
}

export function moduleOf(source: string, path = 'app/x.py'): PyModule {
  return parseModule(path, source);
}

export function functionOf(module: PyModule, qualname: string): PyFunction {
  const fn = listFunctions(module).find((candidate) => candidate.qualname === qualname);
  if (!fn) throw new Error(`no function ${qualname} in ${module.path}: ${listFunctions(module).map((f) => f.qualname).join(', ')}`);
  return fn;
}
