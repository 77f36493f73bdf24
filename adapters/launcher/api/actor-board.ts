import type { Observable, Subscription } from 'rxjs';
import type { Envelope } from '../../../bus/index.js';
import { actorParent } from '../../../store/log/actor-parent.js';
import { finishedWork, type ActorView } from '../../../bus/api-shapes.js';

export type { ActorView } from '../../../bus/api-shapes.js';

const HISTORY_KEPT = 50;
const ACTORS_KEPT = 500;

/** The events the board folds: moves, the facts below, and (in a cluster) a stream's start and a member leaving. */
export const BOARD_TYPES =
  'actor.transitioned,actor.stopped,runtime.started,cluster.member.left,turn.started,' +
  'channel.failed,mcp.failed,turn.failed,subagent.spawned,subagent.ended';

/** The board's key of an actor: its id, qualified by its stream in a cluster (`ActorView.key`). */
export const actorKey = (actor: string, stream: string | undefined): string => (stream ? `${actor}@${stream}` : actor);

/** What other events say about an actor: `[actor, what to merge into it]`. */
function factsOf(event: Envelope): [string, Partial<ActorView>] | undefined {
  switch (event.type) {
    case 'turn.started':
      return event.turn ? [`turn:${event.turn}`, { text: event.data.text }] : undefined;
    case 'channel.failed':
      return [`channel:${event.data.channel}`, { reason: event.data.message }];
    case 'mcp.failed':
      return [`mcp:${event.data.server}`, { reason: event.data.reason }];
    case 'turn.failed':
      return event.turn ? [`turn:${event.turn}`, { reason: event.data.message }] : undefined;
    case 'subagent.spawned':
      return [
        `subagent:${event.data.task_id}`,
        { text: event.data.label ? `${event.data.label}: ${event.data.task}` : event.data.task },
      ];
    case 'subagent.ended':
      return event.data.reason ? [`subagent:${event.data.task_id}`, { reason: event.data.reason }] : undefined;
    default:
      return undefined;
  }
}

/**
 * A fold of `actor.transitioned` / `actor.stopped` events: every actor's current state and recent moves,
 * with what other events say about it (a session's key, a turn's message, a failure's reason). Every live
 * actor (gateway, heartbeat, agents, sessions, turns, channels, cron jobs, MCP servers) publishes its own moves.
 * In a cluster (#27) it folds the cluster log: each event names its stream, actors are kept per stream, a stream's
 * `runtime.started` (a start, or a takeover of a channel account) empties it, and a member leaving the cluster empties
 * the streams it was running.
 */
export class ActorBoard {
  private readonly actors = new Map<string, ActorView>();
  /** Facts that arrive before the actor's first move (a turn's message comes just before it starts). */
  private readonly early = new Map<string, Partial<ActorView>>();
  private readonly sessionKeys = new Map<string, string>();
  /** In a cluster: the gateway writing each stream, since its last start. */
  private readonly writers = new Map<string, string>();
  private subscription: Subscription | undefined;

  apply(event: Envelope): void {
    if (event.type === 'actor.transitioned') return this.moved(event);
    if (event.type === 'actor.stopped') return this.ended(event);
    if (event.type === 'runtime.started' && event.stream) return this.restarted(event.stream, event.gateway);
    if (event.type === 'cluster.member.left') return this.left(event.data.gateway);
    if (event.type === 'turn.started' && event.session)
      this.rememberKey(event.session, event.data.session_key, event.stream);
    const facts = factsOf(event);
    if (!facts) return;
    const [actor, fact] = facts;
    const key = actorKey(actor, event.stream);
    const known = this.actors.get(key);
    if (known) this.actors.set(key, { ...known, ...fact });
    else this.early.set(key, { ...this.early.get(key), ...fact });
    if (this.early.size > ACTORS_KEPT) this.early.delete(this.early.keys().next().value ?? '');
  }

  follow(events$: Observable<Envelope>): void {
    this.subscription = events$.subscribe((event) => this.apply(event));
  }

  list(): ActorView[] {
    return [...this.actors.values()].sort((a, b) => b.at - a.at);
  }

  /** By key (`ActorView.key`). */
  get(key: string): ActorView | undefined {
    return this.actors.get(key);
  }

  close(): void {
    this.subscription?.unsubscribe();
  }

  private rememberKey(session: string, key: string, stream: string | undefined): void {
    this.sessionKeys.set(session, key);
    if (this.sessionKeys.size > ACTORS_KEPT) this.sessionKeys.delete(this.sessionKeys.keys().next().value ?? '');
    const actor = this.actors.get(actorKey(`session:${session}`, stream));
    if (actor) actor.session_key = key;
  }

  /**
   * A stream's runtime started (a gateway's start, or a member taking a channel account over): its old actors are gone.
   */
  private restarted(stream: string, gateway: string | undefined): void {
    this.forget((actor) => actor.stream === stream);
    if (gateway) this.writers.set(stream, gateway);
  }

  /** A member left the cluster: the streams it was writing have no live actors until another member starts them. */
  private left(gateway: string): void {
    const streams = new Set([...this.writers].filter(([, writer]) => writer === gateway).map(([stream]) => stream));
    this.forget((actor) => actor.stream !== undefined && streams.has(actor.stream));
  }

  private forget(gone: (actor: ActorView) => boolean): void {
    for (const [key, actor] of this.actors) if (gone(actor)) this.actors.delete(key);
  }

  private ended(event: Envelope<'actor.stopped'>): void {
    const key = actorKey(event.data.actor, event.stream);
    const known = this.actors.get(key);
    if (!known) return;
    const reason = known.reason ?? event.data.reason;
    this.actors.set(key, { ...known, stopped: true, at: event.at, ...(reason ? { reason } : {}) });
  }

  private moved(event: Envelope<'actor.transitioned'>): void {
    const { actor, machine, from, to, context } = event.data;
    const key = actorKey(actor, event.stream);
    const known = this.actors.get(key) ?? { ...this.early.get(key) };
    this.early.delete(key);
    const move = { ...(from ? { from } : {}), to, event: event.data.event, at: event.at, seq: event.seq };
    const parent = actorParent(machine, event);
    const sessionKey = machine === 'session' && event.session ? this.sessionKeys.get(event.session) : undefined;
    // A failure's reason holds while the actor stays failed; any other move clears it.
    const reason = to === 'failed' ? known.reason : undefined;
    this.actors.delete(key);
    this.actors.set(key, {
      ...(known.text ? { text: known.text } : {}),
      ...(known.session_key || sessionKey ? { session_key: known.session_key ?? sessionKey } : {}),
      actor,
      key,
      ...(event.gateway ? { gateway: event.gateway } : {}),
      ...(event.stream ? { stream: event.stream } : {}),
      machine,
      state: to,
      last_event: event.data.event,
      at: event.at,
      stopped: false,
      ...(event.agent ? { agent: event.agent } : {}),
      ...(event.session ? { session: event.session } : {}),
      ...(event.turn ? { turn: event.turn } : {}),
      ...(parent ? { parent } : {}),
      ...(reason ? { reason } : {}),
      ...(context ? { context } : {}),
      history: [...(known.history ?? []), move].slice(-HISTORY_KEPT),
    });
    if (this.actors.size > ACTORS_KEPT) this.evictOne();
  }

  /**
   * The oldest turn or subagent that ended goes first (insertion order), then the oldest actor: a gateway, agent or
   * channel that has not moved for a while stays on the board however many turns come and go.
   */
  private evictOne(): void {
    for (const [key, actor] of this.actors)
      if (finishedWork(actor)) {
        this.actors.delete(key);
        return;
      }
    this.actors.delete(this.actors.keys().next().value ?? '');
  }
}
