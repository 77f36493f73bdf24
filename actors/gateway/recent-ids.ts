/** A bounded set of recently seen ids: the oldest is forgotten once `capacity` is reached. */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity: number) {}

  /** True the first time an id is seen, false for a repeat. */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value!);
    return true;
  }

  /** Forgets an id, so that its next delivery is taken as new. */
  forget(id: string): void {
    this.ids.delete(id);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }
}
