import { channelContract } from './contract/kit.js';
import { IrcContractEmulator } from './irc/irc-contract-emulator.js';

channelContract({
  kind: 'irc',
  maxMessageLength: 1000,
  // IRC shows plain text: Markdown is reduced to its words.
  formatted: 'echo: bold and code',
  plain: 'echo: bold and code',
  emulator: () => IrcContractEmulator.start(),
  lacks: {
    threads: 'IRC channels have no threads',
    media: 'IRC carries text only',
    voice: 'IRC carries text only',
    upload: 'IRC carries text only (DCC is peer to peer, not through the server)',
    format_fallback: 'replies go out as plain text, so nothing is refused',
    edits: 'IRC has no way to edit a sent message',
    redelivery: 'an IRC server relays each message once and never again',
    rate_limit: 'IRC servers answer no 429: they throttle or disconnect a flooding client',
  },
});
