// The shared storage promises (backend.contract.ts) on PostgreSQL with pg-boss: a throwaway server
// for this file, a fresh database for each test. Without PostgreSQL this fails, saying how to install it.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { openPostgresBackend } from '../../src/store/postgres/postgres-backend.ts';
import { startPostgres, type TestPostgres } from '../support/postgres.ts';
import { backendContract } from './backend.contract.ts';

let server: TestPostgres;
let url: string;
let count = 0;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});
beforeEach(async () => {
  url = await server.database(`contract_${++count}`);
});

backendContract('PostgreSQL', async (options) => openPostgresBackend(url, options));
