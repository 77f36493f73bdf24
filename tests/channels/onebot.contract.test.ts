import { channelContract } from './contract/kit.js';
import { OneBotContractEmulator } from './onebot/onebot-contract-emulator.js';

channelContract({
  kind: 'onebot',
  maxMessageLength: 4000,
  // QQ shows plain text only: Markdown is reduced to its words.
  formatted: 'echo: bold and code',
  plain: 'echo: bold and code',
  emulator: () => OneBotContractEmulator.start(),
  lacks: {
    threads: 'QQ chats and groups have no threads',
    file_captions: 'a OneBot file segment carries no text',
    format_fallback: 'QQ shows plain text only, so nothing is refused',
    edits: 'OneBot v11 has no action to edit a sent message',
    typing: 'OneBot v11 has no typing action',
    rate_limit: 'OneBot v11 answers no 429 and no retry_after: a refused send is a plain retcode',
  },
});
