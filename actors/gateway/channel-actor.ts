import type { Channel, ChannelMessage } from '../../adapters/channels/channel.js';
import type { Bus } from '../../bus/index.js';
import type { Logger } from '../../store/logs/logger.js';
import type { Scheduler } from './scheduler.js';

export type ChannelStatus =
  | { state: 'starting' }
  | { state: 'connected' }
  | { state: 'failed'; reason: string; restartInMs: number }
  | { state: 'stopped' };

export interface ChannelIdentity {
  /** The `channel_list` entry name. */
  name: string;
  kind: string;
  account: string;
}

export interface ChannelActorDeps {
  bus: Bus;
  logger: Logger;
  scheduler: Scheduler;
  backoff: { baseMs: number; maxMs: number };
  onMessage(actor: ChannelActor, message: ChannelMessage): void;
}

/**
 * One supervised channel account. A failed start, a dropped connection or a stalled poll stops the
 * instance and starts a fresh one after an exponential backoff, with a `channel.failed` event; the other
 * channels never notice. Hooks of a replaced instance are ignored.
 */
export class ChannelActor {
  status: ChannelStatus = { state: 'stopped' };
  private current: Channel | undefined;
  private generation = 0;
  private failures = 0;
  private pendingRestart: { cancel(): void } | undefined;

  constructor(readonly id: ChannelIdentity, private readonly create: () => Promise<Channel>, private readonly deps: ChannelActorDeps) {}

  get channel(): Channel | undefined {
    return this.current;
  }

  /** Ready means connected, or failed with a reason the operator can read. */
  get reported(): boolean {
    return this.status.state === 'connected' || this.status.state === 'failed';
  }

  start(): void {
    const generation = ++this.generation;
    this.moveTo({ state: 'starting' }, 'START');
    const live = (): boolean => generation === this.generation;
    Promise.resolve()
      .then(this.create)
      .then((channel) => {
        if (!live()) return channel.stop();
        this.current = channel;
        return this.connect(channel, generation, live);
      })
      .catch((error: unknown) => this.fail(generation, error));
  }

  private connect(channel: Channel, generation: number, live: () => boolean): Promise<void> {
    return channel
      .start({
        onMessage: (message) => {
          if (live()) this.deps.onMessage(this, message);
        },
        onConnected: () => {
          if (!live()) return;
          this.failures = 0;
          this.moveTo({ state: 'connected' }, 'CONNECTED');
          this.deps.bus.publish({ type: 'channel.connected', data: { channel: this.id.name, account: this.id.account } });
          this.deps.logger.info('channel connected', { channel: this.id.name });
        },
        onFailed: (error) => this.fail(generation, error),
      });
  }

  async stop(): Promise<void> {
    this.generation++;
    this.pendingRestart?.cancel();
    this.moveTo({ state: 'stopped' }, 'STOP');
    this.deps.bus.publish({ type: 'actor.stopped', data: { actor: this.actorId, machine: 'channel' } });
    const channel = this.current;
    this.current = undefined;
    await channel?.stop().catch(() => undefined);
  }

  private get actorId(): string {
    return `channel:${this.id.name}`;
  }

  /** Every move is an `actor.transitioned` event, so the dashboard shows channel actors like machines. */
  private moveTo(next: ChannelStatus, event: string): void {
    const from = this.status.state;
    this.status = next;
    this.deps.bus.publish({ type: 'actor.transitioned', data: { actor: this.actorId, machine: 'channel', from, to: next.state, event } });
  }

  private fail(generation: number, error: unknown): void {
    if (generation !== this.generation) return;
    this.generation++;
    const restartInMs = Math.min(this.deps.backoff.baseMs * 2 ** this.failures, this.deps.backoff.maxMs);
    this.failures++;
    const reason = (error as Error)?.message ?? String(error);
    this.moveTo({ state: 'failed', reason, restartInMs }, 'FAILED');
    this.deps.bus.publish({ type: 'channel.failed', data: { channel: this.id.name, account: this.id.account, message: reason, restart_in_ms: restartInMs } });
    this.deps.logger.warn('channel failed; restarting', { channel: this.id.name, reason, restart_in_ms: restartInMs });
    const failed = this.current;
    this.current = undefined;
    void failed?.stop().catch(() => undefined);
    this.pendingRestart = this.deps.scheduler.after(restartInMs, () => this.start());
  }
}
