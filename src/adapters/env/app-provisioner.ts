// For one review: the repository's dependency set read from its head checkout, its
// environment built (or reused) by provisionEnvironment, and what to tell the
// maintainer. Returns the interpreter crash runs should use, or none (then they use
// the App's own and the notes say why).
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CrashprobeConfig } from '../../core/config/schema.ts';
import type { Logger } from '../../core/ports.ts';
import { SANDBOX_FIX } from '../harness/prepare.ts';
import { probePython, type PythonInfo } from '../harness/sandbox.ts';
import { readDependencySet } from './dependency-files.ts';
import { provisionEnvironment } from './provision.ts';
import type { EnvSettings } from './settings.ts';

export interface DependencyEnvironment {
  /** The environment's interpreter; undefined: crash runs use the App's own. */
  python?: string;
  /** The dependency files it was built from (for the missing-module fix). */
  installedFrom?: string[];
  notes: string[];
}

export interface ProvisionForReview {
  /** The cache scope: installation/owner/name. */
  repo: string;
  /** The head checkout. */
  root: string;
  config: CrashprobeConfig;
  logger: Logger;
}

export type DependencyProvisioner = (request: ProvisionForReview) => Promise<DependencyEnvironment>;

export interface ProvisionerOptions {
  /** The App's interpreter (CRASHPROBE_PYTHON). */
  python: string;
  searchPath: string[];
}

function findOnPath(name: string, dirs: string[]): string | undefined {
  return dirs.map((dir) => path.join(dir, name)).find((candidate) => existsSync(candidate));
}

const NOT_INSTALLED = 'Dependencies were not installed';

export function appProvisioner(settings: EnvSettings, options: ProvisionerOptions): DependencyProvisioner {
  const bases = new Map<string, Promise<PythonInfo>>();
  const base = (python: string) => {
    let probe = bases.get(python);
    if (!probe) {
      probe = probePython(python);
      probe.catch(() => bases.delete(python));
      bases.set(python, probe);
    }
    return probe;
  };
  return async ({ repo, root, config, logger }) => {
    const { dependencies: mode, dependency_groups: groups, python_version: version, allow_sdist: allowSdist } = config.harness;
    const set = readDependencySet(root, { mode, groups });
    if (!set) return { notes: [`\`harness.dependencies: ${mode}\` found no dependency file to install from; crash tests ran with the App's interpreter.`] };
    const notes = [...set.notes];
    if (set.requirements.length === 0) {
      return { notes: [...notes, `${NOT_INSTALLED}: ${set.sources.map((s) => s.path).join(', ') || 'the dependency files'} list nothing from the package index.`] };
    }
    let python = options.python;
    if (version) {
      const wanted = findOnPath(`python${version}`, options.searchPath);
      if (wanted) python = wanted;
      else notes.push(`harness.python_version is ${version}, but the App has no python${version} on its PATH; its default interpreter was used.`);
    }
    const bwrap = findOnPath('bwrap', options.searchPath);
    if (!bwrap) {
      return { notes: [...notes, `${NOT_INSTALLED}: they are installed only inside a bubblewrap sandbox, and bwrap is not installed on the App's server. Fix: ${SANDBOX_FIX}`] };
    }
    const uv = settings.installer === 'pip' ? undefined : findOnPath('uv', options.searchPath);
    if (settings.installer === 'uv' && !uv) {
      return { notes: [...notes, `${NOT_INSTALLED}: CRASHPROBE_ENV_INSTALLER is uv, but the App has no uv on its PATH. Fix: install uv on the App's server, or set CRASHPROBE_ENV_INSTALLER=auto to use pip.`] };
    }
    let info: PythonInfo;
    try {
      info = await base(python);
    } catch (error) {
      return { notes: [...notes, `${NOT_INSTALLED}: ${(error as Error).message}`] };
    }
    const result = await provisionEnvironment({ repo, deps: set, base: info, bwrap, allowSdist, uv }, settings).catch(
      (error: Error) => ({ ok: false as const, reason: error.message }),
    );
    const from = set.sources.map((s) => s.path);
    if (!result.ok) {
      logger.warn(`${repo}: dependencies not installed: ${result.reason}`);
      return { notes: [...notes, `${NOT_INSTALLED} (crash tests ran with the App's interpreter): ${result.reason}`] };
    }
    const what = `${set.requirements.length} requirement(s) from ${from.join(', ')}${allowSdist ? '' : ', wheels only'}, Python ${info.version}${uv ? ', by uv' : ''}`;
    notes.unshift(
      result.built
        ? `Dependencies installed for crash tests: ${what} (built in ${Math.round(result.seconds)} s).`
        : `Dependencies installed for crash tests: ${what} (the environment built earlier for these files).`,
    );
    logger.info(`${repo}: environment ${result.key} ${result.built ? 'built' : 'reused'}${result.evicted ? `, ${result.evicted} evicted` : ''}`);
    return { python: result.python.executable, installedFrom: from, notes };
  };
}
