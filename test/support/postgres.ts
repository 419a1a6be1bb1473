// A throwaway PostgreSQL server for tests: initdb in a temporary folder (as `nobody` when run as
// root, since initdb refuses root), pg_ctl start on a free port with its unix socket in that
// folder, stopped and deleted by `stop()`. No PostgreSQL binaries: the test fails saying how to install them.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface TestPostgres {
  url: string;
  /** A fresh, empty database on the same server. */
  database(name: string): Promise<string>;
  stop(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions.length)
    throw new Error('PostgreSQL server binaries are missing (no /usr/lib/postgresql/*/bin/initdb): run scripts/setup.sh or `apt-get install -y --no-install-recommends postgresql`.');
  return path.join(root, versions[0]!, 'bin');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crashprobe-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['nobody:nogroup', dir]);
  chmodSync(dir, 0o700);
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? ['runuser', '-u', 'nobody', '--', path.join(bin, tool), ...args] : [path.join(bin, tool), ...args];
    return execFileSync(command[0]!, command.slice(1), { stdio: 'pipe', encoding: 'utf8', timeout: 120_000 });
  };
  const data = path.join(dir, 'data');
  const port = await freePort();
  try {
    run('initdb', ['-D', data, '-U', 'crashprobe', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, 'start']);
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL could not start for the tests: ${(e.stderr || e.message).trim()}`);
  }
  const url = `postgres://crashprobe@127.0.0.1:${port}/postgres`;
  return {
    url,
    async database(name) {
      run('createdb', ['-h', dir, '-p', String(port), '-U', 'crashprobe', name]);
      return `postgres://crashprobe@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
