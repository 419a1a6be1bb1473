// A throwaway PostgreSQL server for tests: initdb in a temporary folder (as `nobody` when run as
// root, since initdb refuses root), pg_ctl start on a free port with its unix socket in that
// folder, stopped and deleted by `stop()`. No PostgreSQL binaries: the test fails saying how to install them.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
  const log = path.join(dir, 'log');
  let port = 0;
  try {
    run('initdb', ['-D', data, '-U', 'crashprobe', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    // The port is free when freePort() asks, not always when the server binds it a moment later
    // (any process on the machine may bind it first): on "Address already in use", start again on another port.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const logBefore = existsSync(log) ? readFileSync(log, 'utf8').length : 0;
      try {
        run('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, 'start']);
        break;
      } catch (error) {
        const said = existsSync(log) ? readFileSync(log, 'utf8').slice(logBefore) : '';
        if (attempt === 3 || !/Address already in use/.test(said)) throw error;
      }
    }
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    const said = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL could not start for the tests: ${(e.stderr || e.message).trim()}${said ? `\n--- server log ---\n${said}` : ''}`);
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
