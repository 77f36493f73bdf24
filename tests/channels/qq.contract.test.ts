import { channelContract } from './contract/kit.js';
import { QqContractEmulator } from './qq/qq-contract-emulator.js';

channelContract({
  kind: 'qq',
  maxMessageLength: 2000,
  // A text message (msg_type 0) shows as it is: Markdown is reduced to its words (send_markdown sends it as QQ's).
  formatted: 'echo: bold and code',
  plain: 'echo: bold and code',
  emulator: () => QqContractEmulator.start(),
  lacks: {
    threads: 'QQ chats and groups have no threads',
    format_fallback: 'a QQ text message is plain, so nothing is refused',
    edits: 'the QQ OpenAPI cannot edit a sent message',
    rate_limit: 'the QQ OpenAPI refuses an over-frequent send with an error code and no retry time',
  },
});
