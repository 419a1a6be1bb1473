// The App as a web server, from its settings: a node http server in front of Probot's
// middleware (so the webhook body is capped before it is buffered), the state file, the worker pool.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createNodeMiddleware, Probot } from 'probot';
import { chooseHarness } from '../harness/choose.ts';
import { appProvisioner } from '../env/app-provisioner.ts';
import { llmClientFromEnv } from '../llm/from-env.ts';
import { reviewPullRequest } from '../../core/review/review.ts';
import { openState } from '../../store/state.ts';
import crashprobeApp, { type CrashprobeApp } from './app.ts';
import type { AppSettings } from './settings.ts';
import { BodyTooLargeError, readCappedBody } from './webhook-body.ts';

export async function startServer(settings: AppSettings): Promise<{ server: Server; app: CrashprobeApp; stop(): Promise<void> }> {
  const state = openState(settings.statePath);
  const probot = new Probot({
    appId: settings.appId,
    privateKey: settings.privateKey,
    secret: settings.webhookSecret,
    baseUrl: settings.baseUrl,
    logLevel: settings.logLevel,
  });
  let app: CrashprobeApp | undefined;
  const middleware = await createNodeMiddleware((loaded, options) => {
    app = crashprobeApp(loaded, options, {
      state,
      review: reviewPullRequest,
      // The harness needs python3 on the server; without it the review says so and goes on statically.
      // Forks are decided in the job (harnessOffReason); here the harness is prepared with bubblewrap when PATH has it.
      harness: (config, logger, python) =>
        chooseHarness(config, { enabled: true, fromFork: false, python: python ?? settings.python, searchPath: settings.searchPath }, logger),
      dependencies: settings.env && appProvisioner(settings.env, { python: settings.python, searchPath: settings.searchPath }),
      concurrency: settings.concurrency,
      reviewsPerHour: settings.reviewsPerHour,
      llm: (config, logger, store) => {
        const { client, warning } = llmClientFromEnv(settings.llmEnv, config.audit.model, { store, logger });
        if (warning) logger.warn(warning);
        return client;
      },
    });
  }, { probot, webhooksPath: settings.webhookPath });

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method === 'GET' && request.url === '/ping') {
      response.writeHead(200).end('PONG');
      return;
    }
    if (request.method === 'POST' && new URL(request.url ?? '/', 'http://app').pathname === settings.webhookPath) {
      try {
        (request as IncomingMessage & { body?: string }).body = await readCappedBody(request);
      } catch (error) {
        // Never the payload in the log: only why it was refused.
        const tooLarge = error instanceof BodyTooLargeError;
        probot.log.warn(`webhook refused: ${error instanceof Error ? error.message : String(error)}`);
        response.writeHead(tooLarge ? 413 : 400, { connection: 'close' }).end(tooLarge ? 'payload too large\n' : 'bad request\n');
        return;
      }
    }
    await middleware(request, response, () => response.writeHead(404).end());
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      probot.log.error(`webhook handling failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  return {
    server,
    app: app!,
    async stop() {
      await app?.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      state.close();
    },
  };
}
