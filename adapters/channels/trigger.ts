/** `allow_from`, `mention_only` and `prefixes` of one channel entry. */
export interface TriggerSettings {
  allow_from: string[];
  mention_only: boolean;
  prefixes: string[];
}

export type TriggerDecision = { kind: 'accept'; text: string } | { kind: 'ignore'; reason: 'not_allowed' | 'not_addressed' };

const normalize = (value: string): string => value.trim().replace(/^@/, '').toLowerCase();

/** An empty allow-list lets everyone in; otherwise one of the sender's forms must be listed. */
export function senderAllowed(allowFrom: string[], senderAliases: string[]): boolean {
  if (allowFrom.length === 0) return true;
  const allowed = new Set(allowFrom.map(normalize));
  return senderAliases.some((alias) => allowed.has(normalize(alias)));
}

/**
 * Decides whether a message is for the bot. Direct chats always are. In groups, with prefixes configured
 * a message must start with one (it is stripped from the text); with `mention_only` it must mention the bot.
 */
export function applyTrigger(settings: TriggerSettings, message: { chat: string; text: string; mentioned: boolean; senderAliases: string[] }): TriggerDecision {
  if (!senderAllowed(settings.allow_from, message.senderAliases)) return { kind: 'ignore', reason: 'not_allowed' };
  if (message.chat.startsWith('direct:')) return { kind: 'accept', text: message.text };
  const prefix = settings.prefixes.find((p) => p !== '' && message.text.toLowerCase().startsWith(p.toLowerCase()));
  if (prefix !== undefined) return { kind: 'accept', text: message.text.slice(prefix.length).trim() };
  if (settings.prefixes.length > 0 && !message.mentioned) return { kind: 'ignore', reason: 'not_addressed' };
  if (settings.mention_only && !message.mentioned) return { kind: 'ignore', reason: 'not_addressed' };
  return { kind: 'accept', text: message.text };
}
