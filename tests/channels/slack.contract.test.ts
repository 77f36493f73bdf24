import { SlackApi } from '../support/slack-api.js';
import { channelContract } from './contract/kit.js';

channelContract({
  kind: 'slack',
  maxMessageLength: 4000,
  formatted: 'echo: *bold* and `code`',
  plain: 'echo: bold and code',
  emulator: () => SlackApi.start(),
  lacks: {
    typing: 'Slack offers bots no typing indicator outside its assistant threads',
    format_fallback: 'Slack shows mrkdwn it cannot read as text; it never refuses a message for it',
  },
});
