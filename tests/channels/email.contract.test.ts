import { EmailContractEmulator } from './email/email-contract-emulator.js';
import { channelContract } from './contract/kit.js';

channelContract({
  kind: 'email',
  maxMessageLength: 16_000,
  // Markdown reads as plain text mail: it goes out as written.
  formatted: 'echo: **bold** and `code`',
  plain: 'echo: **bold** and `code`',
  emulator: () => EmailContractEmulator.start(),
  lacks: {
    threads: 'a mail thread is a session of its own (tests/channels/email/threads.test.ts), not a group thread',
    format_fallback: 'replies go out as plain text, so nothing is refused',
    edits: 'a sent mail cannot be edited, so Tern sends a placeholder and the reply',
    typing: 'mail has no typing indicator',
    rate_limit: 'SMTP names no retry_after: a 4xx is tried again with backoff (tests/channels/email/smtp.test.ts)',
  },
});
