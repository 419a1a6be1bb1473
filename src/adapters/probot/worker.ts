// `npm run worker`: runs queued reviews (CRASHPROBE_WORKERS at once) and answers nothing from
// GitHub. Probot is used only to authenticate as the App's installations. A small http server
// on CRASHPROBE_METRICS_PORT serves /healthz, /readyz and /metrics for the orchestrator.
import type { Server } from 'node:http';
import type { AppBackend } from '../../store/backend.ts';
import type { CrashprobeApp } from './app.ts';
import { closeServer, startHealthServer } from './health.ts';
import type { AppMetrics } from './metrics.ts';
import { openRuntime, type RuntimeOptions } from './runtime.ts';
import type { AppSettings } from './settings.ts';

export interface RunningWorker {
  app: CrashprobeApp;
  backend: AppBackend;
  metrics: AppMetrics;
  /** The operability server; absent when no metrics port is set. */
  server?: Server;
  stop(): Promise<void>;
}

export async function startWorker(settings: AppSettings, options: RuntimeOptions = {}): Promise<RunningWorker> {
  const runtime = await openRuntime(settings, 'worker', options);
  const app = runtime.load(runtime.probot);
  let accepting = true;
  const server =
    settings.metricsPort === undefined
      ? undefined
      : await startHealthServer({ ping: () => runtime.backend.ping(), metrics: runtime.metrics, accepting: () => accepting }, settings.metricsPort, settings.host);
  return {
    app,
    backend: runtime.backend,
    metrics: runtime.metrics,
    server,
    async stop() {
      accepting = false;
      await app.stop();
      if (server) await Promise.race([closeServer(server), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      server?.closeAllConnections();
      await runtime.backend.close();
    },
  };
}
