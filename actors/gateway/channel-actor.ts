import { createActor, fromCallback, type Actor, type InspectionEvent } from 'xstate';
import { ChannelError, type Channel, type ChannelMessage } from '../../adapters/channels/channel.js';
import type { Bus } from '../../bus/index.js';
import { channelMachine, type ChannelEvent, type ChannelInput } from '../../machines/channel.js';
import type { Logger } from '../../store/logs/logger.js';
import type { ChannelDirectory } from './channel-directory.js';
import type { ActorClock } from '../scheduler.js';

export type ChannelStatus =
  | { state: 'starting' }
  | { state: 'connected' }
  | { state: 'failed'; reason: string; restartInMs: number }
  /** It cannot start as configured (an unknown kind, a missing token): not retried until its entry changes. */
  | { state: 'refused'; reason: string }
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
  clock: ActorClock;
  backoff: { baseMs: number; maxMs: number };
  directory: ChannelDirectory;
  inspect: (event: InspectionEvent) => void;
  /**
   * An inbound message the channel reported, with the chat commands it supports. Resolves once the message is
   * accepted for good (in the log), or at once when it is not for the bot: the channel acknowledges it to the
   * platform only then, so a crash before never loses it.
   */
  accept(actor: ChannelActor, message: ChannelMessage, commands: readonly string[]): Promise<void>;
}

/**
 * The link of one channel instance: builds it, starts it and reports its connection and messages to the channel
 * machine, which stops the link (and so the instance) on a failure and starts a fresh one after a backoff.
 */
function link(build: () => Promise<Channel>, directory: ChannelDirectory, accepted: (message: ChannelMessage, commands: readonly string[]) => Promise<void>) {
  return fromCallback<ChannelEvent, ChannelInput>(({ input, sendBack }) => {
    let live = true;
    let channel: Channel | undefined;
    const report = (event: ChannelEvent): void => {
      if (live) sendBack(event);
    };
    const failed = (error: unknown): void =>
      report({ type: 'FAILED', reason: (error as Error)?.message ?? String(error), lasting: error instanceof ChannelError && error.code === 'bad_settings' });
    Promise.resolve()
      .then(build)
      .then((built) => {
        if (!live) return built.stop();
        channel = built;
        directory.add(input.name, built);
        return built.start({
          onMessage: (message) => {
            if (!live) return;
            report({ type: 'MESSAGE', message, commands: built.capabilities.commands });
            return accepted(message, built.capabilities.commands);
          },
          onConnected: () => report({ type: 'CONNECTED' }),
          onFailed: failed,
        });
      })
      .catch(failed);
    return () => {
      live = false;
      if (channel) directory.remove(input.name, channel);
    };
  });
}

/**
 * One supervised channel account: the channel machine is its state (`stopped` → `starting` → `connected`, `failed`
 * and back to `starting` after a backoff), with `channel.connected` and `channel.failed` for every move that matters
 * to an operator. The other channels never notice a failure.
 */
export class ChannelActor {
  private readonly actor: Actor<typeof channelMachine>;
  /** What the last inbound message's acceptance resolves with, so the channel acknowledges in order. */
  private pendingAccept: Promise<void> = Promise.resolve();

  constructor(readonly id: ChannelIdentity, build: () => Promise<Channel>, private readonly deps: ChannelActorDeps) {
    const { bus, logger } = deps;
    const machine = channelMachine.provide({
      actors: { link: link(build, deps.directory, () => this.pendingAccept) },
      actions: {
        accept: (_, { message, commands }) => {
          let pending: Promise<void>;
          try {
            pending = deps.accept(this, message as ChannelMessage, commands);
          } catch (error) {
            pending = Promise.reject(error);
          }
          // A channel that does not wait for the acceptance (its platform never redelivers) leaves a refusal unheard.
          pending.catch(() => undefined);
          this.pendingAccept = pending;
        },
        announceConnected: () => {
          bus.publish({ type: 'channel.connected', data: { channel: id.name, account: id.account } });
          logger.info('channel connected', { channel: id.name });
        },
        announceFailed: ({ context }) => {
          const reason = context.reason ?? 'unknown';
          bus.publish({ type: 'channel.failed', data: { channel: id.name, account: id.account, message: reason, restart_in_ms: context.restartInMs ?? 0 } });
          logger.warn('channel failed; restarting', { channel: id.name, reason, restart_in_ms: context.restartInMs ?? 0 });
        },
        announceRefused: ({ context }) => {
          const reason = context.reason ?? 'unknown';
          bus.publish({ type: 'channel.failed', data: { channel: id.name, account: id.account, message: reason, restart_in_ms: 0 } });
          logger.error('channel cannot start; fix its entry in the config (the gateway reloads it)', { channel: id.name, reason });
        },
      },
    });
    this.actor = createActor(machine, { id: `channel:${id.name}`, input: { ...id, backoff: deps.backoff }, clock: deps.clock, inspect: deps.inspect });
    this.actor.subscribe({ error: (error) => logger.error('channel actor failed', { channel: id.name, reason: (error as Error)?.message ?? String(error) }) });
    this.actor.start();
  }

  /** The instance that is up now, if any. */
  get channel(): Channel | undefined {
    return this.deps.directory.get(this.id.name);
  }

  /** The machine's state, with the failure's reason and backoff. */
  get status(): ChannelStatus {
    const { value, context } = this.actor.getSnapshot();
    if (value === 'failed') return { state: 'failed', reason: context.reason ?? 'unknown', restartInMs: context.restartInMs ?? 0 };
    if (value === 'refused') return { state: 'refused', reason: context.reason ?? 'unknown' };
    return { state: value as 'starting' | 'connected' | 'stopped' };
  }

  /** Reported means connected, or failed (or refused) with a reason the operator can read. */
  get reported(): boolean {
    const state = this.status.state;
    return state === 'connected' || state === 'failed' || state === 'refused';
  }

  start(): void {
    this.actor.send({ type: 'START' });
  }

  /**
   * Stops the channel for good; the first stop resolves once its instance has stopped, and the actor leaves the board
   * once. A later stop moves nothing, publishes nothing and returns at once (the gateway's drain must not wait again
   * for an instance a config reload is still stopping: the reload's stop is waited for, with a time limit, after it).
   */
  async stop(): Promise<void> {
    if (this.actor.getSnapshot().status !== 'active') return;
    this.actor.send({ type: 'STOP' });
    this.actor.stop();
    await this.deps.directory.stopped(this.id.name);
  }
}
