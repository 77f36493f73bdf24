import * as z from 'zod';
import { isSecret, type ChannelEntry } from '../../store/config/index.js';
import { ChannelError } from './channel.js';

/**
 * A channel entry's settings read by its kind's schema, secrets revealed (the config keeps them wrapped): a problem
 * names the field's path and what is allowed, and the channel is refused as configured (`bad_settings`).
 */
export function settingsOf<S extends z.ZodType>(name: string, entry: ChannelEntry, schema: S): z.output<S> {
  const raw = Object.fromEntries(
    Object.entries(entry.settings).map(([key, value]) => [key, isSecret(value) ? value.reveal() : value]),
  );
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `channel_list.${name}.settings.${issue.path.join('.')}: ${issue.message}`,
  );
  throw new ChannelError('bad_settings', problems.join('; '));
}

const MISSING = 'is missing (set it in config.json, or a secret in .security.yml)';

/** A text setting the channel cannot start without. */
export function requiredText(description: string): z.ZodString {
  return z.string({ error: MISSING }).trim().min(1, MISSING).describe(description);
}

/** The peer runtime's field: the chat that gets the model's reasoning, apart from the reply. */
export const reasoningChannelId = () =>
  z
    .string()
    .trim()
    .optional()
    .describe("Chat that gets the model's reasoning (direct:<id>, group:<id> or the platform's id); empty, none");

/** For channels whose library makes its own connections: a proxy setting would silently do nothing. */
export function refuseProxy(name: string, entry: ChannelEntry, why: string): void {
  if (!entry.settings.proxy) return;
  throw new ChannelError(
    'bad_settings',
    `channel_list.${name}.settings.proxy is not supported for this channel: ${why} (allowed: telegram channels)`,
  );
}
