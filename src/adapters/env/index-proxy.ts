// The only way out of the install sandbox: an HTTP proxy on a Unix socket that
// forwards to the package index's host:port (and the host its files come from)
// and refuses everything else. HTTPS goes through CONNECT (the proxy sees only the
// host:port, never the bytes); plain HTTP (a local mirror) is forwarded request by
// request. The sandbox has no network of its own (--unshare-net): a forwarder inside
// it relays 127.0.0.1 connections to this socket.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface IndexProxy {
  /** The Unix socket the sandbox binds. */
  socketPath: string;
  /** host:port pairs refused so far (for the note when an install fails). */
  refused: string[];
  close(): Promise<void>;
}

/** host:port of a URL, with the scheme's port when none is given. */
export function hostPort(url: string): string {
  const u = new URL(url);
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return `${u.hostname.replace(/^\[|\]$/g, '').toLowerCase()}:${port}`;
}

/** Where the index's files may come from: the index itself, and files.pythonhosted.org for PyPI. */
export function allowedHosts(indexUrl: string, extra: readonly string[] = []): string[] {
  const hosts = new Set([hostPort(indexUrl), ...extra.map((h) => (h.includes(':') ? h : `${h}:443`).toLowerCase())]);
  if (new URL(indexUrl).hostname === 'pypi.org') hosts.add('files.pythonhosted.org:443');
  return [...hosts];
}

export async function startIndexProxy(allowed: readonly string[]): Promise<IndexProxy> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-proxy-'));
  const socketPath = path.join(dir, 'proxy.sock');
  const allow = new Set(allowed.map((h) => h.toLowerCase()));
  const refused: string[] = [];
  const sockets = new Set<net.Socket>();
  const refuse = (target: string) => {
    if (!refused.includes(target)) refused.push(target);
  };

  const server = http.createServer((req, res) => {
    // Plain HTTP through a proxy: an absolute URL in the request line.
    let target: string;
    let url: URL;
    try {
      url = new URL(req.url ?? '');
      if (url.protocol !== 'http:') throw new Error('not http');
      target = hostPort(url.href);
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('crashprobe index proxy: absolute http:// URL expected\n');
      return;
    }
    if (!allow.has(target)) {
      refuse(target);
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`crashprobe index proxy: ${target} is not the package index\n`);
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const upstream = http.request(
      { host: url.hostname, port: Number(url.port || 80), path: url.pathname + url.search, method: req.method, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`crashprobe index proxy: ${target}: ${error.message}\n`);
    });
    req.pipe(upstream);
  });

  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const target = (req.url ?? '').toLowerCase();
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(target);
    if (!m || !allow.has(`${m[1]!.replace(/^\[|\]$/g, '')}:${m[2]}`)) {
      refuse(target);
      client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\ncrashprobe index proxy: ${target} is not the package index\n`);
      return;
    }
    const upstream = net.connect(Number(m[2]), m[1]!.replace(/^\[|\]$/g, ''), () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', (error) => {
      if (client.writable) client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\ncrashprobe index proxy: ${target}: ${error.message}\n`);
      client.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  // The sandbox's user is not the socket's owner on every setup: anyone who can reach the folder may connect.
  await chmod(socketPath, 0o666);
  return {
    socketPath,
    refused,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
