// The App's processes for the load test: real child processes of `main.ts` (web, worker or both)
// under node with tsx, as `npm run web` / `npm run worker` / `npm start` run them, each with its
// own log file, ready once its /readyz answers 200.
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface AppProcess {
  name: string;
  role: 'web' | 'worker' | 'both';
  /** The port answering /readyz and /metrics (the webhook port for web and both). */
  port: number;
  pid: number;
  logFile: string;
  exited: Promise<{ exitCode?: number; signal?: string }>;
  kill(signal: NodeJS.Signals): void;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startAppProcess(options: { name: string; role: AppProcess['role']; env: Record<string, string>; logDir: string }): Promise<AppProcess> {
  const port = await freePort();
  const portEnv = options.role === 'worker' ? { CRASHPROBE_METRICS_PORT: String(port) } : { PORT: String(port) };
  const logFile = path.join(options.logDir, `${options.name}.log`);
  const child: ResultPromise = execa(process.execPath, ['--import', 'tsx', 'src/adapters/probot/main.ts', options.role], {
    cwd: ROOT,
    reject: false,
    extendEnv: false,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', ...options.env, ...portEnv },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const log = createWriteStream(logFile);
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = child.then((result) => ({ exitCode: result.exitCode, signal: result.signal }));
  const proc: AppProcess = {
    name: options.name,
    role: options.role,
    port,
    pid: child.pid!,
    logFile,
    exited,
    kill: (signal) => child.kill(signal),
  };
  await waitReady(proc, 60_000);
  return proc;
}

async function waitReady(proc: AppProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let done = false;
  void proc.exited.then(() => (done = true));
  while (Date.now() < deadline) {
    if (done) throw new Error(`${proc.name} exited before it was ready; see ${proc.logFile}`);
    const status = await fetch(`http://127.0.0.1:${proc.port}/readyz`).then((r) => r.status, () => 0);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${proc.name} was not ready (GET /readyz) within ${timeoutMs / 1000} s; see ${proc.logFile}`);
}

/** SIGTERM, then SIGKILL after `graceMs`. */
export async function stopAppProcess(proc: AppProcess, graceMs = 10_000): Promise<void> {
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
  await proc.exited;
  clearTimeout(timer);
}
