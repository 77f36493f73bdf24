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
    format_fallback: 'Mattermost shows Markdown it cannot read as text; it never refuses a post for it',
  },
});
