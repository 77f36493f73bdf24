import { Subscription } from 'rxjs';
import type { Bus, ReplyTarget } from '../../bus/index.js';
import type { Config } from '../../store/config/index.js';
import type { Logger } from '../../store/logs/logger.js';
import type { Deliveries } from '../deliveries.js';

type Feedback = Config['agents']['defaults']['tool_feedback'];

/** The peer runtime's words when the model said nothing with its call: what the turn is about. */
const CONTINUING = 'Continuing the current task.';

/** Cut at `max` characters, the last three of them `...` (as the peer runtime cuts). */
function truncate(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  return max <= 3 ? chars.slice(0, max).join('') : `${chars.slice(0, max - 3).join('')}...`;
}

/**
 * The notice, in the peer runtime's shape: 🔧 and the tool's name in code on the first line, then the model's words
 * with the call (or what the turn was asked), then the arguments as indented JSON in a fenced block.
 */
export function toolNotice(name: string, explanation: string, args: unknown, maxArgs: number): string {
  const preview = truncate(JSON.stringify(args ?? {}, null, 2), maxArgs).trim();
  const body = [explanation.trim(), preview ? `\`\`\`json\n${preview}\n\`\`\`` : ''].filter(Boolean).join('\n');
  return body ? `🔧 \`${name}\`\n${body}` : `🔧 \`${name}\``;
}

interface TurnShown {
  reply: ReplyTarget;
  asked: string;
  /** The model's text with its latest tool calls. */
  said: string;
  /** Notices sent so far in this turn. */
  notices: number;
  /** The notice message later notices edit (one message per turn), once the platform named it. */
  notice?: { key: string; delivered: Promise<void>; messageId?: string };
}

/**
 * `agents.defaults.tool_feedback`: as a turn that came from a chat runs a tool, the chat is told (see `toolNotice`).
 * With `separate_messages` each call is a message of its own; without, the turn's first notice is edited to show
 * the next (a platform that cannot edit gets it as a new message).
 */
export function showToolFeedback(
  bus: Bus,
  deliveries: Deliveries,
  feedback: () => Feedback,
  logger: Logger,
): Subscription {
  const chats = new Map<string, ReplyTarget>();
  const turns = new Map<string, TurnShown>();
  const subscription = new Subscription();
  subscription.add(
    bus.on('message.routed').subscribe((event) => {
      if (event.session && event.data.reply) chats.set(event.session, event.data.reply);
    }),
  );
  subscription.add(
    bus.on('turn.started', 'provider.responded', 'tool.requested', 'message.sent').subscribe((event) => {
      if (event.type === 'message.sent') {
        for (const shown of turns.values())
          if (shown.notice && `${shown.notice.key}:0` === event.data.send_key)
            shown.notice.messageId = event.data.message_id;
        return;
      }
      if (!event.turn) return;
      if (event.type === 'turn.started') {
        const reply = event.session ? chats.get(event.session) : undefined;
        if (reply && feedback().enabled) turns.set(event.turn, { reply, asked: event.data.text, said: '', notices: 0 });
        return;
      }
      const shown = turns.get(event.turn);
      if (!shown) return;
      if (event.type === 'provider.responded') {
        shown.said = event.data.text;
        return;
      }
      const settings = feedback();
      if (!settings.enabled) return;
      const explanation = shown.said.trim() || `${CONTINUING}: ${shown.asked}`;
      const text = toolNotice(event.data.name, explanation, event.data.arguments, settings.max_args_length);
      // Numbered within the turn: a call id is the vendor's, and not every vendor makes each one unique.
      const key = `tool-feedback:${event.turn}:${++shown.notices}`;
      const correlation = { agent: event.agent, session: event.session, turn: event.turn };
      const deliver = (editOf?: string): Promise<void> =>
        deliveries
          .send({
            message_id: key,
            key,
            text,
            reply: shown.reply,
            outcome: 'message',
            correlation,
            ...(editOf ? { edit_of: editOf } : {}),
          })
          .then((delivered) => {
            if (!delivered) logger.warn('tool feedback not delivered', { tool: event.data.name, turn: event.turn });
          });
      const first = shown.notice;
      if (settings.separate_messages) void deliver();
      // A later notice edits the first once it is out (and the platform named it); the first goes out at once.
      else if (first) void first.delivered.then(() => deliver(first.messageId));
      else shown.notice = { key, delivered: deliver() };
    }),
  );
  subscription.add(
    bus.on('turn.completed', 'turn.stopped', 'turn.failed', 'turn.aborted').subscribe((event) => {
      if (event.turn) turns.delete(event.turn);
    }),
  );
  return subscription;
}
