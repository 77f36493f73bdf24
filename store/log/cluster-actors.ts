import type { Envelope } from '../../bus/index.js';
import type { EventStore } from './event-store.js';
import { foldLiveActors, LIVE_ACTOR_TYPES, type LiveActors } from './live-actors.js';

/** The live actors of one event stream of a cluster: a member's own, or a channel account's. */
export interface StreamActors {
  stream: string;
  /** The gateway that runs them (the stream's writer since its last start). */
  gateway?: string;
  actors: LiveActors;
}

/** Streams by name. */
export type ClusterActors = Map<string, StreamActors>;

/** What the cluster-wide fold reads: the actor events, and members leaving. */
export const CLUSTER_ACTOR_TYPES = `${LIVE_ACTOR_TYPES},cluster.member.left`;

/**
 * The cluster log's events (`stream` set by the cluster view) as live actors, each stream folded as one gateway's log
 * is (a start empties it; the new holder of a channel account starts it afresh), and every stream whose writer left
 * the cluster (`cluster.member.left`, stopped or expired) emptied: a dead member's actors are not live.
 */
export function foldClusterActors(streams: ClusterActors, event: Envelope): ClusterActors {
  if (event.type === 'cluster.member.left') {
    for (const state of streams.values()) if (state.gateway === event.data.gateway) state.actors.clear();
    return streams;
  }
  if (!event.stream) return streams;
  let state = streams.get(event.stream);
  if (!state) streams.set(event.stream, (state = { stream: event.stream, actors: new Map() }));
  if (event.type === 'runtime.started' && event.gateway) state.gateway = event.gateway;
  foldLiveActors(state.actors, event);
  return streams;
}

/** Every stream's live actors, read from the cluster log. */
export function readClusterActors(log: EventStore): ClusterActors {
  return log.read({ type: CLUSTER_ACTOR_TYPES }).reduce(foldClusterActors, new Map());
}

/** The streams that have live actors, by gateway and stream name. */
export function liveStreams(streams: ClusterActors): StreamActors[] {
  return [...streams.values()]
    .filter((s) => s.actors.size > 0)
    .sort((a, b) => (a.gateway ?? '').localeCompare(b.gateway ?? '') || a.stream.localeCompare(b.stream));
}
