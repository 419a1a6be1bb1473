// A ready scenario file for a touched function that writes but has none: the
// target filled in, the tables it touches, its parameters, and `world` calls for
// its effects, so the maintainer only writes the seed rows. For a method, the
// scenario builds the instance (`self`) in its setup, as the contract's call
// takes every argument by keyword; parameters with defaults are left out (the
// function's own default applies). A closure (a function defined inside another
// function) cannot be loaded by the harness: no template is offered for it.
import { listFunctions } from '../python/functions.ts';
import type { FunctionReport, PyFunction, PyModule, SyntaxNode } from '../python/model.ts';

const CONNECTION = /^(conn|connection|db|database|cursor|cur|con|sqlite)$/i;
const PATHLIKE = /(path|file|filename|dir|folder|directory)$/i;
const MAILER = /(mail|mailer|email|notifier|smtp|client|sender)$/i;

/** Parameter names a caller must pass: no `self`/`cls`, no `*args`/`**kwargs`, none with a default. */
export function requiredParams(fn: PyFunction): string[] {
  const parameters = fn.node.childForFieldName('parameters');
  const withDefault = new Set<string>();
  for (const param of parameters?.namedChildren ?? []) {
    if (param.type === 'default_parameter' || param.type === 'typed_default_parameter') {
      const name = param.childForFieldName('name');
      if (name) withDefault.add(name.text);
    }
  }
  return fn.params.filter((p, i) => !(i === 0 && fn.className !== undefined && (p === 'self' || p === 'cls')) && !p.startsWith('*') && !withDefault.has(p));
}

function decorators(fn: PyFunction): string[] {
  const parent: SyntaxNode | null = fn.node.parent;
  if (parent?.type !== 'decorated_definition') return [];
  return parent.namedChildren.filter((c) => c.type === 'decorator').map((c) => c.text.replace(/^@\s*/, ''));
}

/** True when some enclosing scope of the function is a function: the harness cannot reach it by attribute. */
export function isClosure(module: PyModule, fn: PyFunction): boolean {
  const functions = new Set(listFunctions(module).map((f) => f.qualname));
  const parts = fn.qualname.split('.');
  for (let i = 1; i < parts.length; i++) if (functions.has(parts.slice(0, i).join('.'))) return true;
  return false;
}

function valueFor(param: string, report: FunctionReport, usesDb: boolean): string {
  if (CONNECTION.test(param) && usesDb) return 'world.sqlite("app.db")';
  if (PATHLIKE.test(param)) return `world.path("${param}")`;
  if (MAILER.test(param) && report.effects.some((e) => e.kind === 'send')) return 'world.email()';
  return 'None';
}

function argumentLine(param: string, report: FunctionReport, usesDb: boolean, indent: string): string {
  const value = valueFor(param, report, usesDb);
  const todo = value === 'None' ? '  # TODO: a realistic value' : value.startsWith('world.path') ? '  # seed it with world.seed_file(...) if it must exist' : '';
  return `${indent}"${param}": ${value},${todo}`;
}

export function scenarioTemplate(module: PyModule, report: FunctionReport): string | undefined {
  const { fn } = report;
  if (isClosure(module, fn)) return undefined;
  const path = module.path;
  const tables = [...new Set(report.effects.flatMap((e) => e.sql?.tables ?? []))].sort();
  const usesDb = report.effects.some((e) => e.kind.startsWith('db-'));
  const params = requiredParams(fn);
  const name = fn.qualname.replace(/\W/g, '_');
  const isStatic = decorators(fn).some((d) => d === 'staticmethod' || d === 'classmethod');
  const needsSelf = fn.className !== undefined && !isStatic && fn.params[0] === 'self';
  const lines = ['from crashprobe import scenario', ''];
  if (usesDb) {
    lines.push(
      'SCHEMA = """',
      ...(tables.length ? tables.map((t) => `CREATE TABLE ${t}(...);  -- the real schema of ${t}`) : ['-- the tables this function reads and writes']),
      '-- INSERT INTO ... the rows a realistic call needs',
      '"""',
      '',
    );
  }
  lines.push(`@scenario("${path}:${fn.qualname}")`, `def ${name}_scenario(world):`);
  if (usesDb) lines.push('    world.seed_sqlite("app.db", SCHEMA)');
  if (needsSelf) {
    // The class as the module names it (a nested class through its outer class), imported from the repository root.
    const classPath = fn.qualname.split('.').slice(0, -1);
    const dotted = path.replace(/\.py$/, '').replace(/\/__init__$/, '').split('/').join('.');
    const init = listFunctions(module).find((f) => f.qualname === `${classPath.join('.')}.__init__`);
    const initParams = init ? requiredParams(init) : [];
    lines.push(`    from ${dotted} import ${classPath[0]}`, '', `    # The instance the method runs on, built as the application builds it (on files under world.path()).`);
    if (initParams.length === 0) lines.push(`    instance = ${classPath.join('.')}()`);
    else lines.push(`    instance = ${classPath.join('.')}(`, ...initParams.map((p) => argumentLine(p, report, usesDb, '        ').replace(/^(\s+)"([^"]+)": /, '$1$2=')), '    )');
  }
  lines.push('    return {');
  if (needsSelf) lines.push('        "self": instance,');
  for (const param of params) lines.push(argumentLine(param, report, usesDb, '        '));
  lines.push('    }', '');
  return lines.join('\n');
}
