// What every process type (web, worker, both) builds from the settings: the backend, a Probot
// that logs JSON, the metrics, and the App with the review's harness and LLM wrapped so the
// metrics count harness runs and tokens without the core knowing.
import { Probot, type Options as ProbotOptions } from 'probot';
import { chooseHarness } from '../harness/choose.ts';
import { appProvisioner } from '../env/app-provisioner.ts';
import { llmClientFromEnv } from '../llm/from-env.ts';
import { reviewPullRequest } from '../../core/review/review.ts';
import { openBackend } from '../../store/open.ts';
import type { AppBackend } from '../../store/backend.ts';
import crashprobeApp, { type AppRole, type CrashprobeApp } from './app.ts';
import { createMetrics, type AppMetrics } from './metrics.ts';
import type { AppSettings } from './settings.ts';


export interface Runtime {
  role: AppRole;
  backend: AppBackend;
  probot: Probot;
  metrics: AppMetrics;
  /** The App, once Probot loaded it (web and both: through the middleware; worker: at once). */
  app(): CrashprobeApp | undefined;
  /** Builds the App on a Probot (the middleware's loader passes its own). */
  load(probot: Probot): CrashprobeApp;
}

export interface RuntimeOptions {
  /** A pino logger to use instead of Probot's (tests capture the lines). */
  log?: ProbotOptions['log'];
}

export async function openRuntime(settings: AppSettings, role: AppRole, options: RuntimeOptions = {}): Promise<Runtime> {
  const backend = await openBackend({ databaseUrl: settings.databaseUrl, statePath: settings.statePath, jobTimeoutMs: settings.jobTimeoutMs });
  const probot = new Probot({
    appId: settings.appId,
    privateKey: settings.privateKey,
    secret: settings.webhookSecret,
    baseUrl: settings.baseUrl,
    logLevel: settings.logLevel,
    logFormat: settings.logFormat,
    ...(options.log ? { log: options.log } : {}),
  });
  const metrics = createMetrics({ role, jobCounts: () => backend.counts() });
  let app: CrashprobeApp | undefined;
  const load = (loaded: Probot): CrashprobeApp =>
    (app = crashprobeApp(loaded, undefined, {
      backend,
      role,
      workers: settings.workers,
      graceMs: settings.graceMs,
      leaseMs: settings.leaseMs,
      reviewsPerHour: settings.reviewsPerHour,
      review: reviewPullRequest,
      // The harness needs python3 on the server; without it the review says so and goes on statically.
      // Forks are decided in the job (harnessOffReason); here the harness is prepared with bubblewrap when PATH has it.
      harness: async (config, logger, python) => {
        const choice = await chooseHarness(config, { enabled: true, fromFork: false, python: python ?? settings.python, searchPath: settings.searchPath }, logger);
        return choice.harness ? { ...choice, harness: metrics.harness(choice.harness) } : choice;
      },
      dependencies: settings.env && appProvisioner(settings.env, { python: settings.python, searchPath: settings.searchPath }),
      llm: (config, logger, store) => {
        const { client, warning } = llmClientFromEnv(settings.llmEnv, config.audit.model, { store, logger });
        if (warning) logger.warn(warning);
        return client && metrics.llm(client);
      },
      hooks: {
        onJobEnd(job, outcome) {
          metrics.countJob(outcome);
          // Delivery to posted (or to the final failure): from when the delivery queued the job.
          if (outcome === 'done' || outcome === 'failed' || outcome === 'timeout') metrics.observeReview((Date.now() - job.queuedAt) / 1000, outcome);
        },
      },
    }));
  return { role, backend, probot, metrics, app: () => app, load };
}
