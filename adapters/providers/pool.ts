import type { ResolvedEntry } from './resolve.js';

/** One entry with one of its keys (none for keyless local servers): what a single attempt calls. */
export interface Candidate {
  entry: ResolvedEntry;
  entryIndex: number;
  keyIndex?: number;
  key?: string;
}

const slot = (entryIndex: number, keyIndex: number | undefined): string => `${entryIndex}:${keyIndex ?? '-'}`;

/** Entry/key pairs that failed transiently rest until their time is up. */
export class Cooldowns {
  private readonly until = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  cool(candidate: Candidate, ms: number): void {
    this.until.set(slot(candidate.entryIndex, candidate.keyIndex), this.now() + ms);
  }

  isCooling(entryIndex: number, keyIndex: number | undefined): boolean {
    // Asked on every call: while nothing has failed, without making the slot's name.
    if (this.until.size === 0) return false;
    return (this.until.get(slot(entryIndex, keyIndex)) ?? 0) > this.now();
  }
}

export interface Picked {
  candidate: Candidate;
  member: number;
  /** Every key of the pool was resting: the caller backs off before using this one. */
  cooling: boolean;
}

export interface Member {
  entry: ResolvedEntry;
  entryIndex: number;
}

/** Where a pool's rotation stands: the member the next request starts at, and each member's next key. */
export interface Rotation {
  next_member: number;
  next_key: number[];
}

/**
 * Keeps each pool's rotation between processes (`store/key-rotation.ts`): without it every one-shot `tern agent`
 * starts at the first key of the first member, and a key used by every run meets its rate limit first.
 */
export interface RotationStore {
  read(modelName: string): Rotation | undefined;
  write(modelName: string, rotation: Rotation): void;
}

/** The entries sharing one `model_name`: round robin across members, and across each member's keys. */
export class Pool {
  private nextMember: number;
  private readonly nextKey: number[];
  /** Only a pool with something to rotate is kept: a single entry with one key (or none) always starts where it is. */
  private readonly rotates: boolean;
  private saving = false;

  constructor(
    private readonly name: string,
    private readonly members: Member[],
    private readonly cooldowns: Cooldowns,
    private readonly store?: RotationStore,
  ) {
    this.rotates = members.length > 1 || members.some((m) => m.entry.keys.length > 1);
    const saved = this.rotates ? store?.read(name) : undefined;
    this.nextMember = saved?.next_member ?? 0;
    this.nextKey = members.map((_, i) => saved?.next_key[i] ?? 0);
  }

  /** Where a new request starts: one member further on each time. */
  begin(): number {
    const member = this.nextMember % this.members.length;
    this.nextMember = member + 1;
    this.changed();
    return member;
  }

  /**
   * The first member from `from` on that has a key at rest, with its next such key. When everything is
   * cooling, the member at `from` with its next key, flagged so the caller backs off first.
   */
  pick(from: number): Picked {
    const count = this.members.length;
    for (let step = 0; step < count; step++) {
      const member = (from + step) % count;
      const keyIndex = this.restingKey(member);
      if (keyIndex !== null) return { candidate: this.candidate(member, keyIndex), member, cooling: false };
    }
    const member = from % count;
    return { candidate: this.candidate(member, this.takeKey(member, 0)), member, cooling: true };
  }

  private restingKey(member: number): number | undefined | null {
    const { entry, entryIndex } = this.members[member]!;
    if (entry.keys.length === 0) return this.cooldowns.isCooling(entryIndex, undefined) ? null : undefined;
    for (let step = 0; step < entry.keys.length; step++) {
      const keyIndex = (this.nextKey[member]! + step) % entry.keys.length;
      if (!this.cooldowns.isCooling(entryIndex, keyIndex)) return this.takeKey(member, step);
    }
    return null;
  }

  /** Keys rotate per request: taking one moves that member's cursor past it. */
  private takeKey(member: number, step: number): number | undefined {
    const keys = this.members[member]!.entry.keys.length;
    if (keys === 0) return undefined;
    const keyIndex = (this.nextKey[member]! + step) % keys;
    this.nextKey[member] = keyIndex + 1;
    this.changed();
    return keyIndex;
  }

  /** One write per tick, however many cursors moved in it (a request moves the member's and a key's). */
  private changed(): void {
    if (!this.rotates || !this.store || this.saving) return;
    this.saving = true;
    queueMicrotask(() => {
      this.saving = false;
      this.store!.write(this.name, {
        next_member: this.nextMember % this.members.length,
        next_key: this.nextKey.map((n, i) => n % Math.max(1, this.members[i]!.entry.keys.length)),
      });
    });
  }

  private candidate(member: number, keyIndex: number | undefined): Candidate {
    const { entry, entryIndex } = this.members[member]!;
    return { entry, entryIndex, keyIndex, key: keyIndex === undefined ? undefined : entry.keys[keyIndex] };
  }
}
