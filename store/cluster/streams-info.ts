import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { subjectCounts } from './subject-counts.js';
import { typeToken } from './subjects.js';

export interface StreamRow {
  stream: string;
  /** Events stored. */
  events: number;
  lastSeq: number;
  /** When its last event was stored (epoch ms; 0 for an empty stream). */
  lastAt: number;
}

/** Events of these types in a stream, counted by the server per subject (`<root>.<type>.<session>`). */
async function countTypes(
  jsm: Awaited<ReturnType<typeof jetstreamManager>>,
  stream: string,
  root: string,
  types: string[],
): Promise<number[]> {
  return Promise.all(
    types.map(async (type) => {
      const counts = await subjectCounts(jsm, stream, `${root}.${typeToken(type)}.>`);
      return Object.values(counts).reduce((sum, count) => sum + count, 0);
    }),
  );
}

/**
 * How far a channel account's gateway trails: messages accepted (`message.received`) with no answer yet, counted from
 * the stream's per-subject totals (a message answers with `reply.delivered`, or is dropped by a hook).
 */
export async function unanswered(nc: NatsConnection, stream: string, root: string): Promise<number> {
  const jsm = await jetstreamManager(nc);
  const [received, delivered, dropped] = await countTypes(jsm, stream, root, [
    'message.received',
    'reply.delivered',
    'message.dropped',
  ]);
  return Math.max(0, received! - delivered! - dropped!);
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
