import { Subscription } from 'rxjs';
import type { Bus, ReplyTarget } from '../../bus/index.js';
import type { Logger } from '../../store/logs/logger.js';
import type { Deliveries } from '../deliveries.js';

/** Sessions whose latest chat is remembered; beyond it the one quiet longest is forgotten. */
const SESSIONS_KEPT = 10_000;

/**
 * `voice.echo_transcription` (the peer runtime's): each voice message's transcript is sent back to its chat as
 * `Transcript: …` before the answer, so the user sees what the agent heard.
 */
export function echoTranscripts(bus: Bus, deliveries: Deliveries, echo: () => boolean, logger: Logger): Subscription {
  const chats = new Map<string, ReplyTarget>();
  const subscription = new Subscription();
  subscription.add(
    bus.on('message.routed').subscribe((event) => {
      if (!event.session || !event.data.reply) return;
      chats.delete(event.session);
      chats.set(event.session, event.data.reply);
      if (chats.size > SESSIONS_KEPT) chats.delete(chats.keys().next().value!);
    }),
  );
  subscription.add(
    bus.on('message.transcribed').subscribe((event) => {
      const reply = event.session ? chats.get(event.session) : undefined;
      if (!reply || !echo()) return;
      const id = `transcript-${event.data.message_id}`;
      void deliveries
        .send({
          message_id: id,
          key: `${reply.channel}:${id}:${event.seq}`,
          text: `Transcript: ${event.data.text}`,
          reply,
          outcome: 'message',
          correlation: { agent: event.agent, session: event.session },
        })
        .then((delivered) => {
          if (!delivered) logger.warn('transcript not echoed', { message: event.data.message_id });
        });
    }),
  );
  return subscription;
}
