import { LineApi } from '../support/line-api.js';
import { channelContract } from './contract/kit.js';

channelContract({
  kind: 'line',
  maxMessageLength: 5000,
  // LINE shows plain text only: Markdown is reduced to its words.
  formatted: 'echo: bold and code',
  plain: 'echo: bold and code',
  emulator: () => LineApi.start(),
  lacks: {
    threads: 'LINE chats have no threads',
    captions: 'a LINE picture carries no text',
    upload: 'a LINE bot sends files only as public HTTPS URLs, which a local gateway does not have',
    format_fallback: 'LINE shows plain text only, so nothing is refused',
    edits: 'a LINE message cannot be edited',
    reconnect: 'LINE pushes webhooks: there is no connection to lose',
  },
});
