import * as z from 'zod';
import { reasoningChannelId } from '../settings-of.js';

/** `channel_list.<name>.settings` of a OneBot v11 channel, with the peer runtime's field names. */
export const onebotSettingsSchema = z.looseObject({
  ws_url: z
    .url({
      protocol: /^wss?$/,
      error: 'must be a ws:// or wss:// URL (allowed: the forward WebSocket of NapCat or Lagrange)',
    })
    .default('ws://127.0.0.1:3001')
    .describe(
      'Forward WebSocket address of the OneBot v11 implementation (NapCat, Lagrange), e.g. ws://127.0.0.1:3001',
    ),
  access_token: z
    .string()
    .optional()
    .describe('The access token set in the OneBot implementation (secret); none: no token'),
  reconnect_interval: z
    .number()
    .int()
    .min(1)
    .max(600)
    .default(5)
    .describe('Seconds before the first reconnect after the connection drops; doubles on each failure, up to 60 s'),
  prefixes: z
    .array(z.string())
    .default([])
    .describe("In groups, answer only messages starting with one of these (the peer's group_trigger_prefix); stripped"),
  reasoning_channel_id: reasoningChannelId(),
});

export type OneBotSettings = z.output<typeof onebotSettingsSchema>;
