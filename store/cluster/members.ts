import { hostname } from 'node:os';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { ttlBucket } from './kv-bucket.js';
import { bucketKeys } from './subject-counts.js';
import type { EventDraft } from '../../bus/index.js';

export interface MemberOptions {
  gateway: string;
  /** The KV bucket (default `tern_members`). */
  bucket?: string;
  /** A member not heard from for this long has left (default 10 s). */
  ttlMs?: number;
  /** How often this member renews its entry and looks for members that left (default a third of the TTL). */
  heartbeatMs?: number;
  publish?: (draft: EventDraft<'cluster.member.joined' | 'cluster.member.left'>) => void;
}

export interface Member {
  gateway: string;
  pid: number;
  host: string;
  /** When it joined (epoch ms). */
  joinedAt: number;
  /** When its entry was last renewed (epoch ms). */
  seenAt: number;
}

/** KV keys allow `[-/_=.a-zA-Z0-9]`: gateway ids are written base64url. */
const keyOf = (gateway: string): string => Buffer.from(gateway, 'utf8').toString('base64url');

/** Reads the members listed in the bucket. */
async function readMembers(nc: NatsConnection, kv: KV, bucket: string): Promise<Member[]> {
  const members: Member[] = [];
  for (const key of await bucketKeys(nc, bucket)) {
    const entry = await kv.get(key);
    if (entry?.operation !== 'PUT') continue;
    members.push({ ...entry.json<Omit<Member, 'seenAt'>>(), seenAt: entry.created.getTime() });
  }
  return members.sort((a, b) => a.gateway.localeCompare(b.gateway));
}

/** The live members of a cluster, read without joining it (`tern cluster status`). */
export async function listMembers(nc: NatsConnection, bucket = 'tern_members'): Promise<Member[]> {
  try {
    return await readMembers(nc, await new Kvm(nc).open(bucket), bucket);
  } catch {
    return [];
  }
}

/**
 * The gateways of a cluster (#27): each writes its entry in a KV bucket whose entries expire `ttlMs` after their last
 * write, and renews it every `heartbeatMs`. A gateway announces its own `cluster.member.joined` and, when it stops on
 * purpose, its `cluster.member.left` (`stopped`). One that stops heartbeating disappears from the bucket; the first
 * live member by id announces its `cluster.member.left` (`expired`), so each departure is announced once. A member
 * whose entry expired while it could not renew (cut off from the server, paused) and that comes back announces
 * `cluster.member.joined` again.
 */
export class Members {
  private readonly timer: NodeJS.Timeout;
  private known = new Set<string>();
  private beating: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly joinedAt = Date.now();
  /** The revision of this member's entry as last written. */
  private revision = 0;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly kv: KV,
    private readonly options: MemberOptions & { bucket: string },
    heartbeatMs: number,
  ) {
    this.timer = setInterval(() => {
      this.beating = this.beating.then(() => this.heartbeat()).catch(() => undefined);
    }, heartbeatMs);
  }

  static async join(nc: NatsConnection, options: MemberOptions): Promise<Members> {
    const ttlMs = options.ttlMs ?? 10_000;
    const bucket = options.bucket ?? 'tern_members';
    const kv = await ttlBucket(nc, bucket, ttlMs);
    const members = new Members(
      nc,
      kv,
      { ...options, bucket },
      options.heartbeatMs ?? Math.max(50, Math.floor(ttlMs / 3)),
    );
    await members.write();
    members.known = new Set((await members.list()).map((m) => m.gateway));
    options.publish?.({
      type: 'cluster.member.joined',
      data: { gateway: options.gateway, pid: process.pid, host: hostname() },
    });
    return members;
  }

  /** The live members, this one included. */
  list(): Promise<Member[]> {
    return readMembers(this.nc, this.kv, this.options.bucket);
  }

  /** Leaves on purpose: the entry is removed at once and the departure announced. */
  async leave(): Promise<void> {
    if (this.closed) return;
    this.stop();
    await this.beating;
    await this.kv.delete(keyOf(this.options.gateway)).catch(() => undefined);
    this.options.publish?.({
      type: 'cluster.member.left',
      data: { gateway: this.options.gateway, reason: 'stopped', by: this.options.gateway },
    });
  }

  /** Stops heartbeating without leaving: what a crash looks like to the others. */
  stop(): void {
    this.closed = true;
    clearInterval(this.timer);
  }

  private entry(): string {
    return JSON.stringify({
      gateway: this.options.gateway,
      pid: process.pid,
      host: hostname(),
      joinedAt: this.joinedAt,
    });
  }

  private async write(): Promise<void> {
    this.revision = await this.kv.put(keyOf(this.options.gateway), this.entry());
  }

  /** Renews this member's entry; one that expired meanwhile is written again and the member announced as joined. */
  private async renew(): Promise<void> {
    const key = keyOf(this.options.gateway);
    try {
      this.revision = await this.kv.update(key, this.entry(), this.revision);
      return;
    } catch {
      // Expired (or rewritten) since the last renewal, or the server could not be asked: which, the entry says.
    }
    const current = await this.kv.get(key);
    const mine = current?.operation === 'PUT' && current.json<{ gateway: string }>().gateway === this.options.gateway;
    await this.write();
    if (!mine && !this.closed)
      this.options.publish?.({
        type: 'cluster.member.joined',
        data: { gateway: this.options.gateway, pid: process.pid, host: hostname() },
      });
  }

  private async heartbeat(): Promise<void> {
    if (this.closed) return;
    await this.renew();
    const live = (await this.list()).map((m) => m.gateway);
    const liveSet = new Set(live);
    const announcer = live[0] === this.options.gateway;
    for (const gateway of this.known) {
      if (liveSet.has(gateway) || gateway === this.options.gateway || !announcer || this.closed) continue;
      // A member that left on purpose deleted its entry and announced itself; one that expired left nothing.
      if ((await this.kv.get(keyOf(gateway)))?.operation === 'DEL') continue;
      this.options.publish?.({
        type: 'cluster.member.left',
        data: { gateway, reason: 'expired', by: this.options.gateway },
      });
    }
    this.known = liveSet;
  }
}
