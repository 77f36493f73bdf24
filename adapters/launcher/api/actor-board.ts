import type { Observable, Subscription } from 'rxjs';
import type { Envelope } from '../../../bus/index.js';

/** One live actor as the machines page lists it. */
export type ActorView = {
  actor: string;
  machine: string;
  state: string;
  last_event: string;
  at: number;
  stopped: boolean;
  session?: string;
  turn?: string;
  /** The transitions that moved it, oldest first (the newest few). */
  history: Array<{ from?: string; to: string; event: string; at: number; seq: number }>;
};

const HISTORY_KEPT = 50;
const ACTORS_KEPT = 500;

type Move = { actor: string; machine: string; to: string };

/** Actors that publish no `actor.transitioned` of their own still have a state the page can show. */
function impliedMove(event: Envelope): Move | undefined {
  switch (event.type) {
    case 'gateway.started':
      return { actor: 'gateway', machine: 'gateway', to: 'running' };
    case 'gateway.stopping':
      return { actor: 'gateway', machine: 'gateway', to: 'stopping' };
    case 'channel.connected':
      return { actor: `channel:${event.data.channel}:${event.data.account}`, machine: 'channel', to: 'connected' };
    case 'channel.failed':
      return { actor: `channel:${event.data.channel}:${event.data.account}`, machine: 'channel', to: 'failed' };
    case 'heartbeat.ticked':
      return { actor: 'heartbeat', machine: 'heartbeat', to: event.data.outcome };
    case 'cron.fired':
      return { actor: `cron:${event.data.job}`, machine: 'cron', to: 'fired' };
    default:
      return undefined;
  }
}

/**
 * A fold of `actor.transitioned` / `actor.stopped` events, plus the states the gateway, channel, heartbeat
 * and cron events imply: every actor's current state and recent moves.
 */
export class ActorBoard {
  private readonly actors = new Map<string, ActorView>();
  private subscription: Subscription | undefined;

  apply(event: Envelope): void {
    const implied = impliedMove(event);
    if (event.type === 'actor.transitioned') this.moved(event, event.data);
    else if (implied) this.moved(event, { ...implied, from: this.actors.get(implied.actor)?.state, event: event.type });
    else if (event.type === 'actor.stopped') {
      const known = this.actors.get(event.data.actor);
      if (known) this.actors.set(known.actor, { ...known, stopped: true, at: event.at });
    }
  }

  follow(events$: Observable<Envelope>): void {
    this.subscription = events$.subscribe((event) => this.apply(event));
  }

  list(): ActorView[] {
    return [...this.actors.values()].sort((a, b) => b.at - a.at);
  }

  get(actor: string): ActorView | undefined {
    return this.actors.get(actor);
  }

  close(): void {
    this.subscription?.unsubscribe();
  }

  private moved(event: Envelope, data: Move & { from?: string; event: string }): void {
    const { actor, machine, from, to } = data;
    const known = this.actors.get(actor);
    const move = { ...(from ? { from } : {}), to, event: data.event, at: event.at, seq: event.seq };
    this.actors.delete(actor);
    this.actors.set(actor, {
      actor,
      machine,
      state: to,
      last_event: data.event,
      at: event.at,
      stopped: false,
      ...(event.session ? { session: event.session } : {}),
      ...(event.turn ? { turn: event.turn } : {}),
      history: [...(known?.history ?? []), move].slice(-HISTORY_KEPT),
    });
    // The oldest actors (insertion order) go first once there are too many to show.
    if (this.actors.size > ACTORS_KEPT) this.actors.delete(this.actors.keys().next().value ?? '');
  }
}
