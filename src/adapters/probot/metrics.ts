// The App's Prometheus metrics (prom-client), one registry per process: the queue as the
// backend counts it (read at scrape time, so every replica reports the shared queue), review
// latency from delivery to posted review, crash-harness runs and LLM tokens. Harness runs and
// tokens are counted by wrapping the HarnessRunner and LlmClient handed to a review, so the
// core knows nothing of metrics.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HarnessRunner, LlmClient } from '../../core/ports.ts';
import type { JobCounts } from '../../store/backend.ts';

export interface AppMetrics {
  registry: Registry;
  /** A review was posted (or concluded): seconds from the webhook delivery to the posting. */
  observeReview(seconds: number, outcome: string): void;
  /** A job ended in the pool: counted by how it ended. */
  countJob(outcome: string): void;
  harness(runner: HarnessRunner): HarnessRunner;
  llm(client: LlmClient): LlmClient;
  /** The text of /metrics and its content type. */
  render(): Promise<{ body: string; contentType: string }>;
}

export function createMetrics(options: { role: string; jobCounts?: () => Promise<JobCounts>; defaultMetrics?: boolean }): AppMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ role: options.role });
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'crashprobe_' });

  // Gauges of the shared queue, read from the backend at scrape time.
  let counts: Partial<JobCounts> | undefined;
  let countsAt = 0;
  const readCounts = async (): Promise<Partial<JobCounts>> => {
    // One read per scrape even though two gauges ask.
    if (!options.jobCounts) return {};
    if (!counts || Date.now() - countsAt > 500) {
      counts = await options.jobCounts();
      countsAt = Date.now();
    }
    return counts;
  };
  new Gauge({
    name: 'crashprobe_queue_depth',
    help: 'Review jobs waiting to run (all replicas, from the database).',
    registers: [registry],
    async collect() {
      // Waiting to run: pending (a retry's back-off included).
      this.set((await readCounts()).pending ?? 0);
    },
  });
  new Gauge({
    name: 'crashprobe_jobs',
    help: 'Review jobs by state (all replicas, from the database).',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const byState = await readCounts();
      this.reset();
      for (const [state, n] of Object.entries(byState)) this.set({ state }, n);
    },
  });
  const reviewSeconds = new Histogram({
    name: 'crashprobe_review_latency_seconds',
    help: 'Seconds from the webhook delivery to the posted review.',
    labelNames: ['outcome'],
    buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800],
    registers: [registry],
  });
  const jobsEnded = new Counter({ name: 'crashprobe_jobs_ended_total', help: 'Review jobs this process ended, by outcome.', labelNames: ['outcome'], registers: [registry] });
  const campaigns = new Counter({ name: 'crashprobe_harness_campaigns_total', help: 'Crash-harness campaigns (one per review that runs code), by outcome.', labelNames: ['outcome'], registers: [registry] });
  const harnessRuns = new Counter({ name: 'crashprobe_harness_runs_total', help: 'Crash runs the harness made (each crash point, each transaction mode).', registers: [registry] });
  const tokens = new Counter({ name: 'crashprobe_llm_tokens_total', help: 'LLM tokens used by the audit.', labelNames: ['model', 'direction'], registers: [registry] });
  const llmCalls = new Counter({ name: 'crashprobe_llm_calls_total', help: 'LLM calls made by the audit, by outcome.', labelNames: ['model', 'outcome'], registers: [registry] });

  return {
    registry,
    observeReview: (seconds, outcome) => reviewSeconds.observe({ outcome }, seconds),
    countJob: (outcome) => jobsEnded.inc({ outcome }),
    harness: (runner) => ({
      async run(files) {
        try {
          const result = await runner.run(files);
          campaigns.inc({ outcome: result.errors.length ? 'errors' : 'ok' });
          harnessRuns.inc(result.runs);
          return result;
        } catch (error) {
          campaigns.inc({ outcome: 'failed' });
          throw error;
        }
      },
    }),
    llm: (client) => ({
      model: client.model,
      pricing: client.pricing,
      async complete(request) {
        try {
          const response = await client.complete(request);
          llmCalls.inc({ model: client.model, outcome: response.cached ? 'cached' : 'ok' });
          if (response.cached) return response; // answered from the cache: no tokens spent
          tokens.inc({ model: client.model, direction: 'input' }, response.inputTokens);
          tokens.inc({ model: client.model, direction: 'output' }, response.outputTokens);
          return response;
        } catch (error) {
          llmCalls.inc({ model: client.model, outcome: 'failed' });
          throw error;
        }
      },
    }),
    async render() {
      return { body: await registry.metrics(), contentType: registry.contentType };
    },
  };
}
