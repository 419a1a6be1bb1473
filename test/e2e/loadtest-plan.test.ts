// The load test's delivery plan (bench/loadtest/plan.ts): the mix issue 14 asks for, and the
// ordering that makes its checks meaningful (a redelivery after its original, a push with its open).
import { expect, it } from 'vitest';
import { planDeliveries } from '../../bench/loadtest/plan.ts';

it('plans 3P deliveries for P pull requests: P opened, P/2 superseding pushes, P redeliveries, P/2 repeats', () => {
  const plan = planDeliveries({ pulls: 100, burst: 30 });
  const all = plan.bursts.flat();
  expect(all).toHaveLength(300);
  const count = (kind: string) => all.filter((d) => d.kind === kind).length;
  expect([count('opened'), count('push'), count('redelivery'), count('reopened')]).toEqual([100, 50, 100, 50]);
  expect(plan.liveHeads.size).toBe(100);
  expect(plan.supersededHeads.size).toBe(50);
  expect(new Set(all.filter((d) => d.kind !== 'redelivery').map((d) => d.id)).size).toBe(200); // fresh ids are unique
  expect(plan.bursts.length).toBeGreaterThanOrEqual(5);
});

it('sends a redelivery in a later burst than its original, and a push in the same burst as its open', () => {
  const plan = planDeliveries({ pulls: 10, burst: 10, seed: 3 });
  const burstOf = (id: string, kind: string) => plan.bursts.findIndex((b) => b.some((d) => d.id === id && d.kind === kind));
  for (const [index, burst] of plan.bursts.entries()) {
    for (const d of burst) {
      if (d.kind === 'redelivery') expect(index).toBeGreaterThan(burstOf(d.id, d.id.startsWith('open') ? 'opened' : 'push'));
      if (d.kind === 'push') expect(burstOf(`open-${d.pull}`, 'opened')).toBe(index);
      if (d.kind === 'reopened') expect(plan.liveHeads.get(d.headSha)).toBe(d.pull);
    }
  }
  expect(plan.bursts.flat()).toHaveLength(30);
});
