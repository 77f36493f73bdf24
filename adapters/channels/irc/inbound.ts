import { randomUUID } from 'node:crypto';
import type { ChannelMessage } from '../channel.js';

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A PRIVMSG to the bot or to a channel it is in, in the dispatch vocabulary. In a channel the bot is addressed by
 * `nick: …` or `nick, …` (the address is dropped) or by its nick anywhere in the text. IRC gives a message an id
 * only with the server's `msgid` tag.
 */
export function inbound(
  nick: string,
  target: string,
  text: string,
  event: { tags: Record<string, string>; account?: string },
  self: string,
): ChannelMessage | undefined {
  const direct = !/^[#&+!]/.test(target);
  const address = new RegExp(`^${escapeRegExp(self)}[:,]\\s*`, 'i');
  const mentioned = direct || address.test(text) || new RegExp(`\\b${escapeRegExp(self)}\\b`, 'i').test(text);
  const body = (direct ? text : text.replace(address, '')).trim();
  if (body === '') return undefined;
  const account = event.account ?? event.tags.account;
  return {
    messageId: event.tags.msgid ?? randomUUID(),
    chat: direct ? `direct:${nick}` : `group:${target}`,
    replyTo: direct ? nick : target,
    sender: nick,
    senderAliases: [nick, ...(account && account !== '*' ? [`account:${account}`] : [])],
    text: body,
    mentioned,
  };
}
