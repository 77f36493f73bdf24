import type { Subscription } from 'rxjs';
import { draftOf, type Bus, type Envelope } from '../../bus/index.js';
import type { Logger } from '../../store/logs/logger.js';
import type { Delivery, Outbox } from './outbox.js';

/**
 * Shows each `approval.requested` in the chat whose message started the turn, with Approve and Deny buttons where
 * the channel has them (the text says what to reply everywhere). A turn that came from no chat (heartbeat, cron)
 * has no one to ask: its approval is answered `unaskable` at once, so the call is denied without waiting.
 */
export function promptApprovals(bus: Bus, outbox: Outbox, deliveryFor: (session: string) => Delivery | undefined, logger: Logger): Subscription {
  return bus.on('approval.requested').subscribe((event: Envelope<'approval.requested'>) => {
    const { approval_id: id, prompt } = event.data;
    const keys = { agent: event.agent, session: event.session, turn: event.turn };
    const delivery = event.session ? deliveryFor(event.session) : undefined;
    if (!delivery) {
      bus.publish(draftOf(keys, 'approval.answered', { approval_id: id, approved: false, by: 'unaskable', reason: 'this turn came from no chat that could be asked' }));
      return;
    }
    const choices = [{ label: 'Approve', reply: `/approve ${id}` }, { label: 'Deny', reply: `/deny ${id}` }];
    outbox.deliver({ ...delivery, editFirst: undefined, correlation: keys }, `approval-${id}`, prompt, choices).catch((error: unknown) => {
      logger.error('approval question not delivered', { approval: id, reason: (error as Error).message });
    });
  });
}
