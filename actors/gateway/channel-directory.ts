import type { Channel } from '../../adapters/channels/channel.js';

/**
 * The channel instances that are up now, by `channel_list` entry name: what the outbox sends through and voice
 * messages are fetched from. A channel actor's link adds its instance once built and removes it when it stops;
 * a stop in progress is kept until it has finished, so the gateway can wait for it.
 */
export class ChannelDirectory {
  private readonly live = new Map<string, Channel>();
  private readonly stopping = new Map<string, Promise<void>>();

  get(name: string): Channel | undefined {
    return this.live.get(name);
  }

  add(name: string, channel: Channel): void {
    this.live.set(name, channel);
  }

  /** Removes the instance (if it is still the current one) and stops it. */
  remove(name: string, channel: Channel): void {
    if (this.live.get(name) === channel) this.live.delete(name);
    const stop = channel.stop().catch(() => undefined);
    this.stopping.set(name, stop);
    void stop.finally(() => {
      if (this.stopping.get(name) === stop) this.stopping.delete(name);
    });
  }

  /** Resolves once the last stop of the entry's instance has finished. */
  async stopped(name: string): Promise<void> {
    await this.stopping.get(name);
  }
}
