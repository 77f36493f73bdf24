import * as z from 'zod/mini';
import { text } from '../fields.js';
import { optional } from '../shared.js';

const described = <T extends z.core.SomeType>(schema: T, description: string) =>
  optional(schema).check(z.describe(description));

/** A Signal entry's settings (`docs/channels/signal.md`): signal-cli holds the account's keys, Tern none. */
export const signalSettings = z.looseObject({
  account: described(text(), "The bot's Signal number as signal-cli knows it, e.g. +15550001000"),
  daemon_address: described(text(), "host:port of signal-cli's JSON-RPC daemon (daemon --tcp); default 127.0.0.1:7583"),
});
