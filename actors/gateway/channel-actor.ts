import { createActor, fromCallback, type Actor, type InspectionEvent, type SnapshotFrom } from 'xstate';
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

/** A channel account as inbound handling sees it: who it is and the instance that is up now, if any. */
export interface ChannelHandle {
  readonly id: ChannelIdentity;
  readonly channel: Channel | undefined;
}

export interface ChannelLogicDeps {
  bus: Bus;
  logger: Logger;
  directory: ChannelDirectory;
  /** Builds a fresh instance of the entry `name`, at every (re)start. */
  build(name: string): Promise<Channel>;
  /**
   * An inbound message the channel reported, with the chat commands it supports. Resolves once the message is
   * accepted for good (in the log), or at once when it is not for the bot: the channel acknowledges it to the
   * platform only then, so a crash before never loses it.
   */
  accept(handle: ChannelHandle, message: ChannelMessage, commands: readonly string[]): Promise<void>;
}

export interface ChannelActorDeps extends Omit<ChannelLogicDeps, 'build'> {
  clock: ActorClock;
  backoff: { baseMs: number; maxMs: number };
  inspect: (event: InspectionEvent) => void;
}

/**
 * The link of one channel instance: builds it, starts it and reports its connection to the channel machine, which
 * stops the link (and so the instance) on a failure and starts a fresh one after a backoff. Messages are accepted
 * here, each after the one before, so the channel acknowledges them in order.
 */
function link(deps: ChannelLogicDeps) {
  const { directory } = deps;
  return fromCallback<ChannelEvent, ChannelInput>(({ input, sendBack }) => {
    let live = true;
    let channel: Channel | undefined;
    const handle: ChannelHandle = {
      id: { name: input.name, kind: input.kind, account: input.account },
      get channel() {
        return directory.get(input.name);
      },
    };
    const report = (event: ChannelEvent): void => {
      if (live) sendBack(event);
    };
    const failed = (error: unknown): void =>
      report({
        type: 'FAILED',
        reason: (error as Error)?.message ?? String(error),
        lasting: error instanceof ChannelError && error.code === 'bad_settings',
      });
    Promise.resolve()
      .then(() => deps.build(input.name))
      .then((built) => {
        if (!live) return built.stop();
        channel = built;
        directory.add(input.name, built);
        return built.start({
          onMessage: (message) => {
            if (!live) return;
            // A channel that does not wait for the acceptance (its platform never redelivers) leaves a refusal unheard.
            let accepted: Promise<void>;
            try {
              accepted = deps.accept(handle, message, built.capabilities.commands);
            } catch (error) {
              accepted = Promise.reject(error);
            }
            accepted.catch(() => undefined);
            return accepted;
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
 * The channel machine with its effects: what the gateway spawns for each channel account (its state is the
 * machine's: `stopped` → `starting` → `connected`, `failed` and back to `starting` after a backoff), with
 * `channel.connected` and `channel.failed` for every move that matters to an operator.
 */
export function channelLogic(deps: ChannelLogicDeps) {
  const { bus, logger } = deps;
  return channelMachine.provide({
    actors: { link: link(deps) },
    actions: {
      announceConnected: ({ context }) => {
        bus.publish({ type: 'channel.connected', data: { channel: context.name, account: context.account } });
        logger.info('channel connected', { channel: context.name });
      },
      announceFailed: ({ context }) => {
        const reason = context.reason ?? 'unknown';
        const restart = context.restartInMs ?? 0;
        const data = { channel: context.name, account: context.account, message: reason, restart_in_ms: restart };
        bus.publish({ type: 'channel.failed', data });
        logger.warn('channel failed; restarting', { channel: context.name, reason, restart_in_ms: restart });
      },
      announceRefused: ({ context }) => {
        const reason = context.reason ?? 'unknown';
        const data = { channel: context.name, account: context.account, message: reason, restart_in_ms: 0 };
        bus.publish({ type: 'channel.failed', data });
        const line = 'channel cannot start; fix its entry in the config (the gateway reloads it)';
        logger.error(line, { channel: context.name, reason });
      },
    },
  });
}

/** The machine's state, with the failure's reason and backoff. */
export function channelStatus(snapshot: SnapshotFrom<typeof channelMachine>): ChannelStatus {
  const { value, context } = snapshot;
  const reason = context.reason ?? 'unknown';
  if (value === 'failed') return { state: 'failed', reason, restartInMs: context.restartInMs ?? 0 };
  if (value === 'refused') return { state: 'refused', reason };
  return { state: value };
}

/** Reported means connected, or failed (or refused) with a reason the operator can read. */
export function reported(status: ChannelStatus): boolean {
  return status.state === 'connected' || status.state === 'failed' || status.state === 'refused';
}

/** One supervised channel account on its own, outside a gateway (its own actor system). */
export class ChannelActor implements ChannelHandle {
  private readonly actor: Actor<typeof channelMachine>;

  constructor(
    readonly id: ChannelIdentity,
    build: () => Promise<Channel>,
    private readonly deps: ChannelActorDeps,
  ) {
    const machine = channelLogic({ ...deps, build });
    const input = { ...id, backoff: deps.backoff };
    this.actor = createActor(machine, { id: `channel:${id.name}`, input, clock: deps.clock, inspect: deps.inspect });
    const failed = (error: unknown) =>
      deps.logger.error('channel actor failed', {
        channel: id.name,
        reason: (error as Error)?.message ?? String(error),
      });
    this.actor.subscribe({ error: failed });
    this.actor.start();
  }

  /** The instance that is up now, if any. */
  get channel(): Channel | undefined {
    return this.deps.directory.get(this.id.name);
  }

  get status(): ChannelStatus {
    return channelStatus(this.actor.getSnapshot());
  }

  get reported(): boolean {
    return reported(this.status);
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
