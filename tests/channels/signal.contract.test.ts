import { channelContract } from './contract/kit.js';
import { SignalContractEmulator } from './signal/signal-contract-emulator.js';

channelContract({
  kind: 'signal',
  maxMessageLength: 2000,
  // Signal shows plain text: Markdown is reduced to its words.
  formatted: 'echo: bold and code',
  plain: 'echo: bold and code',
  emulator: () => SignalContractEmulator.start(),
  lacks: {
    threads: 'Signal chats and groups have no threads',
    format_fallback: 'replies go out as plain text, so nothing is refused',
    edits: 'Signal allows few edits of a message, so Tern sends a placeholder and the reply',
    rate_limit: "signal-cli's rate-limit error names no retry_after on JSON-RPC",
  },
});
