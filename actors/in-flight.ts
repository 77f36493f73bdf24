/** Work an actor starts without awaiting it at once, kept so that a stop can wait until it has ended. */
export class InFlight {
  private readonly work = new Set<Promise<unknown>>();

  /** Returns `work` itself: its caller still sees its result or rejection. */
  track<T>(work: Promise<T>): Promise<T> {
    this.work.add(work);
    // Only bookkeeping: a rejection belongs to whoever holds `work`, so this chain must not raise a second one.
    void work.finally(() => this.work.delete(work)).catch(() => undefined);
    return work;
  }

  get size(): number {
    return this.work.size;
  }

  /** What runs now (not what starts later). */
  current(): Array<Promise<unknown>> {
    return [...this.work];
  }

  /** Resolves once nothing is in flight, including work started while it waited. */
  async settled(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }
}
