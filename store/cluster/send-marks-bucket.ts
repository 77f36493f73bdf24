import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { ttlBucket } from './kv-bucket.js';

/** The KV bucket of the send marks (`send-marks.ts`, `left-marks.ts`): every channel account's. */
export const SEND_MARKS_BUCKET = 'tern_sending';

/**
 * How long a mark is kept: it matters only until a member takes the account over after a crash. A cluster down for
 * longer than this takes a part that was leaving at the crash as never sent, and sends it again.
 */
const MARK_TTL_MS = 24 * 60 * 60 * 1000;

export const sendMarksBucket = (nc: NatsConnection): Promise<KV> => ttlBucket(nc, SEND_MARKS_BUCKET, MARK_TTL_MS);
