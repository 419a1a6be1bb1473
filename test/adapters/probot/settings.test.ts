import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { readSettings, SettingsError } from '../../../src/adapters/probot/settings.ts';
import { PRIVATE_KEY } from './helpers.ts';

describe('readSettings', () => {
  it("reads Probot's standard variables and crashprobe's own", () => {
    const settings = readSettings({
      APP_ID: '42',
      PRIVATE_KEY: PRIVATE_KEY.replace(/\n/g, '\\n'),
      WEBHOOK_SECRET: 's',
      PORT: '4000',
      GHE_HOST: 'github.example.com',
      CRASHPROBE_STATE: '/var/lib/crashprobe/state.db',
      CRASHPROBE_CONCURRENCY: '4',
      CRASHPROBE_PYTHON: '/opt/python3.12/bin/python3',
      PATH: '/usr/local/bin:/usr/bin',
      OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1',
      CRASHPROBE_MODEL: 'qwen2.5-coder',
      UNRELATED_SECRET: 'never copied',
    });
    expect(settings).toMatchObject({
      // The harness looks for bubblewrap on this PATH: pull-request code must run sandboxed in the app too.
      python: '/opt/python3.12/bin/python3',
      searchPath: ['/usr/local/bin', '/usr/bin'],
      llmEnv: {
        OPENAI_API_KEY: undefined,
        OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1',
        ANTHROPIC_API_KEY: undefined,
        ANTHROPIC_BASE_URL: undefined,
        CRASHPROBE_MODEL: 'qwen2.5-coder',
      },
      appId: 42,
      privateKey: PRIVATE_KEY,
      port: 4000,
      baseUrl: 'https://github.example.com/api/v3',
      statePath: '/var/lib/crashprobe/state.db',
      // The older CRASHPROBE_CONCURRENCY still sets the workers.
      workers: 4,
      webhookPath: '/api/github/webhooks',
    });
  });

  it('defaults the state file under the working folder and reads the key from PRIVATE_KEY_PATH', () => {
    const settings = readSettings({ APP_ID: '1', PRIVATE_KEY_PATH: '/keys/app.pem', WEBHOOK_SECRET: 's' }, () => PRIVATE_KEY);
    expect(settings).toMatchObject({ statePath: './.crashprobe/state.db', port: 3000, baseUrl: undefined, workers: os.availableParallelism() });
    // Without CRASHPROBE_DATABASE_URL the state stays in the SQLite file.
    expect(settings).toMatchObject({ databaseUrl: undefined, graceMs: 30_000, jobTimeoutMs: 30 * 60_000 });
  });

  it('reads the scale-out settings: PostgreSQL, workers, the grace and the job time limit (issue 14)', () => {
    const base = { APP_ID: '1', PRIVATE_KEY: PRIVATE_KEY, WEBHOOK_SECRET: 's' };
    const settings = readSettings({
      ...base,
      CRASHPROBE_DATABASE_URL: 'postgres://crashprobe@db:5432/crashprobe',
      CRASHPROBE_WORKERS: '8',
      CRASHPROBE_CONCURRENCY: '2',
      CRASHPROBE_GRACE_SECONDS: '12.5',
      CRASHPROBE_JOB_TIMEOUT_MINUTES: '45',
    });
    expect(settings).toMatchObject({ databaseUrl: 'postgres://crashprobe@db:5432/crashprobe', workers: 8, graceMs: 12_500, jobTimeoutMs: 45 * 60_000 });
    expect(() =>
      readSettings({ ...base, CRASHPROBE_DATABASE_URL: 'mysql://x', CRASHPROBE_WORKERS: '0', CRASHPROBE_GRACE_SECONDS: '-1', CRASHPROBE_JOB_TIMEOUT_MINUTES: 'soon' }),
    ).toThrow(
      'crashprobe cannot start: CRASHPROBE_WORKERS must be a whole number of 1 or more, not "0"; CRASHPROBE_GRACE_SECONDS must be a number of seconds (0 or more), not "-1"; ' +
        'CRASHPROBE_JOB_TIMEOUT_MINUTES must be a number of minutes above 0, not "soon"; CRASHPROBE_DATABASE_URL must be a postgres:// or postgresql:// URL (unset it to keep the state in the SQLite file)',
    );
  });

  it('reads the process settings main.ts once read itself: the lease, the metrics port, the log format', () => {
    const base = { APP_ID: '1', PRIVATE_KEY: PRIVATE_KEY, WEBHOOK_SECRET: 's' };
    const defaults = readSettings(base);
    expect([defaults.logFormat, defaults.leaseMs, defaults.metricsPort]).toEqual(['json', undefined, undefined]);
    expect(readSettings({ ...base, CRASHPROBE_LEASE_SECONDS: '5', CRASHPROBE_METRICS_PORT: '9464', LOG_FORMAT: 'pretty' })).toMatchObject({
      leaseMs: 5_000,
      metricsPort: 9464,
      logFormat: 'pretty',
    });
    expect(() => readSettings({ ...base, CRASHPROBE_LEASE_SECONDS: '1', CRASHPROBE_METRICS_PORT: 'x' })).toThrow(
      'crashprobe cannot start: CRASHPROBE_METRICS_PORT must be a port number, not "x"; CRASHPROBE_LEASE_SECONDS must be a number of seconds, 3 or more, not "1"',
    );
  });

  it('names every missing or wrong variable at once', () => {
    const error = (() => {
      try {
        readSettings({ APP_ID: 'abc', PRIVATE_KEY: 'not a key', PORT: 'http', GHE_PROTOCOL: 'ftp' });
      } catch (e) {
        return e;
      }
    })() as SettingsError;
    expect(error).toBeInstanceOf(SettingsError);
    expect(error.problems).toMatchInlineSnapshot(`
      [
        "APP_ID must be the numeric id of the GitHub App (its settings page shows it)",
        "the private key is not PEM: expected "-----BEGIN RSA PRIVATE KEY-----"",
        "WEBHOOK_SECRET must be the webhook secret set in the App's settings",
        "PORT must be a port number, not "http"",
        "GHE_PROTOCOL must be https or http, not "ftp"",
      ]
    `);
  });
});
