// The App as a web server, from its settings: Probot's Server, the state file, the worker pool.
import { Probot, Server } from 'probot';
import { chooseHarness } from '../harness.ts';
import { llmClientFromEnv } from '../llm-settings.ts';
import { reviewPullRequest } from '../../core/review/review.ts';
import { openState } from '../../store/state.ts';
import crashprobeApp, { type CrashprobeApp } from './app.ts';
import type { AppSettings } from './settings.ts';

export async function startServer(settings: AppSettings): Promise<{ server: Server; app: CrashprobeApp; stop(): Promise<void> }> {
  const state = openState(settings.statePath);
  const server = new Server({
    Probot: Probot.defaults({
      appId: settings.appId,
      privateKey: settings.privateKey,
      secret: settings.webhookSecret,
      baseUrl: settings.baseUrl,
      logLevel: settings.logLevel,
    }),
    port: settings.port,
    host: settings.host,
    webhookPath: settings.webhookPath,
    enableStaticFiles: false,
  });
  let app: CrashprobeApp | undefined;
  await server.load((probot, options) => {
    app = crashprobeApp(probot, options, {
      state,
      review: reviewPullRequest,
      // The harness needs python3 on the server; without it the review says so and goes on statically.
      // Forks are decided in the job (harnessOffReason); here the harness is prepared with bubblewrap when PATH has it.
      harness: (config, logger) =>
        chooseHarness(config, { enabled: true, fromFork: false, python: settings.python, searchPath: settings.searchPath }, logger),
      concurrency: settings.concurrency,
      llm: (config, logger) => {
        const { client, warning } = llmClientFromEnv(settings.llmEnv, config.audit.model, { store: state.verdicts, logger });
        if (warning) logger.warn(warning);
        return client;
      },
    });
  });
  await server.start();
  return {
    server,
    app: app!,
    async stop() {
      await app?.stop();
      await server.stop();
      state.close();
    },
  };
}

