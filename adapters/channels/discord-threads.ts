import { ChannelType, GatewayDispatchEvents, type GatewayDispatchPayload } from 'discord-api-types/v10';

const THREAD_TYPES = new Set<number>([
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
]);

interface ChannelFacts {
  id: string;
  type: number;
  parent_id?: string | null;
}

/**
 * Which channel each thread the bot can see belongs to, from the gateway's events: a message names only its own
 * channel, and a message in a thread is a turn of the thread's parent channel (a topic of it).
 */
export class ThreadParents {
  private readonly parents = new Map<string, string>();

  parentOf(channelId: string): string | null {
    return this.parents.get(channelId) ?? null;
  }

  see(payload: GatewayDispatchPayload): void {
    switch (payload.t) {
      case GatewayDispatchEvents.GuildCreate:
        return this.add(payload.d.threads ?? []);
      case GatewayDispatchEvents.ThreadListSync:
        return this.add(payload.d.threads);
      case GatewayDispatchEvents.ThreadCreate:
      case GatewayDispatchEvents.ThreadUpdate:
      case GatewayDispatchEvents.ChannelCreate:
        return this.add([payload.d]);
      case GatewayDispatchEvents.ThreadDelete:
        this.parents.delete(payload.d.id);
        return;
      default:
        return;
    }
  }

  private add(channels: readonly ChannelFacts[]): void {
    for (const channel of channels)
      if (THREAD_TYPES.has(channel.type) && channel.parent_id) this.parents.set(channel.id, channel.parent_id);
  }
}
