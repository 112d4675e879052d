/**
 * A bound on the short API requests (Pod creates, Bindings, deletes) one connection has open at
 * once. Guarantees: at most `max` of the functions given to run() are running at any time; the
 * others wait in arrival order (FIFO) and start as soon as one ends, whether it resolved or threw.
 * Without it a job of 10,000 replicas sent 10,000 creates and then 10,000 Bindings at once: as
 * many TLS connections, request bodies and parsed replies held together in the controller
 * (docs/benchmarks.md, "Kubernetes at fleet size"). Long-lived streams (watches, followed logs)
 * do not go through it: they would hold a slot forever.
 */

/** The default bound: enough to keep a local API server busy, small enough to hold little memory. */
export const REQUESTS_IN_FLIGHT = 32;

export class InFlightLimit {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private head = 0;
  /** The most requests that ran at once (for tests and the bench). */
  peak = 0;
  /** How many requests ran through this limit. */
  total = 0;

  constructor(readonly max: number = REQUESTS_IN_FLIGHT) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`in-flight limit must be a positive integer: ${max}`);
  }

  /** Runs `fn` once fewer than `max` requests run; resolves or rejects with its result. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    // A slot freed by an ending request passes straight to the first waiter (running stays), so a
    // request arriving in between cannot take it too.
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    this.total++;
    if (this.running > this.peak) this.peak = this.running;
    try {
      return await fn();
    } finally {
      if (!this.next()) this.running--;
    }
  }

  /** Requests running now. */
  get inFlight(): number {
    return this.running;
  }

  /** Requests waiting for a slot now. */
  get queued(): number {
    return this.waiting.length - this.head;
  }

  /** Hands the ending request's slot to the first waiter; false when none waits. */
  private next(): boolean {
    if (this.head >= this.waiting.length) return false;
    const wake = this.waiting[this.head]!;
    this.waiting[this.head++] = undefined as unknown as () => void;
    // Compact the queue once its consumed front is large, so a long burst keeps it O(waiting).
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    wake();
    return true;
  }
}
