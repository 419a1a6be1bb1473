// The load test (issue 14): a fake GitHub, the App as real processes (web replicas and workers
// on PostgreSQL, or one process on SQLite), signed deliveries in bursts with redeliveries and
// superseding pushes, one worker killed with SIGKILL midway; then the figures and the checks.
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BASE_REF, startLoadGitHub, type FakePull, type LoadGitHub } from './fake-github.ts';
import { planDeliveries, type Delivery, type Plan } from './plan.ts';
import { startAppProcess, stopAppProcess, type AppProcess } from './processes.ts';
import { checkLogs, checkOutcome, figures, type Figures } from './report.ts';
import { readdir, readFile } from 'node:fs/promises';

export interface LoadTestOptions {
  backend: 'postgres' | 'sqlite';
  /** postgres://… for the PostgreSQL backend (started by the caller). */
  databaseUrl?: string;
  pulls: number;
  burst: number;
  burstGapMs: number;
  /** PostgreSQL: web replicas and worker processes; SQLite: one process of role `both`. */
  webs: number;
  workers: number;
  /** CRASHPROBE_WORKERS of each worker process. */
  workerConcurrency: number;
  /** SIGKILL a worker midway (SQLite: the one process, then start it again). */
  kill: boolean;
  /** Run the crash harness on the changed function (slower, needs python3); off: the repo's config turns it off. */
  harness: boolean;
  /** CRASHPROBE_LEASE_SECONDS of the processes (how soon the killed worker's job is taken over); default the App's 30 s. */
  leaseSeconds?: number;
  /** How long to wait for every live head's review. */
  timeoutMs: number;
  progress?(line: string): void;
}

export interface LoadTestResult {
  figures: Figures;
  problems: string[];
  killed?: string;
  logDir: string;
  logLines: number;
  plan: Plan;
  metricsSample: string[];
}

const OWNER = 'octo';
/** In one burst, one pull request's deliveries go in this order. */
const ORDER: Record<Delivery['kind'], number> = { opened: 0, push: 1, redelivery: 2, reopened: 3 };
const REPO = 'shop';
const SECRET = 'loadtest-webhook-secret';
const BASE_SHA = 'b'.repeat(40);

/** The changed file of one head: a function that e-mails before it records (the static rules flag it). */
function headFile(pull: number, variant: number) {
  const name = `refund_${pull}_${variant}`;
  const text = ['import sqlite3', '', '', `def ${name}(conn, order_id, mailer):`, '    mailer.send("refund issued", order_id)', '    conn.execute("INSERT INTO refunds (order_id) VALUES (?)", (order_id,))', '    conn.commit()', ''].join('\n');
  const lines = text.split('\n').slice(0, -1);
  const patch = `@@ -0,0 +1,${lines.length} @@\n${lines.map((line) => `+${line}`).join('\n')}`;
  const filename = `shop/pr${pull}/refund_v${variant}.py`;
  return { filename, text, change: { filename, status: 'added', patch } };
}

export async function runLoadTest(options: LoadTestOptions): Promise<LoadTestResult> {
  const say = options.progress ?? (() => {});
  const logDir = await mkdtemp(path.join(os.tmpdir(), `crashprobe-loadtest-${options.backend}-`));
  const plan = planDeliveries({ pulls: options.pulls, burst: options.burst });
  const config = { '.github/crashprobe.yml': options.harness ? 'harness:\n  enabled: true\n' : 'harness:\n  enabled: false\n' };
  // Each head's tree: the config and that head's one changed file; the base: the config alone.
  const trees = new Map<string, Record<string, string>>([[BASE_SHA, config], [BASE_REF, config]]);
  const fakePulls: FakePull[] = plan.pulls.map((p) => {
    const opened = headFile(p.number, 1);
    trees.set(p.openedSha, { ...config, [opened.filename]: opened.text });
    if (p.pushedSha) trees.set(p.pushedSha, { ...config, [headFile(p.number, 2).filename]: headFile(p.number, 2).text });
    return { number: p.number, headSha: p.openedSha, baseSha: BASE_SHA, files: [opened.change] };
  });
  const github = await startLoadGitHub({ owner: OWNER, repo: REPO, pulls: fakePulls, treeOf: (sha) => trees.get(sha) });
  const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
  const env: Record<string, string> = {
    APP_ID: '42',
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: SECRET,
    GHE_HOST: github.host,
    GHE_PROTOCOL: 'http',
    LOG_LEVEL: 'info',
    CRASHPROBE_REVIEWS_PER_HOUR: '100000',
    CRASHPROBE_GRACE_SECONDS: '5',
    ...(options.leaseSeconds ? { CRASHPROBE_LEASE_SECONDS: String(options.leaseSeconds) } : {}),
    ...(options.backend === 'postgres' ? { CRASHPROBE_DATABASE_URL: options.databaseUrl! } : { CRASHPROBE_STATE: path.join(logDir, 'state.db') }),
  };
  const webs: AppProcess[] = [];
  const workers: AppProcess[] = [];
  const all = () => [...webs, ...workers];
  const answers: number[] = [];
  const refused: string[] = [];
  const firstSent = new Map<string, number>();
  let killed: string | undefined;
  try {
    if (options.backend === 'postgres') {
      // The first process creates the schema; the rest start side by side.
      webs.push(await startAppProcess({ name: 'web-1', role: 'web', env, logDir }));
      const rest = [
        ...Array.from({ length: options.webs - 1 }, (_, i) => startAppProcess({ name: `web-${i + 2}`, role: 'web', env, logDir })),
        ...Array.from({ length: options.workers }, (_, i) => startAppProcess({ name: `worker-${i + 1}`, role: 'worker', env: { ...env, CRASHPROBE_WORKERS: String(options.workerConcurrency) }, logDir })),
      ];
      for (const proc of await Promise.all(rest)) (proc.role === 'web' ? webs : workers).push(proc);
    } else {
      webs.push(await startAppProcess({ name: 'app-1', role: 'both', env: { ...env, CRASHPROBE_WORKERS: String(options.workerConcurrency) }, logDir }));
    }
    say(`${options.backend}: ${webs.length} web, ${workers.length} worker process(es) ready; logs in ${logDir}`);

    const started = Date.now();
    let next = 0;
    const send = async (delivery: Delivery) => {
      const target = webs[next++ % webs.length]!;
      const body = JSON.stringify(pullRequestEvent(delivery));
      const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
      if (!firstSent.has(delivery.headSha)) firstSent.set(delivery.headSha, Date.now());
      const begin = performance.now();
      const response = await fetch(`http://127.0.0.1:${target.port}/api/github/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': delivery.id, 'x-hub-signature-256': signature },
        body,
      }).catch((error: Error) => error);
      answers.push(performance.now() - begin);
      if (response instanceof Error) refused.push(`${delivery.id} to ${target.name}: ${response.message}`);
      else {
        await response.text();
        if (response.status >= 300) refused.push(`${delivery.id} to ${target.name}: HTTP ${response.status}`);
      }
    };
    const killAt = Math.floor(plan.bursts.length / 2);
    for (const [index, burst] of plan.bursts.entries()) {
      // The burst's pull requests at once; one pull request's deliveries in GitHub's order (an open,
      // then its push), and the push lands on GitHub before its webhook is sent.
      const byPull = new Map<number, Delivery[]>();
      for (const delivery of burst) byPull.set(delivery.pull, [...(byPull.get(delivery.pull) ?? []), delivery]);
      await Promise.all(
        [...byPull.values()].map(async (deliveries) => {
          for (const delivery of deliveries.sort((a, b) => ORDER[a.kind] - ORDER[b.kind])) {
            if (delivery.kind === 'push') github.push(delivery.pull, delivery.headSha, [headFile(delivery.pull, 2).change]);
            await send(delivery);
          }
        }),
      );
      const slowest = Math.max(...answers.slice(-burst.length));
      say(`burst ${index + 1}/${plan.bursts.length}: ${burst.length} deliveries sent, slowest answer ${slowest.toFixed(0)} ms`);
      if (options.kill && index === killAt) killed = await killOne(options, webs, workers, env, logDir, say);
      await sleep(options.burstGapMs);
    }
    say(`all ${answers.length} deliveries sent in ${((Date.now() - started) / 1000).toFixed(1)} s; waiting for the reviews`);

    const deadline = Date.now() + options.timeoutMs;
    while (Date.now() < deadline && !allReviewed(github, plan)) await sleep(200);
    // Then until the queue is empty (as /metrics reports it), so a late duplicate would be seen.
    while (Date.now() < deadline && !(await queueEmpty(webs[0]!))) await sleep(200);
    await sleep(2_000);
    const metricsSample = await sampleMetrics(webs[0]!);
    // Counters are per process: summed over the processes still running (the killed one's are lost with it).
    const live = all().filter((proc) => proc.name !== killed);
    const texts = await Promise.all(live.map(metricsText));
    for (const name of ['crashprobe_harness_runs_total', 'crashprobe_review_latency_seconds_count']) {
      const total = texts.reduce((sum, text) => sum + [...text.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\d+(?:\\.\\d+)?)$`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0), 0);
      metricsSample.push(`${name} (live processes) ${total}`);
    }
    const problems = [...refused.slice(0, 10).map((r) => `webhook not accepted: ${r}`), ...checkOutcome(github, plan)];
    if (refused.length > 10) problems.push(`… and ${refused.length - 10} more webhooks not accepted`);
    for (const proc of all()) if (proc.name !== killed) await stopAppProcess(proc, 15_000);
    const measured = figures({ answers, firstSent, github, plan });
    // Every process's log, the killed one's included (named <role>-<n>[-restarted].log).
    const logFiles = (await readdir(logDir)).filter((file) => file.endsWith('.log'));
    const logs = await Promise.all(logFiles.map(async (file) => ({ name: file, role: file.startsWith('worker') ? 'worker' : 'web', text: await readFile(path.join(logDir, file), 'utf8') })));
    const logCheck = checkLogs(logs);
    problems.push(...logCheck.problems);
    // GitHub gives up on a webhook after 10 s; the App must answer well inside that, under load too.
    if (!(measured.webhookMs.max < 1000)) problems.push(`a webhook took ${measured.webhookMs.max.toFixed(0)} ms to answer; the limit is 1000 ms`);
    return { figures: measured, problems, killed, logDir, logLines: logCheck.lines, plan, metricsSample };
  } finally {
    for (const proc of all()) proc.kill('SIGKILL');
    await github.close();
  }
}

/** PostgreSQL: SIGKILL the first worker (its jobs must be taken over). SQLite: SIGKILL the one process and start it again. */
async function killOne(options: LoadTestOptions, webs: AppProcess[], workers: AppProcess[], env: Record<string, string>, logDir: string, say: (line: string) => void): Promise<string> {
  await sleep(300); // mid-review: the burst's jobs are running
  if (options.backend === 'postgres') {
    const victim = workers[0]!;
    victim.kill('SIGKILL');
    await victim.exited;
    say(`killed ${victim.name} (pid ${victim.pid}) with SIGKILL`);
    return victim.name;
  }
  const victim = webs[0]!;
  victim.kill('SIGKILL');
  await victim.exited;
  webs[0] = await startAppProcess({ name: 'app-1-restarted', role: 'both', env: { ...env, CRASHPROBE_WORKERS: String(options.workerConcurrency) }, logDir });
  say(`killed ${victim.name} (pid ${victim.pid}) with SIGKILL and started it again`);
  return victim.name;
}

function allReviewed(github: LoadGitHub, plan: Plan): boolean {
  for (const sha of plan.liveHeads.keys()) {
    if (!github.reviews.some((r) => r.sha === sha)) return false;
    if (!github.checkRuns.some((r) => r.head_sha === sha && r.status === 'completed')) return false;
  }
  return true;
}

async function metricsText(proc: AppProcess): Promise<string> {
  return fetch(`http://127.0.0.1:${proc.port}/metrics`).then((r) => r.text(), () => '');
}

async function queueEmpty(proc: AppProcess): Promise<boolean> {
  const text = await metricsText(proc);
  const value = (state: string) => Number(new RegExp(`^crashprobe_jobs\\{[^}]*state="${state}"[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return value('pending') === 0 && value('running') === 0;
}

async function sampleMetrics(proc: AppProcess): Promise<string[]> {
  return (await metricsText(proc)).split('\n').filter((line) => /^crashprobe_(queue_depth|jobs\{)/.test(line));
}

function pullRequestEvent(delivery: Delivery) {
  return {
    action: delivery.action,
    number: delivery.pull,
    ...(delivery.before ? { before: delivery.before, after: delivery.headSha } : {}),
    pull_request: {
      number: delivery.pull,
      draft: false,
      state: 'open',
      head: { sha: delivery.headSha, ref: `feature-${delivery.pull}`, repo: { full_name: `${OWNER}/${REPO}` } },
      base: { sha: BASE_SHA, ref: 'main', repo: { full_name: `${OWNER}/${REPO}` } },
    },
    repository: { id: 1, name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } },
    installation: { id: 7 },
    sender: { login: 'alice', type: 'User' },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
