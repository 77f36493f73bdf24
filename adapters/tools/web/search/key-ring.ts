/** API keys taken in turn, so load spreads over them; each call starts one further along. */
export class KeyRing {
  private next = 0;

  constructor(private readonly keys: string[]) {}

  get size(): number {
    return this.keys.length;
  }

  /** The keys in the order this call should try them; `[undefined]` when there are none. */
  turn(): (string | undefined)[] {
    if (this.keys.length === 0) return [undefined];
    const start = this.next;
    this.next = (this.next + 1) % this.keys.length;
    return this.keys.map((_, i) => this.keys[(start + i) % this.keys.length]);
  }
}
