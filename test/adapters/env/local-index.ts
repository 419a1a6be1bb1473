// A PEP 503 "simple" package index on 127.0.0.1 over wheels built by the test
// (test/fixtures/deps/make_wheel.py: a zip with METADATA, WHEEL and RECORD).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

export const MAKE_WHEEL = fileURLToPath(new URL('../../fixtures/deps/make_wheel.py', import.meta.url));

export interface WheelSpec {
  name: string;
  version: string;
  requires?: string[];
  files: Record<string, string>;
  /** Files of that many zero bytes. */
  sized?: Record<string, number>;
}

export async function buildWheel(outDir: string, spec: WheelSpec): Promise<string> {
  const result = await execa('python3', [MAKE_WHEEL, outDir, JSON.stringify(spec)]);
  return String(result.stdout).trim();
}

export interface LocalIndex {
  url: string;
  /** Requests seen, as "GET /simple/tinydep/". */
  requests: string[];
  close(): Promise<void>;
}

const normalize = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/** Serves every .whl (and .tar.gz) in `dir` as /simple/<project>/ pages and /files/<name>. */
export async function startLocalIndex(dir: string): Promise<LocalIndex> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const files = readdirSync(dir).filter((f) => f.endsWith('.whl') || f.endsWith('.tar.gz'));
    const project = (f: string) => normalize(f.split('-')[0]!);
    const url = req.url ?? '/';
    if (url === '/simple/' || url === '/simple') {
      const names = [...new Set(files.map(project))];
      res.end(`<!DOCTYPE html><html><body>${names.map((n) => `<a href="/simple/${n}/">${n}</a>`).join('\n')}</body></html>`);
      return;
    }
    const page = /^\/simple\/([^/]+)\/?$/.exec(url);
    if (page) {
      const mine = files.filter((f) => project(f) === normalize(page[1]!));
      if (!mine.length) {
        res.writeHead(404).end('not found');
        return;
      }
      const links = mine.map((f) => {
        const sha = createHash('sha256').update(readFileSync(path.join(dir, f))).digest('hex');
        return `<a href="/files/${f}#sha256=${sha}">${f}</a>`;
      });
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!DOCTYPE html><html><body>${links.join('\n')}</body></html>`);
      return;
    }
    const file = /^\/files\/([^/]+)$/.exec(url);
    if (file && files.includes(file[1]!)) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(path.join(dir, file[1]!)));
      return;
    }
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/simple/`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
