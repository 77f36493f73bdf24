import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * The keys of a KV bucket now (deleted ones included: their entries say `DEL`), from the counts per subject of the
 * bucket's stream, in one request. Not `kv.keys()`: its listing is a consumer that waits to see the last entry it
 * counted at its start, and an entry that expires or is deleted meanwhile never comes, so the listing never ends
 * (a test stood still for minutes on one while a member's leases moved).
 */
export async function bucketKeys(nc: NatsConnection, bucket: string): Promise<string[]> {
  const prefix = `$KV.${bucket}.`;
  const jsm = await jetstreamManager(nc, { checkAPI: false });
  const info = await jsm.streams.info(`KV_${bucket}`, { subjects_filter: `${prefix}>` });
  return Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length)).sort();
}
