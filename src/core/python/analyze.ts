// One module's functions, each with its effects, transaction style and the
// crash-safety rules' findings: the unit the review and the CLI consume.
import type { FunctionReport, PyFunction, PyModule } from './model.ts';
import { repoHelperResolver, type RepoIndex } from './callgraph.ts';
import { findEffects, memoizeResolver, resolveSameModuleHelper, writesOutside, type HelperResolver } from './effects.ts';
import { listFunctions } from './functions.ts';
import { runRules } from './rules/index.ts';
import { detectTxStyle } from './tx-style.ts';

export interface AnalyzeOptions {
  /** Only these functions (say, the ones a diff touches); all of the module's by default. */
  only?: readonly PyFunction[];
}

/** With `repo`, helpers in other files are followed through the call graph; without, same-module helpers only. */
export function analyzeModule(module: PyModule, repo?: RepoIndex, options: AnalyzeOptions = {}): FunctionReport[] {
  const resolveHelper = memoizeResolver(repo?.modules.has(module.path) ? repoHelperResolver(repo) : resolveSameModuleHelper);
  return (options.only ?? listFunctions(module)).map((fn) => analyzeFunction(fn, module, resolveHelper));
}

export function analyzeFunction(fn: PyFunction, module: PyModule, resolveHelper: HelperResolver = resolveSameModuleHelper): FunctionReport {
  try {
    const effects = findEffects(fn, module, { resolveHelper });
    const txStyle = detectTxStyle(fn, module, { resolveHelper });
    const findings = runRules({ module, fn, effects, txStyle });
    return { fn, effects, txStyle, findings, writes: writesOutside(effects) };
  } catch (error) {
    // Code nested thousands deep (generated, or hostile) overflows the walks: say so for this function, go on with the rest.
    if (!(error instanceof RangeError)) throw error;
    module.notes.push(`${fn.qualname} (line ${fn.range.startLine}) not analysed: its code nests deeper than the analysis can follow (${error.message})`);
    return { fn, effects: [], txStyle: { style: 'none', evidence: [] }, findings: [], writes: writesOutside([]) };
  }
}
