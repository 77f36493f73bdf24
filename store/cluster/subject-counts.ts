import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/** How many messages a stream holds per subject matching `filter`, counted by the server in one request. */
export async function subjectCounts(
  jsm: JetStreamManager,
  stream: string,
  filter: string,
): Promise<Record<string, number>> {
  return (await jsm.streams.info(stream, { subjects_filter: filter })).state.subjects ?? {};
}

/**
 * The keys of a KV bucket now (deleted ones included: their entries say `DEL`), from the counts per subject of the
 * bucket's stream, in one request. Not `kv.keys()`: its listing is a consumer that waits to see the last entry it
 * counted at its start, and an entry that expires or is deleted meanwhile never comes, so the listing never ends
 * (a test stood still for minutes on one while a member's leases moved).
 */
export async function bucketKeys(nc: NatsConnection, bucket: string): Promise<string[]> {
  const prefix = `$KV.${bucket}.`;
  const counts = await subjectCounts(await jetstreamManager(nc, { checkAPI: false }), `KV_${bucket}`, `${prefix}>`);
  return Object.keys(counts)
    .map((subject) => subject.slice(prefix.length))
    .sort();
}
