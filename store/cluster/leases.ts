import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { ttlBucket } from './kv-bucket.js';
import { bucketKeys } from './subject-counts.js';
import type { EventDraft, LeaseKind } from '../../bus/index.js';

export interface LeaseOptions {
  /** This gateway's id: what a lease it holds names. */
  gateway: string;
  /** The KV bucket (default `tern_leases`). */
  bucket?: string;
  /** A lease not renewed for this long expires and may be taken by another gateway (default 10 s). */
  ttlMs?: number;
  /** How often held leases are renewed and wanted ones tried (default a third of the TTL). */
  heartbeatMs?: number;
  /** Where lease events go (the bus). */
  publish?: (draft: EventDraft<'cluster.lease.acquired' | 'cluster.lease.released'>) => void;
}

export interface LeaseRecord {
  kind: LeaseKind;
  id: string;
  gateway: string;
  /** When its holder last renewed it (epoch ms). */
  renewedAt: number;
}

interface Held {
  revision: number;
  /** When the entry was last written by this gateway (epoch ms). */
  renewedAt: number;
}

/** KV keys allow `[-/_=.a-zA-Z0-9]`: ids are written base64url. */
const keyOf = (kind: LeaseKind, id: string): string => `${kind}.${Buffer.from(id, 'utf8').toString('base64url')}`;

function parseKey(key: string): { kind: LeaseKind; id: string } | undefined {
  const [kind, encoded] = key.split('.');
  if ((kind !== 'session' && kind !== 'channel' && kind !== 'schedule') || encoded === undefined) return undefined;
  return { kind, id: Buffer.from(encoded, 'base64url').toString('utf8') };
}

/** Every lease in a bucket, sorted by kind and id. */
async function readLeases(nc: NatsConnection, kv: KV, bucket: string): Promise<LeaseRecord[]> {
  const records: LeaseRecord[] = [];
  for (const key of await bucketKeys(nc, bucket)) {
    const parsed = parseKey(key);
    const entry = parsed && (await kv.get(key));
    if (!parsed || !entry || entry.operation !== 'PUT') continue;
    const value = entry.json<{ gateway: string; at: number }>();
    records.push({ ...parsed, gateway: value.gateway, renewedAt: entry.created.getTime() });
  }
  return records.sort((a, b) => a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id));
}

/** The leases of a cluster, read without taking part in it (`tern cluster status`). */
export async function listLeases(nc: NatsConnection, bucket = 'tern_leases'): Promise<LeaseRecord[]> {
  try {
    return await readLeases(nc, await new Kvm(nc).open(bucket), bucket);
  } catch {
    return [];
  }
}

/**
 * Ownership in a cluster (#27): a session key or a channel account (bot token id) is held by one gateway at a time,
 * as an entry in a JetStream KV bucket whose entries expire `ttlMs` after their last write. The holder renews its
 * leases every `heartbeatMs` with a compare-and-set on the entry's revision; a gateway that stops (crash, SIGKILL,
 * network cut) stops renewing, its entries expire, and the next gateway that wants them takes them (`want`).
 * A renewal that finds the entry gone or rewritten means the lease was lost (this gateway stalled past the TTL): it
 * is dropped and `cluster.lease.released` says `lost`, so the gateway stops acting for it.
 */
export class Leases {
  private readonly held = new Map<string, Held>();
  private readonly wanted = new Set<string>();
  /**
   * The holder last seen on a key this gateway wanted (named as `from` when it takes the key over), and when its
   * entry runs out unless renewed (`expiresAt`).
   */
  private readonly seenHolder = new Map<string, { gateway: string; until: number }>();
  private readonly timer: NodeJS.Timeout;
  private beating: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly kv: KV,
    private readonly options: LeaseOptions & { bucket: string; heartbeatMs: number; ttlMs: number },
  ) {
    this.timer = setInterval(() => {
      this.beating = this.beating.then(() => this.heartbeat());
    }, options.heartbeatMs);
  }

  static async open(nc: NatsConnection, options: LeaseOptions): Promise<Leases> {
    const ttlMs = options.ttlMs ?? 10_000;
    const bucket = options.bucket ?? 'tern_leases';
    const kv = await ttlBucket(nc, bucket, ttlMs);
    return new Leases(nc, kv, {
      ...options,
      bucket,
      ttlMs,
      heartbeatMs: options.heartbeatMs ?? Math.max(50, Math.floor(ttlMs / 3)),
    });
  }

  /** Takes the lease if nobody holds it (or this gateway already does); false while another gateway holds it. */
  async acquire(kind: LeaseKind, id: string): Promise<boolean> {
    const key = keyOf(kind, id);
    if (this.held.has(key)) return true;
    const at = Date.now();
    const value = JSON.stringify({ gateway: this.options.gateway, at });
    try {
      this.took(key, await this.kv.create(key, value), at);
      return true;
    } catch {
      const entry = await this.kv.get(key);
      if (entry?.operation !== 'PUT') return false;
      const holder = entry.json<{ gateway: string }>().gateway;
      if (holder !== this.options.gateway) {
        this.seenHolder.set(key, { gateway: holder, until: entry.created.getTime() + this.options.ttlMs });
        return false;
      }
      // This gateway's own entry from before a restart of the process: it is taken up again by writing it anew. The
      // server expires the entry a TTL after its last write, made by the process that died: counted from now, the lease
      // would look good here for up to a TTL after another member took it, and both would send (#40's doubles).
      try {
        this.took(key, await this.kv.update(key, value, entry.revision), at);
        return true;
      } catch {
        return false;
      }
    }
  }

  /** Keeps trying to take the lease at every heartbeat until this gateway holds it (a channel it could serve). */
  want(kind: LeaseKind, id: string): void {
    this.wanted.add(keyOf(kind, id));
  }

  /**
   * When the lease another gateway held at this gateway's last `acquire` runs out unless its holder renews it (the
   * server's time of its last write plus the TTL, epoch ms).
   */
  expiresAt(kind: LeaseKind, id: string): number | undefined {
    return this.seenHolder.get(keyOf(kind, id))?.until;
  }

  holds(kind: LeaseKind, id: string): boolean {
    return this.held.has(keyOf(kind, id));
  }

  /**
   * Whether no other gateway can hold the lease now, by this process's clock: held, and written by this gateway less
   * than the TTL ago (the server lets the entry expire no sooner). A process that stalled past the TTL learns it lost
   * the lease only at its next renewal; this answers at once, without the server.
   */
  valid(kind: LeaseKind, id: string): boolean {
    const held = this.held.get(keyOf(kind, id));
    return held !== undefined && Date.now() - held.renewedAt < this.options.ttlMs;
  }

  /**
   * Whether the server says this gateway holds the lease now (false when it cannot be asked). One the server says is
   * gone or another gateway's is dropped as lost (`cluster.lease.released`, `lost`), as a failed renewal would.
   */
  async confirm(kind: LeaseKind, id: string): Promise<boolean> {
    const key = keyOf(kind, id);
    const held = this.held.get(key);
    if (!held) return false;
    let entry: Awaited<ReturnType<KV['get']>>;
    try {
      entry = await this.kv.get(key);
    } catch {
      return false;
    }
    const mine = entry?.operation === 'PUT' && entry.json<{ gateway: string }>().gateway === this.options.gateway;
    if (mine) return true;
    if (this.held.get(key) === held) this.lose(key);
    return false;
  }

  /** The gateway holding a lease, if any. */
  async holder(kind: LeaseKind, id: string): Promise<string | undefined> {
    const entry = await this.kv.get(keyOf(kind, id));
    return entry && entry.operation === 'PUT' ? entry.json<{ gateway: string }>().gateway : undefined;
  }

  /** Every lease in the bucket. */
  list(): Promise<LeaseRecord[]> {
    return readLeases(this.nc, this.kv, this.options.bucket);
  }

  /** Lets a lease go at once, so another gateway need not wait for it to expire. */
  async release(kind: LeaseKind, id: string): Promise<void> {
    const key = keyOf(kind, id);
    this.wanted.delete(key);
    const held = this.held.get(key);
    if (!held) return;
    this.held.delete(key);
    await this.kv.delete(key, { previousSeq: held.revision }).catch(() => undefined);
    this.options.publish?.({
      type: 'cluster.lease.released',
      data: { gateway: this.options.gateway, kind, id, reason: 'released' },
    });
  }

  /** Stops renewing and releases every lease held (a gateway stopping on purpose). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.beating;
    for (const key of [...this.held.keys()]) {
      const parsed = parseKey(key)!;
      await this.release(parsed.kind, parsed.id);
    }
  }

  /** Stops renewing without releasing: what a crash looks like to the others (tests, and a process dying). */
  abandon(): void {
    this.closed = true;
    clearInterval(this.timer);
  }

  /**
   * Whether a lease whose renewal failed is still this gateway's: the entry still names it, or the server could not be
   * asked and the TTL has not run out since the last renewal (a connection blip is not a loss).
   */
  private async stillMine(key: string, held: Held): Promise<boolean> {
    try {
      const entry = await this.kv.get(key);
      if (entry?.operation !== 'PUT' || entry.json<{ gateway: string }>().gateway !== this.options.gateway)
        return false;
      held.revision = entry.revision;
      return true;
    } catch {
      return Date.now() - held.renewedAt < this.options.ttlMs;
    }
  }

  /**
   * Holds the lease whose entry this gateway wrote at `at` (the time asked, not the time answered: the server wrote
   * the entry after it, so it expires after `at + ttl`) and announces it, also when it took up its own entry from
   * before a restart (the dashboard and `tern cluster status` show the holder from these events).
   */
  private took(key: string, revision: number, at: number): void {
    this.held.set(key, { revision, renewedAt: at });
    const from = this.seenHolder.get(key)?.gateway;
    this.seenHolder.delete(key);
    const { kind, id } = parseKey(key)!;
    this.options.publish?.({
      type: 'cluster.lease.acquired',
      data: { gateway: this.options.gateway, kind, id, ...(from ? { from } : {}) },
    });
  }

  private lose(key: string): void {
    this.held.delete(key);
    const { kind, id } = parseKey(key)!;
    const data = { gateway: this.options.gateway, kind, id, reason: 'lost' as const };
    this.options.publish?.({ type: 'cluster.lease.released', data });
  }

  private async heartbeat(): Promise<void> {
    if (this.closed) return;
    for (const [key, held] of [...this.held]) {
      const now = Date.now();
      try {
        held.revision = await this.kv.update(
          key,
          JSON.stringify({ gateway: this.options.gateway, at: now }),
          held.revision,
        );
        held.renewedAt = now;
      } catch {
        if (this.closed || !this.held.has(key) || (await this.stillMine(key, held))) continue;
        // Written by another gateway since, or expired: this gateway stalled past the TTL and no longer holds it.
        this.lose(key);
      }
    }
    for (const key of this.wanted) {
      if (this.held.has(key) || this.closed) continue;
      const parsed = parseKey(key)!;
      await this.acquire(parsed.kind, parsed.id).catch(() => false);
    }
  }
}
