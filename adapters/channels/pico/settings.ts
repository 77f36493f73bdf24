import * as z from 'zod';
import { reasoningChannelId } from '../settings-of.js';

const MISSING = 'is missing (set it in config.json: the ws:// or wss:// address of the Pico server)';

/** `channel_list.<name>.settings` of a `pico_client` channel, with the peer runtime's field names. */
export const picoClientSettingsSchema = z.looseObject({
  url: z
    .url({
      protocol: /^wss?$/,
      error: (issue) =>
        issue.input === undefined ? MISSING : 'must be a ws:// or wss:// URL (allowed: e.g. wss://host/pico/ws)',
    })
    .describe('WebSocket address of the remote Pico Protocol server, e.g. wss://host/pico/ws'),
  token: z
    .string()
    .optional()
    .describe('Sent as Authorization: Bearer <token> when connecting (secret); none: no header'),
  session_id: z
    .union([
      z.literal(''),
      z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be 1–64 letters, digits, _ or - (or empty)' }),
    ])
    .default('')
    .describe('Chat session of server messages that name none; empty: one made when the channel starts'),
  ping_interval: z
    .number()
    .int()
    .min(1)
    .max(3600)
    .default(30)
    .describe('Seconds between WebSocket pings to the server (default 30)'),
  read_timeout: z
    .number()
    .int()
    .min(2)
    .max(3600)
    .default(60)
    .describe('Seconds without any frame or pong after which the connection counts as dead and is made again'),
  reasoning_channel_id: reasoningChannelId(),
});

export type PicoClientSettings = z.output<typeof picoClientSettingsSchema>;

const NO_TOKEN =
  'is missing (set it in config.json or .security.yml: the secret Pico clients send, as Authorization: Bearer <token>)';

/** `channel_list.<name>.settings` of a `pico` channel served by `tern gateway`, with the peer runtime's field names. */
export const picoServerSettingsSchema = z.looseObject({
  token: z
    .string({ error: NO_TOKEN })
    .min(1, NO_TOKEN)
    .describe('The secret a client shows: Authorization: Bearer <token>, or the WebSocket subprotocol token.<token>'),
  allow_token_query: z
    .boolean()
    .default(false)
    .describe('Also take the token as ?token= in the address (it then shows in proxy logs; default false)'),
  allow_origins: z
    .array(z.string())
    .default([])
    .describe('Origin headers a browser client may connect from ("*": any); empty: any'),
  max_connections: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(100)
    .describe('Open client sockets at most (default 100)'),
  ping_interval: z
    .number()
    .int()
    .min(1)
    .max(3600)
    .default(30)
    .describe('Seconds between WebSocket pings to each client (default 30)'),
  read_timeout: z
    .number()
    .int()
    .min(2)
    .max(3600)
    .default(60)
    .describe('Seconds without any frame or pong after which a client counts as gone and its socket is closed'),
  reasoning_channel_id: reasoningChannelId(),
});

export type PicoServerSettings = z.output<typeof picoServerSettingsSchema>;
