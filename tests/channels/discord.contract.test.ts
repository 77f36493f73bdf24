import { DiscordApi } from '../support/discord-api.js';
import { channelContract } from './contract/kit.js';

channelContract({
  kind: 'discord',
  maxMessageLength: 2000,
  // Discord reads Markdown itself: the reply goes unchanged.
  formatted: 'echo: **bold** and `code`',
  plain: 'echo: **bold** and `code`',
  emulator: () => DiscordApi.start(),
  lacks: { format_fallback: 'Discord renders Markdown itself and never refuses a message for it' },
});
