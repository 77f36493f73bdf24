/** `mention_only` and `prefixes` of one channel entry. */
export interface TriggerSettings {
  mention_only: boolean;
  prefixes: string[];
}

export type TriggerDecision = { kind: 'accept'; text: string } | { kind: 'ignore'; reason: 'not_addressed' };

/** `allow_from: ["*"]` opens a channel to everyone, on purpose. */
export const EVERYONE = '*';

const normalize = (value: string): string => value.trim().replace(/^@/, '').toLowerCase();

/**
 * Whether `allow_from` lets the sender in: one of the sender's forms (id, @username; case-insensitive, `@` optional)
 * is listed, or `*` is. An empty list lets nobody in by itself: the senders the owner approves (pairing) are kept
 * apart from the config.
 */
export function senderListed(allowFrom: readonly string[], senderAliases: readonly string[]): boolean {
  if (allowFrom.some((entry) => entry.trim() === EVERYONE)) return true;
  const allowed = new Set(allowFrom.map(normalize));
  return senderAliases.some((alias) => allowed.has(normalize(alias)));
}

/**
 * Decides whether a message of a sender who may talk to the bot is for it. Direct chats always are. In groups, with
 * prefixes configured a message must start with one (it is stripped from the text); with `mention_only` it must
 * mention the bot.
 */
export function applyTrigger(
  settings: TriggerSettings,
  message: { chat: string; text: string; mentioned: boolean },
): TriggerDecision {
  if (message.chat.startsWith('direct:')) return { kind: 'accept', text: message.text };
  const prefix = settings.prefixes.find((p) => p !== '' && message.text.toLowerCase().startsWith(p.toLowerCase()));
  if (prefix !== undefined) return { kind: 'accept', text: message.text.slice(prefix.length).trim() };
  if (settings.prefixes.length > 0 && !message.mentioned) return { kind: 'ignore', reason: 'not_addressed' };
  if (settings.mention_only && !message.mentioned) return { kind: 'ignore', reason: 'not_addressed' };
  return { kind: 'accept', text: message.text };
}
