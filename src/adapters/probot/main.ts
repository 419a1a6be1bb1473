// The App's processes, and the only place the App reads the environment (Probot's standard
// variables plus CRASHPROBE_*):
//   main.ts          `npm start`: web + workers in one process (SQLite or PostgreSQL)
//   main.ts web      `npm run web`: answers webhooks and queues jobs (needs a shared database to scale)
//   main.ts worker   `npm run worker`: runs reviews, CRASHPROBE_WORKERS at once (default: the cores)
// The role may also come from CRASHPROBE_ROLE. SIGTERM (or SIGINT): stop taking webhooks and
// jobs, let running reviews finish within CRASHPROBE_GRACE_SECONDS (default 30; the rest are
// handed back to the queue at once), close the database, exit 0. A second signal exits at once.
import { startServer } from './server.ts';
import { startWorker } from './worker.ts';
import { ROLES, type AppRole } from './app.ts';
import { readSettings, SettingsError, type AppSettings } from './settings.ts';

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

function readRole(argument: string | undefined, env: NodeJS.ProcessEnv): AppRole {
  const role = argument ?? env.CRASHPROBE_ROLE ?? 'both';
  if (!(ROLES as readonly string[]).includes(role)) fail(`crashprobe cannot start: the role must be one of ${ROLES.join(', ')} (argument or CRASHPROBE_ROLE), not "${role}"`);
  return role as AppRole;
}

async function main(): Promise<void> {
  const role = readRole(process.argv[2], process.env);
  let settings: AppSettings;
  try {
    settings = readSettings(process.env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    fail(error.message);
  }
  const running = role === 'worker' ? await startWorker(settings) : await startServer(settings, { role });
  const shutdown = () => {
    // A second signal means: stop now; a job still running is taken over once its lease runs out.
    process.once('SIGTERM', () => process.exit(143));
    process.once('SIGINT', () => process.exit(130));
    // Should anything hang past the grace, exit all the same: the queue hands the work on.
    setTimeout(() => process.exit(1), settings.graceMs + 15_000).unref();
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`crashprobe: stopping failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

await main();
