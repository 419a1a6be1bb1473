// Keeps the native memory of parsed trees bounded during a scan of many
// files. A tree is native memory that V8 does not count: its JS wrapper is
// small, outlives a few young-generation collections, and then waits for a
// full collection that heap growth alone rarely triggers; and its N-API
// finalizer runs only when the event loop turns. So after every so many
// bytes of source parsed, collect and yield, or 1,800 dropped trees stay
// resident (gigabytes for the Python standard library).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Source bytes parsed between collections; trees take some 30 times their source in native memory, and
 * the allocator keeps what they once took. At 4 MiB the standard library's scan peaked at 767 MiB, at 2 MiB
 * at 641 MiB for some 10% more CPU time, at 1 MiB at 575 MiB for 50% more (issue 13).
 */
const SOURCE_BYTES_BETWEEN_COLLECTIONS = 2 * 1024 * 1024;

let collectGarbage: (() => void) | undefined;

/** `gc()` without starting node with --expose-gc: the flag set now applies to a new context's global. */
function fullCollection(): void {
  if (!collectGarbage) {
    setFlagsFromString('--expose-gc');
    collectGarbage = runInNewContext('gc') as () => void;
  }
  collectGarbage();
}

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class TreeMemory {
  private sinceCollection = 0;
  private collectedSinceYield = false;

  constructor(private readonly budget = SOURCE_BYTES_BETWEEN_COLLECTIONS) {}

  /** Call after parsing `bytes` of source whose trees are dropped; true when the caller should yield to the event loop now. */
  parsed(bytes: number): boolean {
    this.sinceCollection += bytes;
    if (this.sinceCollection < this.budget) return false;
    this.sinceCollection = 0;
    fullCollection();
    this.collectedSinceYield = true;
    return true;
  }

  /** parsed(), then, when some collection has not been followed by one yet, the yield that lets the dropped trees' finalizers run. */
  async settle(bytes: number): Promise<void> {
    this.parsed(bytes);
    if (!this.collectedSinceYield) return;
    this.collectedSinceYield = false;
    await yieldToEventLoop();
  }
}
