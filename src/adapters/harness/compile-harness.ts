// Compiles the harness's own modules once, before a campaign: every harness process runs with
// PYTHONDONTWRITEBYTECODE (nothing is written into the repository under test), so without the
// cached bytecode each of them would compile the whole harness again at start (issue 13).
import path from 'node:path';
import { execa } from 'execa';

/**
 * Best effort: a harness folder that is read-only here only costs the compile per process.
 * `-I -S`: the interpreter may be a provisioned environment's, whose site-packages a pull
 * request's dependencies filled; no .pth file or sitecustomize of it may run outside the sandbox.
 */
export async function compileHarness(pythonExecutable: string, harnessDir: string): Promise<void> {
  await execa(pythonExecutable, ['-I', '-S', '-m', 'compileall', '-q', path.join(harnessDir, 'crashprobe')], {
    reject: false,
    timeout: 60_000,
    stdin: 'ignore',
    env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
    extendEnv: false,
  });
}
