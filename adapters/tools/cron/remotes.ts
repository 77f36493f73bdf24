/** Channels a person at this machine uses; every other channel is reached over a network. */
const LOCAL_CHANNELS = new Set(['cli', 'system']);

export function isRemoteChannel(channel: string): boolean {
  return !LOCAL_CHANNELS.has(channel);
}

/**
 * `tools.cron.command_allowed_remotes`: an entry is `<channel>`, `<channel>:<chat_id>`, or `*` (any
 * non-empty channel). A chat is matched with and without its `direct:`/`group:`/`channel:` prefix.
 */
export function remoteMayScheduleCommands(channel: string, chat: string, allowed: readonly string[]): boolean {
  if (channel === '') return false;
  const chats = new Set([chat, chat.replace(/^(direct|group|channel):/, '')]);
  return allowed.some((raw) => {
    const entry = raw.trim();
    if (entry === '*' || entry === channel) return true;
    const colon = entry.indexOf(':');
    return colon > 0 && entry.slice(0, colon) === channel && chats.has(entry.slice(colon + 1));
  });
}
