import { setTimeout as sleep } from 'node:timers/promises';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';

const TRIES = 5;

/**
 * Opens a KV bucket whose entries expire `ttlMs` after their last write, creating it if absent. Members starting at
 * the same moment create it at once, and the server refuses all but one ("subjects overlap with an existing
 * stream"): the others try again and find it.
 */
export async function ttlBucket(nc: NatsConnection, bucket: string, ttlMs: number): Promise<KV> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await new Kvm(nc).create(bucket, { ttl: ttlMs, history: 1 });
    } catch (error) {
      if (attempt >= TRIES) throw error;
      await sleep(50 * attempt);
    }
  }
}
