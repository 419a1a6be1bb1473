// `npm start`: the App as a web server. The only place the App reads the
// environment (Probot's standard variables plus CRASHPROBE_*).
import { startServer } from './server.ts';
import { readSettings, SettingsError, type AppSettings } from './settings.ts';

async function main(): Promise<void> {
  let settings: AppSettings;
  try {
    settings = readSettings(process.env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
  const running = await startServer(settings);
  const shutdown = () => {
    // A second signal means: stop now; the unfinished jobs resume on the next start.
    process.once('SIGINT', () => process.exit(130));
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

await main();
