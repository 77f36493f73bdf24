import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

export interface StreamRow {
  stream: string;
  /** Events stored. */
  events: number;
  lastSeq: number;
  /** When its last event was stored (epoch ms; 0 for an empty stream). */
  lastAt: number;
}

/** The cluster's event streams (names starting with one of `prefixes`), sorted by name. */
export async function listEventStreams(nc: NatsConnection, prefixes: readonly string[]): Promise<StreamRow[]> {
  const jsm = await jetstreamManager(nc);
  const rows: StreamRow[] = [];
  for await (const info of jsm.streams.list()) {
    const name = info.config.name;
    if (!prefixes.some((prefix) => name.startsWith(prefix))) continue;
    const { messages, last_seq: lastSeq, last_ts: lastTs } = info.state;
    rows.push({ stream: name, events: messages, lastSeq, lastAt: lastSeq > 0 ? Date.parse(lastTs) : 0 });
  }
  return rows.sort((a, b) => a.stream.localeCompare(b.stream));
}
