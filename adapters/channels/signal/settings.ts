import * as z from 'zod';
import { reasoningChannelId, requiredText } from '../settings-of.js';

/** `channel_list.<name>.settings` of a Signal channel: signal-cli's JSON-RPC daemon and the account it runs. */
export const signalSettingsSchema = z.looseObject({
  account: requiredText("The bot's Signal number as signal-cli knows it, e.g. +15550001000").regex(
    /^\+\d{6,15}$/,
    'must be a phone number in international form, e.g. +15550001000',
  ),
  daemon_address: z
    .string()
    .trim()
    .regex(/^[^\s:]+:\d{1,5}$/, 'must be host:port of `signal-cli daemon --tcp` (e.g. 127.0.0.1:7583)')
    .default('127.0.0.1:7583')
    .describe("host:port of signal-cli's JSON-RPC daemon (`signal-cli daemon --tcp`); default 127.0.0.1:7583"),
  reasoning_channel_id: reasoningChannelId(),
});

export type SignalSettings = z.output<typeof signalSettingsSchema>;
