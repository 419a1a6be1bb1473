import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { allowedHosts, hostPort, startIndexProxy, type IndexProxy } from '../../../src/adapters/env/index-proxy.ts';

let proxy: IndexProxy | undefined;
const servers: http.Server[] = [];
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function upstream(body: string): Promise<number> {
  const server = http.createServer((req, res) => res.end(`${body} ${req.url}`));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as AddressInfo).port;
}

/** A plain-HTTP request through the proxy's Unix socket, as pip sends it (absolute URL). */
function viaProxy(socketPath: string, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, path: url, method: 'GET', headers: { host: new URL(url).host } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A CONNECT through the proxy: the first line of its answer. */
function connect(socketPath: string, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath, () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
    socket.once('data', (data) => {
      resolve(data.toString().split('\r\n')[0]!);
      socket.destroy();
    });
    socket.on('error', reject);
  });
}

describe('index proxy', () => {
  it('allows the index host (and PyPI\'s files host), with the scheme\'s port', () => {
    expect(hostPort('https://pypi.org/simple/')).toBe('pypi.org:443');
    expect(hostPort('http://[::1]:8080/simple')).toBe('::1:8080');
    expect(allowedHosts('https://pypi.org/simple/')).toEqual(['pypi.org:443', 'files.pythonhosted.org:443']);
    expect(allowedHosts('https://mirror.example/simple/', ['files.mirror.example'])).toEqual(['mirror.example:443', 'files.mirror.example:443']);
  });

  it('forwards plain HTTP to the index and refuses every other host', async () => {
    const indexPort = await upstream('index');
    const otherPort = await upstream('other');
    proxy = await startIndexProxy([`127.0.0.1:${indexPort}`]);
    expect(await viaProxy(proxy.socketPath, `http://127.0.0.1:${indexPort}/simple/tinydep/`)).toEqual({ status: 200, body: 'index /simple/tinydep/' });
    const refused = await viaProxy(proxy.socketPath, `http://127.0.0.1:${otherPort}/steal`);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain(`127.0.0.1:${otherPort} is not the package index`);
    expect(proxy.refused).toEqual([`127.0.0.1:${otherPort}`]);
  });

  it('tunnels CONNECT only to an allowed host:port', async () => {
    const indexPort = await upstream('index');
    proxy = await startIndexProxy([`127.0.0.1:${indexPort}`]);
    expect(await connect(proxy.socketPath, `127.0.0.1:${indexPort}`)).toBe('HTTP/1.1 200 Connection established');
    expect(await connect(proxy.socketPath, 'evil.example:443')).toBe('HTTP/1.1 403 Forbidden');
    expect(await connect(proxy.socketPath, `127.0.0.1:${indexPort + 1}`)).toBe('HTTP/1.1 403 Forbidden');
    expect(proxy.refused).toEqual(['evil.example:443', `127.0.0.1:${indexPort + 1}`]);
  });
});
