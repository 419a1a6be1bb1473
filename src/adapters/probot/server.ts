// The App as a web server, from its settings: a node http server in front of Probot's
// middleware (so the webhook body is capped before it is buffered), the operability endpoints
// (/healthz, /readyz, /metrics), and, in the `both` role (`npm start`), the worker pool too.
// The `web` role (`npm run web`) only records deliveries and queues their jobs.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createNodeMiddleware } from 'probot';
import type { AppBackend } from '../../store/backend.ts';
import type { CrashprobeApp } from './app.ts';
import { answerHealth, closeServer } from './health.ts';
import type { AppMetrics } from './metrics.ts';
import { openRuntime, type RuntimeOptions } from './runtime.ts';
import type { AppSettings } from './settings.ts';
import { BodyTooLargeError, readCappedBody } from './webhook-body.ts';

export interface RunningServer {
  server: Server;
  app: CrashprobeApp;
  backend: AppBackend;
  metrics: AppMetrics;
  /** Stops taking webhooks and jobs, lets running jobs finish within the grace, closes the database. */
  stop(): Promise<void>;
}

export async function startServer(settings: AppSettings, options: RuntimeOptions & { role?: 'web' | 'both' } = {}): Promise<RunningServer> {
  const runtime = await openRuntime(settings, options.role ?? 'both', options);
  const { probot, backend, metrics } = runtime;
  const middleware = await createNodeMiddleware((loaded) => void runtime.load(loaded), { probot, webhooksPath: settings.webhookPath });
  let accepting = true;
  const health = { ping: () => backend.ping(), metrics, accepting: () => accepting };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method === 'GET' && request.url === '/ping') {
      response.writeHead(200).end('PONG');
      return;
    }
    if (await answerHealth(request, response, health)) return;
    if (request.method === 'POST' && new URL(request.url ?? '/', 'http://app').pathname === settings.webhookPath) {
      try {
        (request as IncomingMessage & { body?: string }).body = await readCappedBody(request);
      } catch (error) {
        // Never the payload in the log: only why it was refused, and which delivery.
        const tooLarge = error instanceof BodyTooLargeError;
        probot.log.warn({ deliveryId: request.headers['x-github-delivery'] }, `webhook refused: ${error instanceof Error ? error.message : String(error)}`);
        response.writeHead(tooLarge ? 413 : 400, { connection: 'close' }).end(tooLarge ? 'payload too large\n' : 'bad request\n');
        return;
      }
    }
    await middleware(request, response, () => response.writeHead(404).end());
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      probot.log.error({ deliveryId: request.headers['x-github-delivery'] }, `webhook handling failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  const app = runtime.app();
  if (!app) throw new Error('Probot did not load the crashprobe app; this is a bug in crashprobe');
  return {
    server,
    app,
    backend,
    metrics,
    async stop() {
      accepting = false;
      // No new webhooks (a load balancer sees /readyz 503 and the closed port); answers in flight finish.
      const closed = closeServer(server);
      await app.stop();
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      server.closeAllConnections();
      await backend.close();
    },
  };
}
