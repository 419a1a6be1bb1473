// Test helpers: a module from inline Python, a function of it by qualname.
import { parseModule } from '../../../src/core/python/parse.ts';
import { findEffects } from '../../../src/core/python/effects.ts';
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

/** One table row of an effects test: a module, a function of it, and its database effects in order. */
export interface EffectCase {
  name: string;
  code: string;
  fn: string;
  effects: string[];
}

/**
 * The database effects of a function as `line kind[ detail]`: `detail` names what follows the
 * kind (the SQL's text, its kind, or nothing).
 */
export function dbEffects(code: string, qualname: string, detail: 'sql-text' | 'sql-kind' | 'none'): string[] {
  const module = moduleOf(code);
  return findEffects(functionOf(module, qualname), module)
    .filter((effect) => effect.kind.startsWith('db-'))
    .map((effect) => {
      const shown = detail === 'sql-text' ? (effect.sql?.text ?? '-') : detail === 'sql-kind' ? (effect.sql?.kind ?? '-') : undefined;
      return `${effect.range.startLine} ${effect.kind}${shown === undefined ? '' : ` ${shown}`}`;
    });
}
