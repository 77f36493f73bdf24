import type { Subscription } from 'rxjs';
import type { Bus, ReplyTarget } from '../../bus/index.js';

/** Sessions whose latest chat is remembered; beyond it the one quiet longest is forgotten. */
const SESSIONS_KEPT = 10_000;

export interface SessionChats {
  /** The chat of the session's latest routed message, if it came from one. */
  chatOf(session: string | undefined): ReplyTarget | undefined;
  /** Ends the following. */
  readonly subscription: Subscription;
}

/**
 * Follows `message.routed` for where each session's latest message came from: what the gateway sends outside a turn's
 * own reply (an approval prompt, a transcript) goes there.
 */
export function followSessionChats(bus: Bus): SessionChats {
  const chats = new Map<string, ReplyTarget>();
  const subscription = bus.on('message.routed').subscribe((event) => {
    if (!event.session || !event.data.reply) return;
    chats.delete(event.session);
    chats.set(event.session, event.data.reply);
    if (chats.size > SESSIONS_KEPT) chats.delete(chats.keys().next().value!);
  });
  return { chatOf: (session) => (session ? chats.get(session) : undefined), subscription };
}
