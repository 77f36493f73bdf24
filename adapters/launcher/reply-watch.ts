import type { Subscription } from 'rxjs';
import type { Bus, Envelope } from '../../bus/index.js';

type Pending = { final?: string; shown?: string };

const ENDINGS = ['turn.completed', 'turn.stopped', 'turn.failed', 'turn.aborted', 'command.handled'] as const;

function replyOf(event: Envelope<(typeof ENDINGS)[number]>): string {
  return event.type === 'turn.aborted' ? '' : (event.data.reply ?? '');
}

/**
 * When a web chat's reply is complete, so `typing.stop` follows its last frame. The gateway answers a chat
 * through `typing`, then sends and edits; the bus says which session a chat is and what its reply will be
 * (the turn's or command's `reply`). The reply is complete once it is known and is what the chat shows.
 */
export class ReplyWatch {
  private readonly chatOfSession = new Map<string, string>();
  private readonly pending = new Map<string, Pending>();
  private readonly subscription: Subscription;

  constructor(bus: Bus, channelName: string, private readonly done: (chat: string) => void) {
    this.subscription = bus.on('message.received', ...ENDINGS).subscribe((event) => {
      if (event.session === undefined) return;
      if (event.type === 'message.received') {
        if (event.data.channel === channelName) this.chatOfSession.set(event.session, event.data.chat);
        return;
      }
      const chat = this.chatOfSession.get(event.session);
      const pending = chat === undefined ? undefined : this.pending.get(chat);
      if (chat === undefined || !pending) return;
      pending.final = replyOf(event);
      this.check(chat, pending);
    });
  }

  began(chat: string): void {
    this.pending.set(chat, {});
  }

  shown(chat: string, text: string): void {
    const pending = this.pending.get(chat);
    if (!pending) return;
    pending.shown = text;
    this.check(chat, pending);
  }

  close(): void {
    this.subscription.unsubscribe();
  }

  private check(chat: string, pending: Pending): void {
    if (pending.final === undefined) return;
    // A blank reply is never sent, so nothing more will come.
    if (pending.final.trim() !== '' && pending.shown !== pending.final) return;
    this.pending.delete(chat);
    this.done(chat);
  }
}
