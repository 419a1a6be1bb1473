// A ready scenario file for a touched function that writes but has none: the
// target filled in, the tables it touches, its parameters, and `world` calls for
// its effects, so the maintainer only writes the seed rows.
import type { FunctionReport } from '../python/model.ts';

const CONNECTION = /^(conn|connection|db|database|cursor|cur|con|sqlite)$/i;
const PATHLIKE = /(path|file|filename|dir|folder|directory)$/i;
const MAILER = /(mail|mailer|email|notifier|smtp|client|sender)$/i;

export function scenarioTemplate(path: string, report: FunctionReport): string {
  const tables = [...new Set(report.effects.flatMap((e) => e.sql?.tables ?? []))].sort();
  const usesDb = report.effects.some((e) => e.kind.startsWith('db-'));
  const params = report.fn.params.filter((p) => p !== 'self' && p !== 'cls' && !p.startsWith('*'));
  const name = report.fn.qualname.replace(/\W/g, '_');
  const lines = ['from crashprobe import scenario', ''];
  if (usesDb) {
    lines.push(
      'SCHEMA = """',
      ...(tables.length
        ? tables.map((t) => `CREATE TABLE ${t}(...);  -- the real schema of ${t}`)
        : ['-- the tables this function reads and writes']),
      '-- INSERT INTO ... the rows a realistic call needs',
      '"""',
      '',
    );
  }
  lines.push(`@scenario("${path}:${report.fn.qualname}")`, `def ${name}_scenario(world):`);
  if (usesDb) lines.push('    world.seed_sqlite("app.db", SCHEMA)');
  lines.push('    return {');
  for (const param of params) {
    if (CONNECTION.test(param) && usesDb) lines.push(`        "${param}": world.sqlite("app.db"),`);
    else if (PATHLIKE.test(param)) lines.push(`        "${param}": world.path("${param}"),  # seed it with world.seed_file(...) if it must exist`);
    else if (MAILER.test(param) && report.effects.some((e) => e.kind === 'send')) lines.push(`        "${param}": world.email(),`);
    else lines.push(`        "${param}": None,  # TODO: a realistic value`);
  }
  lines.push('    }', '');
  return lines.join('\n');
}
