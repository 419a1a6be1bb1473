// The load test's deliveries, decided before anything is sent (a seeded shuffle, so a run can be
// repeated): for P pull requests, P `opened` (one head each), P/2 pushes that supersede the head
// just opened (sent in the same burst: the push lands while the first job is still queued),
// P redeliveries of earlier deliveries (same delivery id and body, in a later burst, as GitHub's
// "Redeliver" sends them) and P/2 `reopened` events with new delivery ids for a head already
// queued or reviewed. 3P deliveries in all, in bursts sent at once.

export interface PlannedPull {
  number: number;
  /** The head opened first; superseded when `pushedSha` is set. */
  openedSha: string;
  pushedSha?: string;
}

export interface Delivery {
  id: string;
  kind: 'opened' | 'push' | 'redelivery' | 'reopened';
  pull: number;
  headSha: string;
  action: 'opened' | 'synchronize' | 'reopened';
  /** A `synchronize`: the head it moved on from, as GitHub's payload says. */
  before?: string;
}

export interface Plan {
  pulls: PlannedPull[];
  bursts: Delivery[][];
  /** Heads that must end with exactly one review and one completed check run. */
  liveHeads: Map<string, number>;
  /** Heads a later push replaced before their job could start: no review, no check run. */
  supersededHeads: Map<string, number>;
}

export interface PlanOptions {
  pulls: number;
  /** Deliveries per burst (about). */
  burst: number;
  seed?: number;
}

export function sha(n: number, variant: number): string {
  return `${variant.toString(16)}${n.toString(16).padStart(6, '0')}`.padEnd(40, 'a');
}

export function planDeliveries(options: PlanOptions): Plan {
  const random = seeded(options.seed ?? 14);
  const pulls: PlannedPull[] = [];
  const liveHeads = new Map<string, number>();
  const supersededHeads = new Map<string, number>();
  const primary: Delivery[][] = []; // groups kept in one burst: an open and its push
  for (let i = 1; i <= options.pulls; i++) {
    const pull: PlannedPull = { number: i, openedSha: sha(i, 1) };
    const group: Delivery[] = [{ id: `open-${i}`, kind: 'opened', pull: i, headSha: pull.openedSha, action: 'opened' }];
    if (i <= Math.floor(options.pulls / 2)) {
      pull.pushedSha = sha(i, 2);
      group.push({ id: `push-${i}`, kind: 'push', pull: i, headSha: pull.pushedSha, action: 'synchronize', before: pull.openedSha });
      supersededHeads.set(pull.openedSha, i);
      liveHeads.set(pull.pushedSha, i);
    } else {
      liveHeads.set(pull.openedSha, i);
    }
    pulls.push(pull);
    primary.push(group);
  }
  shuffle(primary, random);
  const burstCount = Math.max(2, Math.round((options.pulls * 3) / options.burst));
  const bursts: Delivery[][] = Array.from({ length: burstCount }, () => []);
  // The first two thirds of the bursts carry the new heads; the rest only repeats, so redeliveries
  // also reach heads that were already reviewed.
  const fresh = Math.max(1, Math.ceil((burstCount * 2) / 3));
  const burstOf = new Map<string, number>();
  primary.forEach((group, index) => {
    const at = Math.floor((index * fresh) / primary.length);
    bursts[at]!.push(...group);
    for (const delivery of group) burstOf.set(delivery.id, at);
  });
  const laterBurst = (after: number) => Math.min(burstCount - 1, after + 1 + Math.floor(random() * (burstCount - after - 1)));
  // Redeliveries: P of the primary deliveries, chosen at random, each in a later burst.
  const originals = primary.flat();
  shuffle(originals, random);
  for (const original of originals.slice(0, options.pulls)) bursts[laterBurst(burstOf.get(original.id)!)]!.push({ ...original, kind: 'redelivery' });
  // `reopened` with a new delivery id for P/2 live heads: "already queued or done".
  const live = [...liveHeads.entries()];
  shuffle(live, random);
  for (const [headSha, pull] of live.slice(0, Math.floor(options.pulls / 2))) {
    const first = pulls[pull - 1]!.pushedSha === headSha ? `push-${pull}` : `open-${pull}`;
    bursts[laterBurst(burstOf.get(first)!)]!.push({ id: `reopen-${pull}`, kind: 'reopened', pull, headSha, action: 'reopened' });
  }
  for (const burst of bursts) shuffle(burst, random);
  return { pulls, bursts: bursts.filter((b) => b.length), liveHeads, supersededHeads };
}

function seeded(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4_294_967_296;
  };
}

function shuffle<T>(items: T[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
