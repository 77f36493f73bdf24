import { DingTalkContractEmulator } from './dingtalk/dingtalk-contract-emulator.js';
import { channelContract } from './contract/kit.js';

channelContract({
  kind: 'dingtalk',
  maxMessageLength: 20_000,
  // DingTalk reads Markdown itself.
  formatted: 'echo: **bold** and `code`',
  plain: 'echo: **bold** and `code`',
  emulator: () => DingTalkContractEmulator.start(),
  lacks: {
    threads: 'DingTalk chats have no threads',
    captions: 'a DingTalk picture message carries no text',
    file_captions: 'a DingTalk file or picture message carries no text: the caption is the message after it',
    format_fallback: 'DingTalk shows Markdown it cannot read as text; it never refuses a message for it',
    edits: "a bot's Markdown message cannot be changed",
    typing: 'DingTalk shows bots no typing indicator',
    rate_limit: 'DingTalk refuses an over-frequent call with an error code and no retry time',
  },
});
