// The pass planner on a fixture repository: a snapshot of the plan, the same plan
// byte for byte from a fresh parse and a shuffled target list, and the rules of
// PROBE's appendix B checked one by one.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planJson, planPasses, isTestPath, type AuditPlan } from '../../../src/core/audit/planner.ts';
import { buildRepoIndex } from '../../../src/core/python/callgraph.ts';
import { parseModule } from '../../../src/core/python/parse.ts';
import { parseFolder } from '../python/python-files.ts';

const root = join(import.meta.dirname, '../../fixtures/callgraph-repo');
const OPTIONS = { ownPassScore: 300, tokenBudget: 400 };

function plan(order: (paths: string[]) => string[] = (p) => p, options: Parameters<typeof planPasses>[2] = OPTIONS): AuditPlan {
  const modules = parseFolder(root);
  const index = buildRepoIndex(order(modules.map((m) => m.path)).map((p) => modules.find((m) => m.path === p)!));
  return planPasses(index, order(modules.map((m) => m.path)), options);
}

describe('planPasses', () => {
  it('plans the fixture repository as the snapshot shows', () => {
    expect(planJson(plan())).toMatchSnapshot();
  });

  it('gives the same plan byte for byte from a fresh parse, whatever order files and targets come in', () => {
    const first = planJson(plan());
    expect(planJson(plan((p) => [...p].reverse()))).toBe(first);
    expect(planJson(plan((p) => [...p].sort((a, b) => (a.length - b.length) || (a < b ? 1 : -1))))).toBe(first);
  });

  it('weighs a cross-file call partner as 60 lines in the score', () => {
    for (const file of plan().passes.flatMap((p) => p.files)) expect(file.score).toBe(file.lines + 60 * file.partners);
    const orders = plan().passes.flatMap((p) => p.files).find((f) => f.path === 'shop/orders.py')!;
    expect(orders.partners).toBeGreaterThan(3);
  });

  it('gives own passes to files above the threshold, at most 15% of the files', () => {
    const everything = plan((p) => p, { ownPassScore: 0, tokenBudget: 60_000 });
    const files = everything.passes.flatMap((p) => p.files).length;
    expect(everything.passes.filter((p) => p.kind === 'own').length).toBe(Math.floor(files * 0.15));
    expect(everything.passes[0]).toMatchObject({ kind: 'own', files: [{ path: 'shop/orders.py' }] });
    const nobody = plan((p) => p, { ownPassScore: 1e9 });
    expect(nobody.passes.every((p) => p.kind === 'batch')).toBe(true);
  });

  it('batches the rest by directory and splits a batch at the token budget', () => {
    for (const small of [60, 120, 200]) {
      const split = plan((p) => p, { ownPassScore: 1e9, tokenBudget: small });
      for (const pass of split.passes) {
        expect(new Set(pass.files.map((f) => f.path.split('/').slice(0, -1).join('/'))).size).toBe(1);
        if (pass.files.length > 1) expect(pass.files.reduce((n, f) => n + f.tokens, 0)).toBeLessThanOrEqual(small);
        expect(pass.tokens <= small || pass.files.length === 1).toBe(true);
      }
    }
    const whole = plan((p) => p, { ownPassScore: 1e9, tokenBudget: 60_000 });
    expect(whole.passes.map((p) => p.directory)).toEqual(['scripts', 'shop']);
  });

  it('leaves out calls inside a pass and caps partners: 40 of each for an own pass, 25 for a batch by default', () => {
    const whole = plan((p) => p, { ownPassScore: 1e9, tokenBudget: 60_000 });
    for (const pass of whole.passes) {
      const inside = new Set(pass.files.map((f) => f.path));
      for (const ref of [...pass.callers, ...pass.callees]) expect(inside.has(ref.path)).toBe(false);
    }
    const shop = whole.passes.find((p) => p.directory === 'shop')!;
    expect(shop.callers.map((r) => `${r.path}:${r.qualname}`)).toEqual(['scripts/run.py:main', 'scripts/run.py:<module>']);
    const capped = plan((p) => p, { ownPassScore: 0, ownPassPartners: 1, batchPartners: 1, tokenBudget: 60_000 });
    for (const pass of capped.passes) {
      expect(pass.callers.length).toBeLessThanOrEqual(1);
      expect(pass.callees.length).toBeLessThanOrEqual(1);
    }
  });

  it('audits only the targets it is given, skipping tests and scenario files and saying why', () => {
    const modules = [
      ...parseFolder(root),
      parseModule('tests/test_orders.py', 'from shop.orders import place\n\ndef test_place():\n    place(None, 1)\n'),
      parseModule('crash_scenarios.py', 'def scenario():\n    pass\n'),
    ];
    const result = planPasses(buildRepoIndex(modules), ['shop/orders.py', 'tests/test_orders.py', 'crash_scenarios.py', 'missing.py']);
    expect(result.passes.flatMap((p) => p.files.map((f) => f.path))).toEqual(['shop/orders.py']);
    expect(result.skipped.map((s) => s.path)).toEqual(['crash_scenarios.py', 'missing.py', 'tests/test_orders.py']);
    expect(result.passes[0]!.callers.map((c) => c.path)).toContain('tests/test_orders.py');
    expect([isTestPath('pkg/idle_test/x.py'), isTestPath('pkg/testing.py'), isTestPath('pkg/tests/x.py')]).toEqual([true, false, true]);
  });
});
