// The webhook body is capped before it is buffered (issue 9): a real http server on 127.0.0.1.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { BodyTooLargeError, readCappedBody } from '../../../src/adapters/probot/webhook-body.ts';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(maxBytes: number): Promise<{ url: string; seen: { received: number; outcome: string }[] }> {
  const seen: { received: number; outcome: string }[] = [];
  server = createServer((req, res) => {
    let received = 0;
    req.on('data', (c: Buffer) => (received += c.length));
    readCappedBody(req, maxBytes).then(
      (body) => {
        seen.push({ received, outcome: `ok ${body.length}` });
        res.end('ok');
      },
      (error: unknown) => {
        seen.push({ received, outcome: error instanceof BodyTooLargeError ? 'too large' : String(error) });
        res.writeHead(413, { connection: 'close' }).end();
      },
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/`, seen };
}

function post(url: string, chunks: number, chunkBytes: number, declare: boolean): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: 'POST', headers: declare ? { 'content-length': String(chunks * chunkBytes) } : { 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(-1));
    const chunk = Buffer.alloc(chunkBytes, 97);
    let sent = 0;
    const write = () => {
      while (sent < chunks) {
        sent++;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

it('refuses a body that declares more than the cap from its header', async () => {
  const { url, seen } = await serve(1024);
  expect(await post(url, 4, 1024, true)).toBe(413);
  expect(seen.map((s) => s.outcome)).toEqual(['too large']);
});

it('refuses a chunked body as soon as it passes the cap, keeping none of it', async () => {
  const { url, seen } = await serve(64 * 1024);
  const status = await post(url, 64, 16 * 1024, false);
  expect([413, -1]).toContain(status);
  expect(seen[0]?.outcome).toBe('too large');
});

it('reads a body under the cap whole', async () => {
  const { url, seen } = await serve(64 * 1024);
  expect(await post(url, 3, 1000, true)).toBe(200);
  expect(seen).toEqual([{ received: 3000, outcome: 'ok 3000' }]);
});
