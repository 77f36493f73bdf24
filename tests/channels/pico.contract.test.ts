import { PICO_GATEWAY_MAX_CHARS } from '../../adapters/channels/pico/gateway-channel.js';
import { channelContract } from './contract/kit.js';
import { PicoContractClients } from './pico/pico-contract-client.js';

channelContract({
  kind: 'pico',
  maxMessageLength: PICO_GATEWAY_MAX_CHARS,
  // A Pico chat page renders Markdown itself.
  formatted: 'echo: **bold** and `code`',
  plain: 'echo: **bold** and `code`',
  emulator: () => PicoContractClients.start(),
  lacks: {
    threads: 'a Pico session is one conversation, with no threads',
    media: "a client's message.send carries text only",
    voice: "a client's message.send carries text only",
    upload: 'a file other than an image reaches a Pico client by name and size only',
    format_fallback: 'a Pico client takes Markdown as it is, so nothing is refused',
    rate_limit: 'the Pico Protocol has no rate-limit answer',
    reconnect: 'the clients connect to the gateway: there is no connection of the bot to drop',
  },
});
