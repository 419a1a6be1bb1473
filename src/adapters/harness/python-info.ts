// What probePython (sandbox.ts) learns about an interpreter; its own file so that the
// bubblewrap plan can name it without importing the module that re-exports the plan.
export interface PythonInfo {
  /**
   * The interpreter to run: its folder real-path'd, its own name kept. For a virtual
   * environment this is `.venv/bin/python` itself, not the base interpreter its symlink
   * points to: Python finds `pyvenv.cfg` beside the path it was started by, so running the
   * symlink's target would lose the venv's site-packages.
   */
  executable: string;
  /** The base installation (real path of `sys.base_prefix`): its standard library. */
  prefix: string;
  version: string;
  /** True when the interpreter is a virtual environment (`sys.prefix != sys.base_prefix`). */
  isVenv: boolean;
  /** site-packages folders the interpreter imports from (`site.getsitepackages()`), real paths. */
  sitePackages: string[];
  /**
   * Every folder the interpreter needs, real paths, none inside another: sys.prefix,
   * sys.base_prefix, sys.exec_prefix, the site-packages folders, the venv, the folder of
   * the real binary. A sandbox binds each read-only.
   */
  readOnlyPaths: string[];
}
