import { channelContract } from './contract/kit.js';
import { MattermostContractEmulator } from './mattermost/mattermost-contract-emulator.js';

channelContract({
  kind: 'mattermost',
  maxMessageLength: 4000,
  // Mattermost renders Markdown itself.
  formatted: 'echo: **bold** and `code`',
  plain: 'echo: **bold** and `code`',
  emulator: () => MattermostContractEmulator.start(),
  lacks: {
    media: 'files users send are not fetched yet (#37)',
    voice: 'files users send are not fetched yet (#37)',
    upload: 'files the agent sends are not uploaded yet (#37)',
    format_fallback: 'Mattermost shows Markdown it cannot read as text; it never refuses a post for it',
  },
});
