import { Subscription } from 'rxjs';
import type { Bus, ReplyTarget } from '../../bus/index.js';
import type { Logger } from '../../store/logs/logger.js';
import type { Deliveries } from '../deliveries.js';

/**
 * `channel_list.<name>.settings.reasoning_channel_id`, as the peer runtime means it: the reasoning a model answered
 * with, in a turn that came from that channel, is posted to that chat on the same channel (say a team's "thinking"
 * group), apart from the user's chat, which gets only the answer. `reasoningTarget` is that chat for a channel
 * entry, or nothing when it has none. Best effort, as the peer's: a post that fails is logged, the turn goes on.
 */
export function postReasoning(
  bus: Bus,
  deliveries: Deliveries,
  reasoningTarget: (channel: string) => ReplyTarget | undefined,
  logger: Logger,
): Subscription {
  const chats = new Map<string, ReplyTarget>();
  const turns = new Map<string, ReplyTarget>();
  const subscription = new Subscription();
  subscription.add(
    bus.on('message.routed').subscribe((event) => {
      if (event.session && event.data.reply) chats.set(event.session, event.data.reply);
    }),
  );
  subscription.add(
    bus.on('turn.started', 'provider.responded').subscribe((event) => {
      if (!event.turn) return;
      if (event.type === 'turn.started') {
        const reply = event.session ? chats.get(event.session) : undefined;
        if (reply) turns.set(event.turn, reply);
        return;
      }
      const reply = turns.get(event.turn);
      const text = event.data.reasoning?.trim();
      const target = reply && text ? reasoningTarget(reply.channel) : undefined;
      if (!target || !text) return;
      const key = `reasoning:${event.turn}:${event.data.iteration}`;
      const correlation = { agent: event.agent, session: event.session, turn: event.turn };
      void deliveries
        .send({ message_id: key, key, text, reply: target, outcome: 'message', correlation })
        .then((delivered) => {
          if (!delivered) logger.warn('reasoning not delivered', { channel: target.channel, turn: event.turn });
        });
    }),
  );
  subscription.add(
    bus.on('turn.completed', 'turn.stopped', 'turn.failed', 'turn.aborted').subscribe((event) => {
      if (event.turn) turns.delete(event.turn);
    }),
  );
  return subscription;
}
