import { MAX_MESSAGE_CHARS } from '../../adapters/channels/pico/frames.js';
import { channelContract } from './contract/kit.js';
import { PicoContractEmulator } from './pico-client/pico-contract-emulator.js';

channelContract({
  kind: 'pico_client',
  maxMessageLength: MAX_MESSAGE_CHARS,
  // A Pico chat page renders Markdown itself.
  formatted: 'echo: **bold** and `code`',
  plain: 'echo: **bold** and `code`',
  emulator: () => PicoContractEmulator.start(),
  lacks: {
    threads: 'a Pico session is one conversation, with no threads',
    upload: 'a Pico client sends text only: the file is named in the reply',
    format_fallback: 'a Pico server takes Markdown as it is, so nothing is refused',
    edits: 'a Pico client can send messages, not edit them',
    rate_limit: 'the Pico Protocol has no rate-limit answer',
  },
});
