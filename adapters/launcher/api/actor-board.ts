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

/**
 * A fold of `actor.transitioned` / `actor.stopped` events: every actor's current state and recent moves.
 * Every live actor (gateway, heartbeat, agents, sessions, turns, channels, cron jobs, MCP servers) publishes
 * its own moves.
 */
export class ActorBoard {
  private readonly actors = new Map<string, ActorView>();
  private subscription: Subscription | undefined;

  apply(event: Envelope): void {
    if (event.type === 'actor.transitioned') this.moved(event);
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

  private moved(event: Envelope<'actor.transitioned'>): void {
    const { actor, machine, from, to } = event.data;
    const known = this.actors.get(actor);
    const move = { ...(from ? { from } : {}), to, event: event.data.event, at: event.at, seq: event.seq };
    this.actors.delete(actor);
    this.actors.set(actor, {
      actor,
      machine,
      state: to,
      last_event: event.data.event,
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
