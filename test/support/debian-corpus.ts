// Real-world code for the corpus tests, taken from Debian packages that scripts/setup.sh
// installs (the project's own install step), instead of committing copies of fetched
// public code. A package is pinned by its Debian version, which each test records and
// checks: a different version means the judgements must be read again, and the test says so.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const DIST_PACKAGES = '/usr/lib/python3/dist-packages';

export interface DebianPackage {
  name: string;
  version: string;
  /** Every path the package installed (`dpkg -L`). */
  files: string[];
  /** The package's files under dist-packages, relative to it (modules and package folders). */
  pythonFiles: string[];
  /** Where the Debian copyright (the license) of the package is. */
  copyright: string;
}

/** The installed Debian package `name`, or an error that says how to install it. */
export function debianPackage(name: string): DebianPackage {
  let version: string;
  try {
    version = execFileSync('dpkg-query', ['-W', '-f=${Status}|${Version}', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    throw new Error(`Debian package ${name} is not installed: run \`bash scripts/setup.sh\` (as root), which installs the corpus packages.`);
  }
  const [status, ver] = version.split('|');
  // `dpkg-query` also answers for a package removed or purged ("deinstall ok config-files", "unknown ok not-installed").
  if (status !== 'install ok installed' || !ver) {
    throw new Error(`Debian package ${name} is not installed (dpkg says "${status}"): run \`bash scripts/setup.sh\` (as root).`);
  }
  const files = execFileSync('dpkg', ['-L', name], { encoding: 'utf8' }).split('\n');
  const pythonFiles = files
    .filter((f) => f.startsWith(`${DIST_PACKAGES}/`) && f.endsWith('.py'))
    .map((f) => path.relative(DIST_PACKAGES, f));
  return { name, version: ver, files, pythonFiles, copyright: `/usr/share/doc/${name}/copyright` };
}

/** Checks that the installed version is the one the judgements were read against. */
export function expectVersion(pkg: DebianPackage, judgedVersion: string): void {
  if (pkg.version !== judgedVersion) {
    throw new Error(
      `Debian package ${pkg.name} is ${pkg.version}, but its judgements were read against ${judgedVersion}: ` +
        'read the changed code again and update the recorded version and judgements.',
    );
  }
}

/**
 * A fresh project folder holding the package's Python files (as a repository would lay
 * them out: modules and package folders at the top) plus `extra` folders copied over it
 * (for example the corpus's own scenario files). `only` limits the copy to those top-level
 * names (e.g. ['diskcache'] to leave out a package's tests); `without` leaves out those
 * paths, files or folders, relative to dist-packages (e.g. ['persistqueue/tests'], tests
 * kept inside the package). `root` is where the package keeps its Python code when that is
 * not dist-packages (a program's private folder, e.g. /usr/share/offlineimap3).
 */
export function assembleProject(pkg: DebianPackage, extra: string[] = [], only?: string[], without: string[] = [], root = DIST_PACKAGES): string {
  const dir = projectFolder(pkg);
  const pythonFiles = root === DIST_PACKAGES ? pkg.pythonFiles : pkg.files.filter((f) => f.startsWith(`${root}/`) && f.endsWith('.py')).map((f) => path.relative(root, f));
  if (root !== DIST_PACKAGES && pythonFiles.length === 0) throw new Error(`Debian package ${pkg.name} installs no Python file under ${root}: check the project's "root"`);
  for (const rel of pythonFiles) {
    const top = rel.split('/')[0]!;
    if (only && !only.includes(top)) continue;
    if (without.some((left) => rel === left || rel.startsWith(`${left}/`))) continue;
    const target = path.join(dir, rel);
    mkdirSync(path.dirname(target), { recursive: true });
    cpSync(path.join(root, rel), target);
  }
  for (const source of extra) {
    if (!statSync(source).isDirectory()) throw new Error(`assembleProject: ${source} is not a folder`);
    cpSync(source, dir, { recursive: true });
  }
  return dir;
}

/**
 * A fresh project folder holding one installed script of the package (a program whose code
 * is a single Python file without the .py suffix, e.g. /usr/bin/buku) under `asName`
 * (e.g. 'buku.py'), so that the scan, which reads .py files, reads it as a module.
 */
export function assembleScript(pkg: DebianPackage, installed: string, asName: string): string {
  if (!pkg.files.includes(installed)) {
    throw new Error(`${installed} is not a file of Debian package ${pkg.name} (dpkg -L does not list it): check the script's path, or run \`bash scripts/setup.sh\`.`);
  }
  if (!asName.endsWith('.py') || asName.includes('/')) throw new Error(`assembleScript: give a plain file name ending .py, not ${asName}`);
  const dir = projectFolder(pkg);
  cpSync(installed, path.join(dir, asName));
  return dir;
}

/** A new temporary folder for one of the package's projects, holding its Debian copyright. */
function projectFolder(pkg: DebianPackage): string {
  const dir = mkdtempSync(path.join(tmpdir(), `crashprobe-corpus-${pkg.name}-`));
  if (existsSync(pkg.copyright)) cpSync(pkg.copyright, path.join(dir, 'COPYRIGHT.debian'));
  return dir;
}
