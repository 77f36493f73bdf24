// Whether a gateway process has logged a channel's message yet, read beside the gateway writing its log.
import { EventLog } from '../../store/log/event-log.js';

/** Whether the log in `sessions` holds the `message.received` of that platform message id. */
export function received(sessions: string, messageId: string): boolean {
  const log = EventLog.open(sessions, { readOnly: true });
  try {
    return log
      .read({ type: 'message.received' })
      .some((e) => (e.data as { message_id?: string }).message_id === messageId);
  } finally {
    log.close();
  }
}
