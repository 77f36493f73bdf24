import { Subscription } from 'rxjs';
import { draftOf, type Bus, type Envelope } from '../../bus/index.js';
import type { Logger } from '../../store/logs/logger.js';
import type { Deliveries } from '../deliveries.js';
import { followSessionChats } from './session-chats.js';

/**
 * Shows each `approval.requested` in the chat whose message started the turn (the latest routed message of its
 * session), with Approve and Deny buttons where the channel has them (the text says what to reply everywhere). A
 * turn that came from no chat (heartbeat, cron) has no one to ask: its approval is answered `unaskable` at once, so
 * the call is denied without waiting.
 */
export function promptApprovals(bus: Bus, deliveries: Deliveries, logger: Logger): Subscription {
  const chats = followSessionChats(bus);
  const subscription = new Subscription();
  subscription.add(chats.subscription);
  subscription.add(
    bus.on('approval.requested').subscribe((event: Envelope<'approval.requested'>) => {
      const { approval_id: id, prompt } = event.data;
      const keys = { agent: event.agent, session: event.session, turn: event.turn };
      const reply = chats.chatOf(event.session);
      if (!reply) {
        bus.publish(
          draftOf(keys, 'approval.answered', {
            approval_id: id,
            approved: false,
            by: 'unaskable',
            reason: 'this turn came from no chat that could be asked',
          }),
        );
        return;
      }
      const choices = [
        { label: 'Approve', reply: `/approve ${id}` },
        { label: 'Deny', reply: `/deny ${id}` },
      ];
      void deliveries
        .send({
          message_id: `approval-${id}`,
          key: `${reply.channel}:approval-${id}`,
          text: prompt,
          reply,
          outcome: 'message',
          correlation: keys,
          choices,
        })
        .then((delivered) => {
          if (!delivered) logger.error('approval question not delivered', { approval: id });
        });
    }),
  );
  return subscription;
}
