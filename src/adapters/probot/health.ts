// The operability endpoints every process answers: /healthz (the process runs), /readyz (the
// database answers; 503 otherwise, so a load balancer stops sending webhooks to a replica that
// cannot record them) and /metrics (Prometheus). Web replicas mount it in front of Probot; a
// worker-only process serves it alone on CRASHPROBE_METRICS_PORT.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AppMetrics } from './metrics.ts';

export interface HealthSources {
  /** Resolves when the database answers; rejects (or times out) otherwise. */
  ping(): Promise<void>;
  metrics: AppMetrics;
  /** False once the process is stopping: /readyz then answers 503 so no new work is routed here. */
  accepting(): boolean;
}

const PING_TIMEOUT_MS = 2_000;

/** Answers the request when it is one of the operability paths; returns false for anything else. */
export async function answerHealth(request: IncomingMessage, response: ServerResponse, sources: HealthSources): Promise<boolean> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const pathname = new URL(request.url ?? '/', 'http://app').pathname;
  if (pathname === '/healthz') {
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
    return true;
  }
  if (pathname === '/readyz') {
    if (!sources.accepting()) {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('stopping\n');
      return true;
    }
    const problem = await withTimeout(sources.ping(), PING_TIMEOUT_MS).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    if (problem === undefined) response.writeHead(200, { 'content-type': 'text/plain' }).end('ready\n');
    else response.writeHead(503, { 'content-type': 'text/plain' }).end(`database unreachable: ${problem}\n`);
    return true;
  }
  if (pathname === '/metrics') {
    try {
      const { body, contentType } = await sources.metrics.render();
      response.writeHead(200, { 'content-type': contentType }).end(body);
    } catch (error) {
      // A scrape while the database is down: say so rather than serve half the metrics.
      response.writeHead(503, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    return true;
  }
  return false;
}

/** The endpoints alone, for a worker-only process. */
export async function startHealthServer(sources: HealthSources, port: number, host: string): Promise<Server> {
  const server = createServer((request, response) => {
    answerHealth(request, response, sources)
      .then((answered) => {
        if (!answered) response.writeHead(404).end();
      })
      .catch(() => {
        if (!response.headersSent) response.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
