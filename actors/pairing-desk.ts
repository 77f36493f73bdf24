import type { Subscription } from 'rxjs';
import type { Bus, EventData } from '../bus/index.js';
import type { DecisionOutcome, PairingStore } from '../store/pairing.js';

export interface PairingDeskDeps {
  bus: Bus;
  store: PairingStore;
  now: () => number;
  /**
   * Tells an approved sender, in their chat, that they are in (the gateway, for the channels it runs: through the
   * outbox). Without it nobody is told here, and the next gateway that runs the channel does it.
   */
  notify?: {
    runs(channel: string): boolean;
    send(approved: { channel: string; chat: string; reply_to: string; code: string }): void;
  };
}

export const APPROVED_NOTICE = 'The owner approved you: you can talk to this bot now.';

/**
 * The owner's decisions on pairing codes, as events: it answers each `pairing.decision.requested` with
 * `pairing.decided` (the store changed) or `pairing.decision.failed`. The gateway runs it (decisions reach it queued
 * in the store: `takeQueued`); `tern pairing` runs one on the event log itself when no gateway does.
 */
export class PairingDesk {
  private subscription: Subscription | undefined;

  constructor(private readonly deps: PairingDeskDeps) {}

  start(): void {
    this.subscription = this.deps.bus.on('pairing.decision.requested').subscribe((event) => this.decide(event.data));
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }

  /**
   * Publishes the decisions queued in the store as requests (answered as they are published), and tells the approved.
   */
  takeQueued(): void {
    for (const queued of this.deps.store.takeQueued())
      this.deps.bus.publish({ type: 'pairing.decision.requested', data: queued });
    this.notifyApproved();
  }

  private decide({ request, code, decision, by }: EventData<'pairing.decision.requested'>): DecisionOutcome {
    const outcome = this.deps.store.decide(code, decision, by, this.deps.now());
    if (outcome.kind === 'decided') {
      const { channel, sender } = outcome.request;
      this.deps.bus.publish({
        type: 'pairing.decided',
        data: { request, code: outcome.request.code, channel, sender, decision, by },
      });
      this.notifyApproved();
    } else {
      this.deps.bus.publish({
        type: 'pairing.decision.failed',
        data: { request, code, decision, reason: outcome.kind, by },
      });
    }
    return outcome;
  }

  private notifyApproved(): void {
    const { notify } = this.deps;
    if (!notify) return;
    for (const approved of this.deps.store.takeUnnotified((channel) => notify.runs(channel))) notify.send(approved);
  }
}
