import { WhatsAppGraphApi } from '../support/whatsapp-graph-api.js';
import { channelContract } from './contract/kit.js';

channelContract({
  kind: 'whatsapp',
  maxMessageLength: 4096,
  formatted: 'echo: *bold* and `code`',
  plain: 'echo: bold and code',
  emulator: () => WhatsAppGraphApi.start(),
  lacks: {
    threads: 'WhatsApp chats have no threads',
    format_fallback: 'WhatsApp shows markup it cannot read as text; it never refuses a message for it',
    edits: 'the Cloud API cannot edit a message',
    reconnect: 'the Cloud API pushes webhooks: there is no connection to lose',
  },
});
