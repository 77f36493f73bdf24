import * as z from 'zod';
import { reasoningChannelId, requiredText } from '../settings-of.js';

/** `channel_list.<name>.settings` of a Mattermost channel: the server and a bot account's access token. */
export const mattermostSettingsSchema = z.looseObject({
  server_url: z
    .url({ protocol: /^https?$/, error: 'must be the http(s):// address of the Mattermost server' })
    .describe('Address of the Mattermost server, e.g. https://chat.example.com'),
  token: requiredText('Access token of the bot account (Integrations → Bot Accounts), a secret'),
  reasoning_channel_id: reasoningChannelId(),
});

export type MattermostSettings = z.output<typeof mattermostSettingsSchema>;
