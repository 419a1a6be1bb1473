// The App's caches are one SQLite table for every installation: each review sees only its repository's part (issue 9, requirement 6).
import { expect, it } from 'vitest';
import { scopedStore } from '../../src/core/ports.ts';
import { openState } from '../../src/store/state.ts';
import { openSqliteBackend } from '../../src/store/sqlite/sqlite-backend.ts';

it("never reads one repository's cached verdict or LLM answer back for another", () => {
  const state = openState(':memory:');
  const attacker = scopedStore(state.verdicts, '7/evil/repo');
  const victim = scopedStore(state.verdicts, '8/octo/shop');
  attacker.set('verdict:same-scenario', '{"planted":true}');
  expect(victim.get('verdict:same-scenario')).toBeUndefined();
  expect(attacker.get('verdict:same-scenario')).toBe('{"planted":true}');
  // A scope cannot be forged from the key side: no key of one scope spells another scope's key.
  expect(scopedStore(state.verdicts, '7/evil').get('repo"\0verdict:same-scenario')).toBeUndefined();
  state.close();
});

it("keeps tenants apart through the App's backend too (the per-job cache of either backend; both run backend.contract.ts)", async () => {
  const backend = openSqliteBackend(':memory:');
  const attacker = await backend.cacheFor('7/evil/repo');
  attacker.store.set('verdict:same-scenario', '{"planted":true}');
  await attacker.flush();
  expect((await backend.cacheFor('8/octo/shop')).store.get('verdict:same-scenario')).toBeUndefined();
  expect((await backend.cacheFor('7/evil')).store.get('repo"\0verdict:same-scenario')).toBeUndefined();
  expect((await backend.cacheFor('7/evil/repo')).store.get('verdict:same-scenario')).toBe('{"planted":true}');
  await backend.close();
});
