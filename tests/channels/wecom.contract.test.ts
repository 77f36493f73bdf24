import { channelContract } from './contract/kit.js';
import { WeComContractEmulator } from './wecom/wecom-contract-emulator.js';

channelContract({
  kind: 'wecom',
  maxMessageLength: 2048,
  // WeCom reads Markdown itself.
  formatted: 'echo: **bold** and `code`',
  plain: 'echo: **bold** and `code`',
  emulator: () => WeComContractEmulator.start(),
  lacks: {
    threads: 'WeCom chats have no threads',
    voice: 'WeCom hands a bot its own transcript of a voice message, never the recording',
    file_captions: 'a WeCom file message carries no text: the caption is the message before it',
    format_fallback: 'WeCom shows Markdown it cannot read as text; it never refuses a message for it',
    edits: "a bot's finished reply cannot be changed",
    rate_limit: 'WeCom refuses an over-frequent call with an error code and no retry time',
  },
});
