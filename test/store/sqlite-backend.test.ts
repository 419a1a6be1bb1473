// The shared storage promises (backend.contract.ts) on the SQLite file.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { openSqliteBackend } from '../../src/store/sqlite/sqlite-backend.ts';
import { backendContract } from './backend.contract.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'crashprobe-sqlite-backend-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

backendContract('SQLite', async (options) => openSqliteBackend(path.join(dir, 'state.db'), options));
