import { Subscription } from 'rxjs';
import type { Bus } from '../../bus/index.js';
import type { Logger } from '../../store/logs/logger.js';
import type { Deliveries } from '../deliveries.js';
import { followSessionChats } from './session-chats.js';

/**
 * `voice.echo_transcription` (the peer runtime's): each voice message's transcript is sent back to its chat as
 * `Transcript: …` before the answer, so the user sees what the agent heard.
 */
export function echoTranscripts(bus: Bus, deliveries: Deliveries, echo: () => boolean, logger: Logger): Subscription {
  const chats = followSessionChats(bus);
  const subscription = new Subscription();
  subscription.add(chats.subscription);
  subscription.add(
    bus.on('message.transcribed').subscribe((event) => {
      const reply = chats.chatOf(event.session);
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
