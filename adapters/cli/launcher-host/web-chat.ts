import { createActor } from 'xstate';
import { filter, type Subscription } from 'rxjs';
import { sessionKeyOf } from '../../../actors/agent.js';
import type { Runtime } from '../../../actors/runtime.js';
import type { Envelope } from '../../../bus/index.js';
import { streamingMachine } from '../../../machines/streaming.js';
import { WEB_UI_CHANNEL_TYPE } from '../../../store/config/index.js';
import type { ChatOutcome, ChatSink } from '../../launcher/api/host.js';

export const WEB_UI_CHANNEL = 'pico';

type Streaming = { enabled: boolean; throttle_seconds: number; min_growth_chars: number };

/** `channel_list.<name>` with `type: pico`: its streaming settings, off when there is no such entry. */
function streamingOf(runtime: Runtime): Streaming {
  const entry = Object.values(runtime.loaded.config.channel_list).find((e) => e.type === WEB_UI_CHANNEL_TYPE && e.enabled);
  const settings = entry?.settings.streaming;
  return settings ? { enabled: settings.enabled, throttle_seconds: settings.throttle_seconds, min_growth_chars: settings.min_growth_chars } : { enabled: false, throttle_seconds: 0, min_growth_chars: 1 };
}

/** Feeds the turn's text chunks through the streaming machine: the first creates the message, the rest update it. */
function streamReply(runtime: Runtime, messageId: string, sink: ChatSink, settings: Streaming, isOurs: (e: Envelope) => boolean) {
  const actor = createActor(
    streamingMachine.provide({
      actions: {
        createMessage: (_, params) => sink.create(messageId, params.text),
        updateMessage: (_, params) => sink.update(messageId, params.text),
      },
    }),
    { input: { throttle_seconds: settings.throttle_seconds, min_growth_chars: settings.min_growth_chars } },
  );
  actor.subscribe({ error: () => {} });
  actor.start();
  let text = '';
  const subscription: Subscription = runtime.bus.events$.pipe(filter(isOurs)).subscribe((event) => {
    if (event.type === 'provider.requested') text = '';
    if (event.type !== 'provider.chunk' || event.data.kind !== 'text') return;
    text += event.data.delta;
    actor.send({ type: 'CHUNK', text, at: event.at });
  });
  return {
    finish(reply: string): boolean {
      subscription.unsubscribe();
      actor.send({ type: 'STREAM_DONE', text: reply, at: Date.now() });
      const shown = actor.getSnapshot().output !== 'nothing_shown';
      actor.stop();
      return shown;
    },
  };
}

/** One message from the web UI, run as a turn of the default agent in the chat's own session. */
export async function webChat(runtime: Runtime, chat: string, text: string, sink: ChatSink): Promise<ChatOutcome> {
  const agent = runtime.agent();
  const key = sessionKeyOf({ agent: agent.id, channel: WEB_UI_CHANNEL, dimensions: [['chat', chat]] });
  const inboundId = `web_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const messageId = `msg_${inboundId}`;
  let session: string | undefined;
  const isOurs = (e: Envelope): boolean => {
    if (e.type === 'turn.started' && e.data.message_id === inboundId) session = e.session;
    return session !== undefined && e.session === session;
  };
  const settings = streamingOf(runtime);
  const stream = settings.enabled ? streamReply(runtime, messageId, sink, settings, isOurs) : undefined;
  const watch = stream ? undefined : runtime.bus.events$.subscribe(isOurs);
  const reply = await agent.handle(key, { channel: WEB_UI_CHANNEL, account: 'default', chat, sender: 'web', messageId: inboundId, text, remote: false });
  watch?.unsubscribe();
  const final = reply.kind === 'none' ? '' : reply.text;
  const shown = stream?.finish(final) ?? false;
  if (!shown && final !== '') sink.create(messageId, final);
  return { kind: 'replied', messageId };
}
